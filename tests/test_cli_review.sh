#!/usr/bin/env bash
# test_cli_review.sh - the fluidcl command line end to end, continued from
# test_cli_more.sh (sections 29 on): what reviews of the command line found
# (output.dir, output.every, DFSPH's eta at wide supports, signals, name
# clashes, bench's warm-up and JSON), wcsph's note on a soft fluid, mac's
# speed bound and overfilled box, the scene's own keys its solver does not
# read, no OpenCL device, a level set that erases small bodies, the
# viewer's options under run, dfsph's support under 2. Same helpers (cli_common.sh).
#
# usage: bash tests/test_cli_review.sh path/to/fluidcl    (any working directory)
set -u
. "$(cd "$(dirname "$0")" && pwd)/cli_common.sh"

# 29. From a review of the command line: a scene's output.dir alone writes
# frames (every 100 steps, as --out; it wrote none, and --mesh asked for
# --out); --out with --param output.every=0 writes none and says so (it
# wrote every 100); a run ending between frames says where the last is.
cat >"$T/od.json" <<EOF
{ "domain": { "min": [0,0,0], "max": [0.2,0.2,0.2] }, "particles": { "spacing": 0.02 },
  "output": { "dir": "$T/od_frames" }, "fluid": [ { "type": "box", "min": [0,0,0], "max": [0.1,0.1,0.1] } ] }
EOF
# The column where a summary line's value starts (the frames line had its
# own width; a review).
value_column() {
    printf '%s' "$OUT" | awk -v k="$1" 'index($0, k) == 1 { match(substr($0, length(k) + 1), /[^ ]/); print length(k) + RSTART; exit }'
}
fl run "$T/od.json" --backend cpu --steps 200 --quiet --mesh
R1=$RC
n1=$(ls "$T/od_frames"/frame_*.vtu 2>/dev/null | wc -l) m1=$(ls "$T/od_frames"/*.surface.ply 2>/dev/null | wc -l)
fl run "$T/od.json" --backend cpu --steps 30 --quiet --out "$T/od_none" --param output.every=0
R2=$RC E2=$ERR
fl run "$T/od.json" --backend cpu --steps 30 --quiet --out "$T/od_between" --every 20 --solver mps
[ "$R1$R2$RC" = 000 ] && [ "$n1" = 3 ] && [ "$m1" = 3 ] && [ ! -e "$T/od_none" ] &&
    printf '%s' "$E2" | grep -q "note: output.every is 0: no frames go to $T/od_none" &&
    printf '%s' "$OUT" | grep -Eq "^frames +2 in $T/od_between, the last at step 20: the final step 30 falls between" &&
    [ "$(value_column frames)" = "$(value_column particles)" ] &&
    ok "29 a scene's output.dir writes frames and meshes; output.every=0 with --out none, noted; the last frame named, in the summary's column" ||
    bad "29 output.dir and output.every" "exit $R1 $R2 $RC, $n1 frames, $m1 meshes: $(printf '%s' "$E2" | tr '\n' ' ') / $(printf '%s' "$OUT" | grep frames)"
# Another solver's --param (dfsph.eta under wcsph, control.* without pbf)
# is noted once per group (it was taken in silence); the run's own is not.
fl run "$GOOD" --backend cpu --steps 1 --quiet --param dfsph.eta=0.5 --param dfsph.eta_v=1 --param control.beta=1 \
    --param wcsph.neighbors=cells
[ "$RC" -eq 0 ] && [ "$(printf '%s' "$ERR" | grep -c "only the dfsph solver reads these, and this run's is wcsph")" = 1 ] &&
    printf '%s' "$ERR" | grep -q -- "--param control.\*: only the pbf solver reads these" &&
    ! printf '%s' "$ERR" | grep -q "wcsph.\*" &&
    ok "29 another solver's --param is noted once per group, the run's own is not" ||
    bad "29 other solver's params" "exit $RC: $(errline)"
# A shared key the solver does not read (sim.dt under dfsph, the material's
# viscosity under pbf) is noted with what it has in its place, once; and
# a surface setting without --mesh (run and bench): all were taken in
# silence (a review).
fl run "$GOOD" --backend cpu --steps 1 --quiet --solver dfsph --param sim.dt=1e-4 --param sim.dt=1e-4 \
    --param material.viscosity=5 --param surface.method=levelset
r1=$RC e1=$ERR
fl run "$GOOD" --backend cpu --steps 1 --quiet --param sim.dt=1e-4 --param material.viscosity=5
r2=$RC e2=$ERR
fl bench "$GOOD" --backend cpu --steps 1 --quiet --solver pbf --param material.viscosity=2 --param surface.cell=1
if [ "$r1$r2$RC" = 000 ] &&
   [ "$(printf '%s' "$e1" | grep -c -- "--param sim.dt: the dfsph solver does not read it (in its place: its own step: dfsph.cfl")" = 1 ] &&
   printf '%s' "$e1" | grep -q -- "--param material.viscosity: the dfsph solver does not read it (in its place: dfsph.viscosity)" &&
   printf '%s' "$e1" | grep -q -- "--param surface.method=levelset does nothing here: run writes no surface without --mesh" &&
   ! printf '%s' "$e2" | grep -q "does not read" &&
   printf '%s' "$ERR" | grep -q -- "--param material.viscosity: the pbf solver does not read it (in its place: pbf.xsph)" &&
   printf '%s' "$ERR" | grep -q -- "--param surface.cell=1 does nothing here: bench times no surface without --mesh"; then
    ok "29 a shared key the solver does not read is noted once with what it reads; surface.* without --mesh noted"
else
    bad "29 ignored shared keys" "exit $r1 $r2 $RC: $(printf '%s' "$e1" | tr '\n' ' ') / $(printf '%s' "$e2" | tr '\n' ' ') / $(errline)"
fi

# dfsph meets dfsph.eta (0.01 %) after its steps, not only by its
# prediction, where the advect's wall clamp rather than the one layer of
# wall particles holds the fluid (support 3 and 4): the prediction read
# the clamped floor layer as moving into the wall, and the pool measured
# 0.136 % and 0.222 % over steps 51-150 (0.0101 and 0.0097 % now; limit
# 1.5 times eta, which support 2 misses early on: 0.020 %).
printf '{ "sim": {"solver": "dfsph"}, "domain": {"min": [0,0,0], "max": [0.2,0.5,0.2]}, "particles": {"spacing": 0.02},\n  "fluid": [ {"type": "box", "min": [0,0,0], "max": [0.2,0.3,0.2]} ] }\n' >"$T/dfsph_pool.json"
fl run "$T/dfsph_pool.json" --backend cpu --steps 150 --quiet --param particles.support=3 --stats "$T/pool3.csv"
r1=$RC
fl run "$T/dfsph_pool.json" --backend cpu --steps 150 --quiet --param particles.support=4 --stats "$T/pool4.csv"
e3=$(awk -F, 'NR > 51 { s += $5; n++ } END { if (n) printf "%.5f", s / n }' "$T/pool3.csv")
e4=$(awk -F, 'NR > 51 { s += $5; n++ } END { if (n) printf "%.5f", s / n }' "$T/pool4.csv")
if [ "$r1$RC" = 00 ] && awk -v a="$e3" -v b="$e4" 'BEGIN { exit !(a != "" && b != "" && a <= 0.015 && b <= 0.015) }'; then
    ok "29 dfsph meets dfsph.eta after its steps at support 3 and 4 in one wall layer ($e3 %, $e4 %; limit 0.015 %)"
else
    bad "29 dfsph eta after the step" "exit $r1 $RC: support 3 $e3 %, support 4 $e4 % over steps 51-150 (limit 0.015 %)"
fi

# SIGINT stops `surface` between meshes: exit 130, every mesh written
# whole, no temporary (the default action, mid-write, left
# NAME.surface.ply.tmp in 2 of 12 tries; a review).
fl run "$GOOD" --backend cpu --steps 60 --every 2 --out "$T/si_frames" --quiet
"$BIN" surface "$T"/si_frames/frame_*.vtu --out "$T/si_mesh" --backend cpu --quiet >/dev/null 2>"$T/si.txt" &
pid=$!
for ((k = 0; k < 300; k++)); do
    [ -n "$(ls "$T/si_mesh" 2>/dev/null | grep 'surface.ply$')" ] && break
    sleep 0.02
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
RC=$?
nm=$(ls "$T/si_mesh" 2>/dev/null | grep -c 'surface.ply$') ntmp=$(ls "$T/si_mesh" 2>/dev/null | grep -c 'tmp$')
if [ "$RC" -eq 130 ] && [ "$ntmp" = 0 ] && grep -q "surface: stopped by SIGINT after $nm of 31 meshes" "$T/si.txt"; then
    ok "29 SIGINT stops surface after $nm of 31 meshes: exit 130, no temporary"
elif [ "$RC" -eq 0 ] && [ "$nm" = 31 ] && [ "$ntmp" = 0 ]; then
    echo "SKIP 29 surface SIGINT: all 31 meshes were written before the signal"
else
    bad "29 surface SIGINT" "exit $RC, $nm meshes, $ntmp temporaries: $(tr '\n' ' ' <"$T/si.txt" | cut -c1-200)"
fi

# SIGTERM during run's set-up (here PoCL's program build, its cache off:
# seconds) ends it at once, exit 143, nothing written: set-up polls no
# flag, and a huge obstacle's volumes ignored SIGTERM for minutes (a
# review; before, the run stopped after its first step, the build done).
if "$BIN" devices 2>/dev/null | grep -q '^\[0\]'; then
    POCL_KERNEL_CACHE=0 "$BIN" run "$GOOD" --backend opencl --steps 1 --out "$T/sig_setup" \
        --stats "$T/sig_setup.csv" >/dev/null 2>"$T/sig_setup.txt" &
    pid=$!
    sleep 0.5
    t0=$(date +%s%N)
    kill -TERM "$pid" 2>/dev/null
    wait "$pid"
    RC=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    if [ "$RC" -eq 143 ] && grep -q "stopped during set-up, before any step" "$T/sig_setup.txt" && [ "$ms" -lt 1000 ] &&
       [ ! -e "$T/sig_setup" ] && [ -z "$(ls "$T" | grep '^sig_setup.csv')" ]; then
        ok "29 SIGTERM during run's set-up: exit 143 after $ms ms, nothing written"
    elif grep -q "stopped by SIGTERM after step" "$T/sig_setup.txt" && [ "$ms" -lt 1000 ]; then
        echo "SKIP 29 SIGTERM during set-up: the set-up was over within 0.5 s"
    else
        bad "29 SIGTERM during set-up" "exit $RC after $ms ms: $(tr '\n' ' ' <"$T/sig_setup.txt" | cut -c1-200)"
    fi
fi

# Frame names outgrow their six digits past step 999,999: noted once, the
# frames still listed in order by frames.pvd (a shell's sorted glob puts
# frame_1000000 before frame_500000). Eight particles, 7 us a step.
printf '{ "sim": { "solver": "wcsph", "dt": 0.0001 }, "domain": { "min": [0,0,0], "max": [0.1,0.1,0.1] },
  "particles": { "spacing": 0.05 }, "boundary": { "walls": "mirror" },
  "fluid": [ { "type": "box", "min": [0,0,0], "max": [0.05,0.05,0.05] } ] }\n' >"$T/eight.json"
OMP_NUM_THREADS=1 fl run "$T/eight.json" --backend cpu --steps 1000001 --every 500000 --out "$T/wide" -q
order=$(grep -o 'file="[^"]*"' "$T/wide/frames.pvd" 2>/dev/null | tr '\n' ' ')
if [ "$RC" -eq 0 ] && [ "$(printf '%s' "$ERR" | grep -c 'frame names past step 999999 have more than six digits (frame_1000000)')" = 1 ] &&
   [ "$order" = 'file="frame_000000.vtu" file="frame_500000.vtu" file="frame_1000000.vtu" ' ]; then
    ok "29 a frame past step 999,999 is noted once for its seventh digit; frames.pvd keeps the order"
else
    bad "29 frame names past six digits" "exit $RC, pvd: $order; $(errline)"
fi

# A step whose outflow takes every particle reports zeros for the speed
# and density errors, as a step with none does: it reported the removed
# particles' (pbf 2.26 m/s and 10 %; a review).
printf '{ "sim": { "solver": "wcsph", "dt": 0.0005 }, "domain": { "min": [0,0,0], "max": [0.3,0.3,0.2] },
  "particles": { "spacing": 0.01 }, "fluid": [ { "type": "box", "min": [0.1,0.1,0.05], "max": [0.2,0.2,0.15] } ],
  "outflows": [ { "min": [0,0,0], "max": [0.3,0.3,0.2] } ] }\n' >"$T/allout.json"
allout=""
for solver in wcsph dfsph pbf mps; do
    fl run "$T/allout.json" --backend cpu --solver "$solver" --steps 2 --stats "$T/allout_$solver.csv" -q
    row=$(sed -n 2p "$T/allout_$solver.csv" 2>/dev/null | cut -d, -f4-6)
    [ "$RC" -eq 0 ] && [ "$row" = "0,0,0" ] || allout="$allout $solver(exit $RC: $row)"
done
[ -z "$allout" ] && ok "29 a step whose outflow removes every particle reports zero speed and density errors (4 solvers)" ||
    bad "29 outflow of every particle" "$allout"

# surface refuses a mesh name that is one of its input frames (a particle
# frame saved as x.surface.ply beside x.ply was replaced by x's mesh with
# exit 0; a review), before any mesh, the frame intact.
fl run "$GOOD" --backend cpu --steps 1 --every 1 --out "$T/clash_run" --param output.format=ply -q
mkdir -p "$T/clash"
cp "$T/clash_run/frame_000000.ply" "$T/clash/blk.ply"
cp "$T/clash_run/frame_000001.ply" "$T/clash/blk.surface.ply"
sum_clash=$(cksum <"$T/clash/blk.surface.ply")
fl surface "$T/clash/blk.surface.ply" "$T/clash/blk.ply" --out "$T/clash"
if [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "which is the frame given as input 1: it would be replaced" &&
   [ "$(cksum <"$T/clash/blk.surface.ply")" = "$sum_clash" ] && [ "$(ls "$T/clash" | wc -l)" -eq 2 ]; then
    ok "29 surface refuses a mesh name that is one of its input frames, nothing written"
else
    bad "29 surface over an input frame" "exit $RC: $(errline)"
fi

# bench of a scene that starts empty warms up until its particles have
# run two steps and says so, the JSON recording it (its warm-up ran no
# kernel, and PoCL's first builds fell in the timed steps; a review); one
# whose emitter never opens is refused; sim.steps is noted as bench's
# --steps; the JSON has the speedup, --from and the --param overrides,
# and no row for the walls' volumes, a setup pass (it was 0 in every
# table).
F=$T/bench_empty.json
printf '%s\n' '{ "sim": { "solver": "wcsph", "gravity": [0, 0, 0] }, "domain": { "min": [0, 0, 0], "max": [0.4, 0.2, 0.2] },
  "particles": { "spacing": 0.02 }, "boundary": { "cache_dir": "off" }, "fluid": [],
  "emitters": [ { "shape": "rect", "center": [0.05, 0.1, 0.1], "direction": [1, 0, 0], "size": [0.06, 0.06], "speed": 1 } ] }' >"$F"
fl bench "$F" --backend cpu --steps 3 --quiet --json "$T/be.json" --param sim.steps=7 --param material.viscosity=2
W=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); b=d['backends'][0]
print(b['warmup_steps'], b['start_time_s'] > 0, b['particles_start'] > 0 and 'boundary' not in b['ms_per_step'] and
      b['launches_per_step'] >= 1 and b['host_reads_per_step'] >= 1 and
      abs(sum(b['launches_by_pass'].values()) - b['launches_per_step']) < 1e-9,
      b['speedup_vs_cpu'], d['from'], ' '.join(d['params']))" \
    "$T/be.json" 2>&1)
R1=$RC E1=$ERR
sed 's/"speed": 1 }/"speed": 1, "start": 50 }/' "$F" >"$T/bench_never.json"
fl bench "$T/bench_never.json" --backend cpu --steps 3 --quiet
set -- $W
[ "$R1" -eq 0 ] && [ "${1:-0}" -gt 2 ] && [ "$2 $3 $4 $5" = "True True 1 None" ] &&
    [ "$6 $7" = "sim.steps=7 material.viscosity=2" ] &&
    printf '%s' "$E1" | grep -q "the scene starts without particles: $1 warm-up steps, the timed ones from t = " &&
    printf '%s' "$E1" | grep -q -- "--param sim.steps=7 does nothing here: bench times --steps (3)" &&
    [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "no particles after 100000 warm-up steps" &&
    ok "30 bench of an empty emitter scene warms up $1 steps, noted and in the JSON; never filled: exit 2" ||
    bad "30 bench warm-up" "exit $R1 $RC, json: $W: $(printf '%s' "$E1" | tr '\n' ' ' | cut -c1-300) / $(errline)"


# 31. wcsph says once when the fluid is compressed past 20 % on average
# (an equation of state too soft for the flow): the dam break at
# material.stiffness = 0.5 reaches it at step 374 (it then ran at 440 %
# for minutes with nothing said); at the default 1000, 400 steps, no note.
fl run embedded:dam_break.json --backend cpu --steps 400 --quiet --param material.stiffness=0.5
R1=$RC E1=$ERR
fl run embedded:dam_break.json --backend cpu --steps 400 --quiet
[ "$R1" -eq 0 ] && [ "$(printf '%s' "$E1" | grep -c "is soft for this flow")" -eq 1 ] &&
    printf '%s' "$E1" | grep -q "compressed by 2[0-9.]* % on average.*material.stiffness = 0.5 is soft for this flow" &&
    [ "$RC" -eq 0 ] && ! printf '%s' "$ERR" | grep -q "is soft for this flow" &&
    ok "31 wcsph notes a soft equation of state once (stiffness 0.5), not at the default" ||
    bad "31 wcsph soft note" "exit $R1 $RC: $(printf '%s' "$E1" | tr '\n' ' ' | cut -c1-300) / $(errline)"


# 32. mac stops as a blow-up (exit 3) when a face moves at more than ten
# times what a fall across the domain, the inflow and the initial flow
# give, and names solves cut short at mac.cg_max_iter: at 1 the dam break
# ran to 76.7 m/s with exit 0 (a review); now step 23, 57 m/s.
fl run embedded:mac_dam_break.json --backend cpu --quiet --param mac.cg_max_iter=1
[ "$RC" -eq 3 ] && printf '%s' "$ERR" | grep -q "numerical blow-up: a face of the grid moves at [0-9.]* m/s, more than ten times" &&
    printf '%s' "$ERR" | grep -q "pressure solves stopped at mac.cg_max_iter = 1 .*raise mac.cg_max_iter" &&
    ok "32 mac: solves cut at mac.cg_max_iter 1 stop as a blow-up naming them" ||
    bad "32 mac speed bound" "exit $RC: $(errline)"
# An inflow into a closed box stops once its markers hold more than 1.1
# of the box, saying so (5 m/s into a 20 cm box, markers for 156 % of it
# at step 24, was told to lower mac.cfl or mac.dt_max; a review). The jet
# points into the box: pointing at the wall 2 cm away, its layers ahead of
# the plane went through the wall (now refused) and it blew up; pointing
# in, it ran 1 s to markers for 640 % with exit 0.
printf '{"sim":{"solver":"mac","dt":0.01},"domain":{"min":[0,0,0],"max":[0.2,0.2,0.2]},"boundary":{"walls":"mirror"},"particles":{"spacing":0.01},"fluid":[{"type":"box","min":[0,0,0],"max":[0.1,0.1,0.1]}],"emitters":[{"shape":"rect","center":[0.18,0.1,0.1],"direction":[-1,0,0],"size":[0.1,0.1],"speed":5}]}\n' >"$T/mac_fill.json"
fl run "$T/mac_fill.json" --backend cpu --quiet --time 0.3
[ "$RC" -eq 3 ] && printf '%s' "$ERR" | grep -q "step 17: the emitters have brought markers for 112 % of the domain's volume (9000 at mac.particles_per_cell = 8): a closed domain takes no more" &&
    ok "32 mac: an inflow that overfills a closed box stops saying so" ||
    bad "32 mac overfilled box" "exit $RC: $(errline)"
# mac's blow-up names the bound its substeps set (it quoted
# sim.max_step_ratio = 1 where the bound was 2), and with mac.dt_min at
# mac.dt_max it says to lower both (a review).
fl run embedded:mac_dam_break.json --backend cpu --quiet --time 0.2 --param sim.dt=0.05 --param mac.dt_min=0.05 \
    --param mac.dt_max=0.05
[ "$RC" -eq 3 ] && printf '%s' "$ERR" | grep -q "moves more than 2 support radii per step (the mac solver's bound from sim.max_step_ratio = 1)" &&
    printf '%s' "$ERR" | grep -q "mac.dt_min is mac.dt_max, which holds every substep at that length (mac.cfl does nothing then): lower both" &&
    ok "32 mac: a blow-up names the solver's own bound, and dt_min at dt_max" ||
    bad "32 mac blow-up bound" "exit $RC: $(errline)"
# 33. A tension coefficient of a model the run does not use is noted
# (material.cohesion under mueller, material.surface_tension under none
# each changed nothing without a word; a review), the model's own not.
fl run "$GOOD" --backend cpu --steps 1 --quiet --param material.cohesion=0.3
E1=$ERR R1=$RC
fl run "$GOOD" --backend cpu --steps 1 --quiet --param material.tension_model=none --param material.surface_tension=0.3
E2=$ERR R2=$RC
fl run "$GOOD" --backend cpu --steps 1 --quiet --param material.tension_model=akinci --param material.cohesion=0.3
[ "$R1" -eq 0 ] && printf '%s' "$E1" | grep -q "material.cohesion is set, but material.tension_model = mueller does not read it" &&
    [ "$R2" -eq 0 ] && printf '%s' "$E2" | grep -q "material.surface_tension is set, but material.tension_model = none" &&
    [ "$RC" -eq 0 ] && ! printf '%s' "$ERR" | grep -q "does not read it" &&
    ok "33 a tension coefficient of another model is noted, the model's own not" ||
    bad "33 idle tension notes" "exit $R1 $R2 $RC: $(printf '%s' "$E1" | tr '\n' ' ' | cut -c1-200)"

# ... and a mirror axis under half the neighbor radius, where images of
# images of images would reach: mps (radius 2.1 spacings) in a slab one
# spacing deep, not two.
for depth in 0.01 0.02; do
    printf '{ "sim": { "solver": "mps" }, "domain": { "min": [0,0,0], "max": [0.1,0.2,%s] }, "boundary": { "walls": "mirror" },\n  "particles": { "spacing": 0.01 }, "fluid": [ { "type": "box", "min": [0,0,0], "max": [0.1,0.1,%s] } ] }\n' \
        "$depth" "$depth" >"$T/slab_$depth.json"
done
fl run "$T/slab_0.01.json" --backend cpu --steps 1 --quiet
E1=$ERR R1=$RC
fl run "$T/slab_0.02.json" --backend cpu --steps 1 --quiet
[ "$R1" -eq 0 ] && printf '%s' "$E1" | grep -q "the domain between mirror walls is 0.01 m across in z, under half the mps solver's neighbor radius" &&
    [ "$RC" -eq 0 ] && ! printf '%s' "$ERR" | grep -q "between mirror walls" &&
    ok "33 a mirror axis under half the neighbor radius is noted (mps, one spacing deep), two spacings not" ||
    bad "33 narrow mirror note" "exit $R1 $RC: $(printf '%s' "$E1" | tr '\n' ' ' | cut -c1-200)"

# A mac grid larger than the device's memory (1000 x 1000 x 990 cells,
# 128 GB) is refused before anything is allocated: exit 2 naming
# mac.cell_size, nothing written (it was refused after the particles'
# 8 GB grid was made, in 17 s; an audit found no test of this check).
printf '{ "sim": { "solver": "mac" }, "domain": { "min": [0,0,0], "max": [10,10,9.9] },\n  "particles": { "spacing": 0.005 }, "fluid": [ { "type": "box", "min": [0,0,0], "max": [0.1,0.1,0.1] } ] }\n' >"$T/bigmac.json"
S0=$(date +%s)
fl run "$T/bigmac.json" --backend cpu --steps 1 --out "$T/bigmac_out"
S1=$(date +%s)
[ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "mac.cell_size: a 1000 x 1000 x 990 grid of 0.01 m cells needs" &&
    [ ! -e "$T/bigmac_out" ] && [ $((S1 - S0)) -le 5 ] &&
    ok "32 mac: a grid beyond the device's memory is refused naming mac.cell_size, before any allocation ($((S1 - S0)) s)" ||
    bad "32 mac grid too large" "exit $RC in $((S1 - S0)) s: $(errline)"

# mac.pic blends the flip transfer's update: under advect it is noted as
# doing nothing (it changed nothing without a word; a review), under flip
# not.
fl run embedded:mac_drop_pool.json --backend cpu --quiet --steps 1 --param mac.pic=0.3
E1=$ERR R1=$RC
fl run embedded:mac_drop_pool.json --backend cpu --quiet --steps 1 --param mac.pic=0.3 --param mac.transfer=flip
[ "$R1" -eq 0 ] && printf '%s' "$E1" | grep -q "mac.pic = 0.3 does nothing under mac.transfer = advect" &&
    [ "$RC" -eq 0 ] && ! printf '%s' "$ERR" | grep -q "mac.pic" &&
    ok "32 mac: mac.pic under the advect transfer is noted as doing nothing, under flip not" ||
    bad "32 mac.pic note" "exit $R1 $RC: $(printf '%s' "$E1" | tr '\n' ' ' | cut -c1-200)"

# 34. What the scene file itself sets for another solver (its "dfsph"
# group under wcsph) or a shared key its solver does not read (sim.dt in a
# dfsph scene) is noted once, naming the file (it ran in silence, while
# the same --param was noted; a review); the same scene under --solver
# dfsph, whose keys for wcsph are expected to go unread, is not noted.
printf '{ "sim": { "dt": 0.0002 }, "dfsph": { "eta": 0.02, "eta_v": 0.2 }, "domain": { "min": [0,0,0], "max": [0.2,0.2,0.2] },\n  "particles": { "spacing": 0.02 }, "fluid": [ { "type": "box", "min": [0,0,0], "max": [0.1,0.1,0.1] } ] }\n' >"$T/keys.json"
sed 's/"sim": { "dt": 0.0002 }/"sim": { "solver": "dfsph", "dt": 0.0002 }/; s/"dfsph": { "eta": 0.02, "eta_v": 0.2 }, //' "$T/keys.json" >"$T/keys_dfsph.json"
fl run "$T/keys.json" --backend cpu --steps 1 --quiet
r1=$RC e1=$ERR
fl run "$T/keys_dfsph.json" --backend cpu --steps 1 --quiet
r2=$RC e2=$ERR
fl run "$T/keys.json" --backend cpu --steps 1 --quiet --solver dfsph
if [ "$r1$r2$RC" = 000 ] &&
   [ "$(printf '%s' "$e1" | grep -c "keys.json sets dfsph.eta: only the dfsph solver reads the dfsph.\* group, and its solver is wcsph")" = 1 ] &&
   ! printf '%s' "$e1" | grep -q "dfsph.eta_v" &&
   printf '%s' "$e2" | grep -q "keys_dfsph.json sets sim.dt: the dfsph solver does not read it (in its place: its own step" &&
   ! printf '%s' "$ERR" | grep -q "keys.json sets"; then
    ok "34 a scene's keys its solver does not read are noted once a group or key; under --solver not"
else
    bad "34 the scene's unread keys" "exit $r1 $r2 $RC: $(printf '%s' "$e1" | tr '\n' ' ') / $(printf '%s' "$e2" | tr '\n' ' ') / $(errline)"
fi

# 35. With no OpenCL device (an ICD folder of none), run and surface,
# whose default backend is OpenCL, note it and go on natively, as bench
# does (they stopped with exit 3; a review); --backend opencl named by the
# user still stops, exit 3, pointing at --backend cpu.
mkdir -p "$T/no_icd"
OCL_ICD_VENDORS=$T/no_icd fl run "$GOOD" --steps 2 --quiet --out "$T/noicd_frames" --every 2
r1=$RC e1=$ERR
OCL_ICD_VENDORS=$T/no_icd fl surface "$T/noicd_frames/frame_000002.vtu" --out "$T/noicd_mesh" --quiet
r2=$RC e2=$ERR
OCL_ICD_VENDORS=$T/no_icd fl run "$GOOD" --steps 2 --quiet --backend opencl
if [ "$r1$r2" = 00 ] && printf '%s' "$e1" | grep -q "no OpenCL device found (see 'fluidcl devices'): the native backend runs instead" &&
   printf '%s' "$e2" | grep -q "the native backend runs instead" && ls "$T/noicd_mesh"/*.ply >/dev/null 2>&1 &&
   [ "$RC" -eq 3 ] && printf '%s' "$ERR" | grep -q -- "--backend cpu runs without one"; then
    ok "35 no OpenCL device: run and surface go on natively with a note; --backend opencl stops (exit 3) naming --backend cpu"
else
    bad "35 no OpenCL device" "exit $r1 $r2 $RC: $(printf '%s' "$e1" | tr '\n' ' ') / $(printf '%s' "$e2" | tr '\n' ' ') / $(errline)"
fi

# 36. A level set whose curvature term shrinks bodies of over 2 spacings'
# radius to nothing is noted once (smooth ls_radius 0.43: 2.7 spacings),
# the defaults not.
fl run "$GOOD" --backend cpu --steps 1 --quiet --out "$T/ls_note" --every 1 --mesh --param surface.method=levelset \
    --param surface.ls_radius=0.43
r1=$RC e1=$ERR
fl run "$GOOD" --backend cpu --steps 1 --quiet --out "$T/ls_note0" --every 1 --mesh --param surface.method=levelset
if [ "$r1$RC" = 00 ] &&
   [ "$(printf '%s' "$e1" | grep -c "its curvature term shrinks any body under 2.7 spacings' radius to nothing")" = 1 ] &&
   ! printf '%s' "$ERR" | grep -q "curvature term"; then
    ok "36 a level set shrinking bodies under 2.7 spacings' radius is noted once, the defaults not"
else
    bad "36 level-set shrink note" "exit $r1 $RC: $(printf '%s' "$e1" | tr '\n' ' ' | cut -c1-300) / $(errline)"
fi
# A resumed run's level set starts afresh (phi is not in the checkpoint):
# noted once (it went unsaid; a review); with mc not.
fl run "$GOOD" --backend cpu --steps 2 --quiet --out "$T/ls_res" --every 2 --checkpoint "$T/ls_res.state"
fl run "$GOOD" --backend cpu --steps 4 --quiet --out "$T/ls_res" --every 2 --resume "$T/ls_res.state" --mesh \
    --param surface.method=levelset
r1=$RC e1=$ERR
fl run "$GOOD" --backend cpu --steps 4 --quiet --out "$T/ls_res_mc" --every 2 --resume "$T/ls_res.state" --mesh
if [ "$r1$RC" = 00 ] && [ "$(printf '%s' "$e1" | grep -c "the level set starts afresh at the first mesh")" = 1 ] &&
   ! printf '%s' "$ERR" | grep -q "starts afresh"; then
    ok "36 a resume with the level set notes that it starts afresh, with mc not"
else
    bad "36 level-set resume note" "exit $r1 $RC: $(printf '%s' "$e1" | tr '\n' ' ' | cut -c1-300) / $(errline)"
fi

# 37. Every option `view --help` lists that run does not take is named as
# a view option by run and bench (run --frames 3 was called unknown; a
# review), which also keeps cli.c's list of them with the viewer's.
vopts=$("$BIN" view --help 2>/dev/null | awk '/^  --/ { sub(/,$/, "", $1); print $1 }')
ropts=$("$BIN" run --help 2>/dev/null | awk '/^  --/ { sub(/,$/, "", $1); print $1 }')
named=0 missed=""
for op in $vopts; do
    printf '%s\n' "$ropts" | grep -qx -- "$op" && continue
    fl run "$GOOD" --backend cpu --steps 1 "$op" 1
    if [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q -- "run: $op is a view option, not a run one"; then
        named=$((named + 1))
    else
        missed="$missed $op"
    fi
done
[ "$named" -ge 8 ] && [ -z "$missed" ] && ok "37 the viewer's $named own options are named as view options by run" ||
    bad "37 view options under run" "$named named, missed:$missed"

# 38. dfsph under 2 spacings of support, where a resting pool keeps moving,
# is noted once (it ran without a word; a review); at 2 not.
fl run "$GOOD" --backend cpu --steps 2 --quiet --solver dfsph --param particles.support=1.5
r1=$RC e1=$ERR
fl run "$GOOD" --backend cpu --steps 2 --quiet --solver dfsph
if [ "$r1$RC" = 00 ] && [ "$(printf '%s' "$e1" | grep -c "dfsph at particles.support = 1.5 spacings: under 2 a resting pool keeps moving")" = 1 ] &&
   ! printf '%s' "$ERR" | grep -q "particles.support"; then
    ok "38 dfsph under 2 spacings of support is noted once, at 2 not"
else
    bad "38 dfsph support note" "exit $r1 $RC: $(printf '%s' "$e1" | tr '\n' ' ' | cut -c1-300) / $(errline)"
fi

# 39. A scene's own output.every 0 beside its output.dir writes no frames
# (it wrote every 100 steps: only --every and --param output.every were
# heard; a review); its every 7 is obeyed as before.
for ev in 0 7; do
    sed "s|\"particles\":|\"output\": {\"every\": $ev, \"dir\": \"$T/every$ev\"}, \"particles\":|" "$GOOD" >"$T/every$ev.json"
done
fl run "$T/every0.json" --backend cpu --steps 14 --quiet
r0=$RC e0=$ERR
fl run "$T/every7.json" --backend cpu --steps 14 --quiet
if [ "$r0$RC" = 00 ] && [ ! -e "$T/every0" ] && printf '%s' "$e0" | grep -q "output.every is 0: no frames go to" &&
   [ -e "$T/every7/frame_000007.vtu" ] && [ -e "$T/every7/frame_000014.vtu" ]; then
    ok "39 a scene's output.every 0 beside its folder writes no frames, noted; its 7 writes steps 0, 7, 14"
else
    bad "39 scene output.every" "exit $r0 $RC: $(ls "$T/every0" 2>&1 | head -3 | tr '\n' ' ') $(printf '%s' "$e0" | tr '\n' ' ')"
fi

# 40. surface.phases: a gas meshed with its liquid hid the liquid (water_air
# meshed its whole 40 cm tank; a review). The shipped scene meshes its
# water alone (1,500 particles: about 1.5e-3 m^3, x under 0.11 m), run
# --mesh as `surface` of its frame; every phase is noted as taking the gas;
# a phase the scene lacks is refused.
wa=(embedded:water_air.json --backend cpu --quiet --steps 2 --every 2 --mesh)
fl run "${wa[@]}" --out "$T/wa"
r1=$RC
"$BIN" surface "$T/wa/frame_000002.vtu" --out "$T/wa_s" --backend cpu --quiet --param surface.phases=0 >/dev/null 2>&1
r2=$?
fl run "${wa[@]}" --out "$T/wa_all" --param surface.phases=
r3=$RC e3=$ERR
fl run "${wa[@]}" --out "$T/wa_5" --param surface.phases=5
r4=$RC e4=$ERR
vol=$(python3 - "$T/wa/frame_000002.surface.ply" "$T/wa_all/frame_000002.surface.ply" <<'PY' 2>&1
import struct, sys
for f in sys.argv[1:]:   # fluidcl's binary PLY: 6 floats a vertex, uchar 3 and 3 uint a face
    data = open(f, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    head = data[:end].decode().split("\n")
    nv = int([l for l in head if l.startswith("element vertex")][0].split()[2])
    nt = int([l for l in head if l.startswith("element face")][0].split()[2])
    v = [struct.unpack_from("<3f", data, end + 24 * i) for i in range(nv)]
    vol, off = 0.0, end + 24 * nv
    for i in range(nt):
        a, b, c = (v[k] for k in struct.unpack_from("<3I", data, off + 13 * i + 1))
        vol += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6
    print("%.6f %.4f" % (vol, max(q[0] for q in v)), end=" ")
PY
)
set -- $vol
if [ "$r1$r2$r3$r4" = 0002 ] && cmp -s "$T/wa/frame_000002.surface.ply" "$T/wa_s/frame_000002.surface.ply" &&
   awk -v v="$1" -v x="$2" -v va="$3" -v xa="$4" 'BEGIN { exit !(v > 0.00140 && v < 0.00160 && x < 0.11 && va > 0.0055 && xa > 0.39) }' &&
   printf '%s' "$e3" | grep -q "the mesh takes every phase, the gas air (1.3 kg/m^3, phase 1)" &&
   printf '%s' "$e4" | grep -q "surface.phases = '5': phase 5, and the scene has 2"; then
    ok "40 water_air meshes its water alone ($1 m^3 to x $2; every phase $3 m^3 to x $4, noted), as surface does; phase 5 refused"
else
    bad "40 surface.phases" "exit $r1 $r2 $r3 $r4, volumes and reach: $vol / $(printf '%s' "$e3$e4" | tr '\n' ' ' | cut -c1-300)"
fi

# 41. surface.format both whose OBJ cannot be written (a file size limit
# between the two files' sizes) leaves neither file: the PLY written beside
# it stood alone (a review).
fl run "$GOOD" --backend cpu --steps 1 --every 1 --out "$T/pair" --quiet
"$BIN" surface "$T/pair/frame_000001.vtu" --out "$T/pair_ok" --backend cpu --quiet --param surface.format=both >/dev/null 2>&1
ply=$(stat -c %s "$T/pair_ok/frame_000001.surface.ply" 2>/dev/null || echo 0)
obj=$(stat -c %s "$T/pair_ok/frame_000001.surface.obj" 2>/dev/null || echo 0)
limit=$(((ply + obj) / 2 / 1024))
(ulimit -f "$limit"; "$BIN" surface "$T/pair/frame_000001.vtu" --out "$T/pair_cut" --backend cpu --quiet \
    --param surface.format=both >/dev/null 2>"$T/pair_err.txt")
RC=$?
left=$(ls "$T/pair_cut" 2>/dev/null | tr '\n' ' ')
if [ "$ply" -gt 0 ] && [ "$obj" -gt $((ply + 2048)) ] && [ "$RC" -eq 3 ] && [ -z "$left" ] &&
   grep -q "its .ply, just written, removed" "$T/pair_err.txt"; then
    ok "41 surface.format both with the OBJ cut by a file size limit ($limit KiB): exit 3, neither file left"
else
    bad "41 surface pair" "ply $ply obj $obj limit $limit KiB, exit $RC, left: $left $(cat "$T/pair_err.txt")"
fi

# 42. surface.* settings the chosen method and field do not read are noted
# once (surface.stretch under zou's field, an ls_* under mc, smooth_feature
# without smoothing each changed nothing without a word; a review); read
# ones are not.
fl surface "$T/pair/frame_000001.vtu" --out "$T/unread1" --backend cpu --quiet --param surface.stretch=5 \
    --param surface.ls_cell=2 --param surface.smooth_feature=3
r1=$RC e1=$ERR
fl surface "$T/pair/frame_000001.vtu" --out "$T/unread2" --backend cpu --quiet --param surface.field=anisotropic \
    --param surface.stretch=2 --param surface.smooth_iterations=2 --param surface.smooth_feature=3
if [ "$r1$RC" = 00 ] && [ "$(printf '%s\n' "$e1" | grep -c "surface.stretch, surface.ls_cell, surface.smooth_feature: set, and not read under surface.method mc (field zou")" = 1 ] &&
   ! printf '%s' "$ERR" | grep -q "not read under"; then
    ok "42 surface settings the method and field do not read are noted once; read ones are not"
else
    bad "42 unread surface settings" "exit $r1 $RC: $(printf '%s' "$e1" | tr '\n' ' ') / $(errline)"
fi

# 43. dfsph in a closed box exactly full of fluid, set turning (a
# Taylor-Green cell, 20 x 20 x 4 cm at 1 cm in mirror walls, no gravity):
# its density solves are cut at dfsph.max_iter again and again and feed
# energy in; the 10th is warned of, once (4.84 m/s from 0.1 with exit 0
# and no word; a review). The same cell under air, and a dam break, cut
# none.
python3 - "$T/tg.json" "$T/tg_air.json" <<'PY'
import json, math, sys
d, L, U = 0.01, 0.2, 0.1
for path, top in ((sys.argv[1], 0.2), (sys.argv[2], 0.22)):
    boxes = []
    for i in range(20):
        for j in range(20):
            x, y = (i + 0.5) * d, (j + 0.5) * d
            u = U * math.sin(math.pi * x / L) * math.cos(math.pi * y / L)
            v = -U * math.cos(math.pi * x / L) * math.sin(math.pi * y / L)
            boxes.append({"type": "box", "min": [i * d, j * d, 0], "max": [(i + 1) * d, (j + 1) * d, 0.04],
                          "velocity": [round(u, 6), round(v, 6), 0]})
    json.dump({"sim": {"solver": "dfsph", "gravity": [0, 0, 0]}, "domain": {"min": [0, 0, 0], "max": [L, top, 0.04]},
               "boundary": {"walls": "mirror"}, "particles": {"spacing": d},
               "material": {"tension_model": "none"}, "fluid": boxes}, open(path, "w"))
PY
fl run "$T/tg.json" --backend cpu --steps 150 --quiet
r1=$RC n1=$(printf '%s\n' "$ERR" | grep -c "density solve of the run stopped at dfsph.max_iter = 100 short of dfsph.eta")
fl run "$T/tg_air.json" --backend cpu --steps 150 --quiet
r2=$RC n2=$(printf '%s\n' "$ERR" | grep -c "density solve of the run stopped")
fl run "$GOOD" --backend cpu --steps 150 --quiet --solver dfsph
r3=$RC n3=$(printf '%s\n' "$ERR" | grep -c "density solve of the run stopped")
if [ "$r1$r2$r3" = 000 ] && [ "$n1$n2$n3" = 100 ]; then
    ok "43 dfsph's cut density solves in a box full of fluid are warned of once; under air and in a dam break none"
else
    bad "43 dfsph cut solves" "exit $r1 $r2 $r3, warnings $n1 $n2 $n3: $(printf '%s' "$ERR" | tail -2 | tr '\n' ' ')"
fi

# 44. A short option where a value belongs is refused as a long one is:
# `--stats -q` wrote a file named -q, `--out -q` a folder, exit 0 (a
# review); ./-q still names one.
mkdir -p "$T/q44" && cd "$T/q44" || exit 1
fl run "$GOOD" --backend cpu --steps 2 --stats -q
r1=$RC e1=$ERR
fl run "$GOOD" --backend cpu --steps 2 --out -q
r2=$RC
fl run "$GOOD" --backend cpu --steps 2 --checkpoint -h
r3=$RC
fl surface "$T/q44/none.vtk" --out -q
r4=$RC
left=$(ls -A "$T/q44")
fl run "$GOOD" --backend cpu --steps 2 --stats ./-q --quiet
r5=$RC
cd - >/dev/null || exit 1
if [ "$r1$r2$r3$r4$r5" = 22220 ] && [ -z "$left" ] && [ -s "$T/q44/-q" ] &&
   printf '%s' "$e1" | grep -q -- "--stats needs a value (FILE.csv), not the option -q"; then
    ok "44 a short option given where a value belongs is refused naming it; ./-q is a file"
else
    bad "44 short option as a value" "exit $r1 $r2 $r3 $r4 $r5, left '$left': $(printf '%s' "$e1" | tr '\n' ' ')"
fi

# 45. Two command-line values for one parameter are refused, as an option
# given twice is: an option and the --param of its key (the option won
# without a word: `--solver dfsph --param sim.solver=pbf` ran dfsph,
# `--time 0.001 --param sim.steps=2` 5 steps) and a --param key twice (the
# last won); one value written two ways is not (a review).
fl run "$GOOD" --backend cpu --steps 2 --quiet --solver dfsph --param sim.solver=pbf
r1=$RC e1=$ERR
fl run "$GOOD" --backend cpu --time 0.001 --quiet --param sim.steps=2
r2=$RC e2=$ERR
fl run "$GOOD" --backend cpu --steps 2 --quiet --param sim.dt=0.0001 --param sim.dt=0.00005
r3=$RC e3=$ERR
fl run "$GOOD" --backend cpu --steps 2 --quiet --out "$T/o45" --param output.dir="$T/o45b"
r4=$RC
fl run "$GOOD" --backend cpu --steps 2 --quiet --param sim.dt=0.0001 --param sim.dt=1e-4 --solver wcsph --param sim.solver=wcsph \
    --param sim.gravity=0,-9.81,0 --param sim.gravity=0,-9.810,0 --out "$T/o45c" --param output.dir="$T/o45c/"
r5=$RC
if [ "$r1$r2$r3$r4$r5" = 22220 ] && [ ! -e "$T/o45" ] && [ ! -e "$T/o45b" ] &&
   printf '%s' "$e1" | grep -q -- "--solver dfsph and --param sim.solver=pbf: two values for one parameter; give one" &&
   printf '%s' "$e2" | grep -q -- "--time 0.001 and --param sim.steps=2: two run lengths; give one" &&
   printf '%s' "$e3" | grep -q -- "--param sim.dt given twice ('0.0001', then '0.00005'): expected one"; then
    ok "45 an option and the --param of its key, or a --param key twice, with two values are refused; one value twice is not"
else
    bad "45 two values for one parameter" "exit $r1 $r2 $r3 $r4 $r5: $(printf '%s / %s / %s' "$e1" "$e2" "$e3" | tr '\n' ' ')"
fi

# 46. A polygon met from behind by an emitter's jet is noted: the seed
# scenes start empty, and one with its plate's vertices reversed blew up
# telling only of dt_max and viscosity (nozzle_box at step 78; a review).
# Not one met at its front, nor two polygons back to back, whose lower one
# the jet (and fluid resting on the upper) meets behind the upper's front
# (both were noted; the diff review).
cat >"$T/jet46.json" <<'JSON'
{"sim": {"solver": "wcsph"}, "domain": {"min": [0,0,0], "max": [0.2,0.3,0.2]}, "particles": {"spacing": 0.01},
 "fluid": [],
 "obstacles": [{"type": "polygon", "vertices": [[0.05,0.1,0.05],[0.15,0.1,0.05],[0.15,0.1,0.15],[0.05,0.1,0.15]]}],
 "emitters": [{"shape": "rect", "center": [0.1,0.25,0.1], "direction": [0,-1,0], "size": [0.04,0.04], "speed": 1.0}]}
JSON
sed 's/\[\[0.05,0.1,0.05\],\[0.15,0.1,0.05\],\[0.15,0.1,0.15\],\[0.05,0.1,0.15\]\]/[[0.05,0.1,0.15],[0.15,0.1,0.15],[0.15,0.1,0.05],[0.05,0.1,0.05]]/' \
    "$T/jet46.json" >"$T/jet46_front.json"
cat >"$T/b2b46.json" <<'JSON'
{"sim": {"solver": "wcsph"}, "domain": {"min": [0,0,0], "max": [0.2,0.3,0.2]}, "particles": {"spacing": 0.01},
 "fluid": [{"type": "box", "min": [0.06,0.11,0.06], "max": [0.14,0.15,0.14]}],
 "obstacles": [{"type": "polygon", "vertices": [[0.05,0.1,0.15],[0.15,0.1,0.15],[0.15,0.1,0.05],[0.05,0.1,0.05]]},
               {"type": "polygon", "vertices": [[0.05,0.09,0.05],[0.15,0.09,0.05],[0.15,0.09,0.15],[0.05,0.09,0.15]]}],
 "emitters": [{"shape": "rect", "center": [0.1,0.25,0.1], "direction": [0,-1,0], "size": [0.04,0.04], "speed": 1.0}]}
JSON
fl run "$T/jet46.json" --backend cpu --steps 2 --quiet
r1=$RC n1=$(printf '%s\n' "$ERR" | grep -c "emitters\[0\] is aimed at obstacles\[0\] (a polygon) from behind, against its normal (16 of its 16 points along its direction")
fl run "$T/jet46_front.json" --backend cpu --steps 2 --quiet
r2=$RC n2=$(printf '%s\n' "$ERR" | grep -c "behind")
fl run "$T/b2b46.json" --backend cpu --steps 2 --quiet
r3=$RC n3=$(printf '%s\n' "$ERR" | grep -c "behind")
if [ "$r1$r2$r3" = 000 ] && [ "$n1$n2$n3" = 100 ]; then
    ok "46 an emitter aimed at a polygon's back is noted; one at its front, and polygons back to back, are not"
else
    bad "46 polygons met from behind" "exit $r1 $r2 $r3, notes $n1 $n2 $n3: $(errline)"
fi

# 47. A boundary cache that could not be written is not said to be used
# (the run said "cached in FILE" right after its warning; a review).
fl run "$GOOD" --backend cpu --steps 1 --param boundary.cache_dir="$T/bc47"
r1=$RC
f47=$(ls "$T/bc47"/boundary-*.bin 2>/dev/null | head -1)
rm -f "$f47" && mkdir -p "$f47"
fl run "$GOOD" --backend cpu --steps 1 --param boundary.cache_dir="$T/bc47"
r2=$RC
if [ "$r1$r2" = 00 ] && [ -n "$f47" ] && printf '%s' "$ERR" | grep -q "warning: boundary cache not written" &&
   printf '%s' "$ERR" | grep -q "^boundary: [0-9]* particles (.*) sampled; " && ! printf '%s' "$ERR" | grep -q "cached in"; then
    ok "47 a boundary cache not written is warned of, and the boundary line does not say cached"
else
    bad "47 unwritten boundary cache" "exit $r1 $r2, file '$f47': $(errline)"
fi

# 48. A fluid-control target that starts at or after the run's end is
# noted, as a late emitter is (it ran with 0 control particles and said
# nothing; a review); one that starts within the run is not.
cat >"$T/tg48.json" <<'JSON'
{ "sim": {"solver": "pbf"}, "domain": {"min": [0,0,0], "max": [0.3,0.3,0.3]}, "particles": {"spacing": 0.02},
  "fluid": [ {"type": "box", "min": [0.1,0,0.1], "max": [0.2,0.1,0.2]} ],
  "targets": [ {"shape": {"type": "box", "min": [0.1,0,0.1], "max": [0.2,0.1,0.2]}, "start": 0.05} ] }
JSON
fl run "$T/tg48.json" --backend cpu --steps 5 --quiet
r1=$RC n1=$(printf '%s\n' "$ERR" | grep -c "targets\[0\] starts at t = 0.05 s, at or after this run's end")
fl run "$T/tg48.json" --backend cpu --time 0.1 --quiet
r2=$RC n2=$(printf '%s\n' "$ERR" | grep -c "starts at t = ")
if [ "$r1$r2" = 00 ] && [ "$n1$n2" = 10 ]; then
    ok "48 a fluid-control target starting after the run's end is noted; one within it is not"
else
    bad "48 late target" "exit $r1 $r2, notes $n1 $n2: $(errline)"
fi

# 49. surface notes the meshes already in --out it replaces, as run notes
# an earlier run's frames (a mesh by another method was replaced without a
# word; a review); a fresh folder gets no note.
fl surface "$T/pair/frame_000001.vtu" --out "$T/again49" --backend cpu --quiet
r1=$RC n1=$(printf '%s\n' "$ERR" | grep -c "are there already")
fl surface "$T/pair/frame_000001.vtu" --out "$T/again49" --backend cpu --quiet --param surface.method=levelset
r2=$RC n2=$(printf '%s\n' "$ERR" | grep -c "note: 1 of the meshes this run writes are there already ($T/again49/frame_000001.surface.ply): they are replaced")
if [ "$r1$r2" = 00 ] && [ "$n1$n2" = 01 ]; then
    ok "49 surface notes the meshes in --out it replaces; a fresh folder none"
else
    bad "49 surface replacing meshes" "exit $r1 $r2, notes $n1 $n2: $(errline)"
fi

# 50. A resume whose folder holds frames past its checkpoint's step that
# it will not write again (a later run from an earlier state) notes them:
# they stay beside its own, two histories mixed without a word (a review);
# a resume that rewrites them (a run killed between checkpoints, resumed
# with the same command: the diff review found it noted) and one that
# continues its own run find none.
fl run "$GOOD" --backend cpu --steps 4 --every 2 --out "$T/r50" --checkpoint "$T/r50_4.state" --quiet
r1=$RC
fl run "$GOOD" --backend cpu --steps 8 --every 2 --out "$T/r50" --resume "$T/r50_4.state" --checkpoint "$T/r50_8.state" --quiet
r2=$RC n2=$(printf '%s\n' "$ERR" | grep -c "past step")
fl run "$GOOD" --backend cpu --steps 8 --every 2 --out "$T/r50" --resume "$T/r50_4.state" --checkpoint "$T/r50_8.state" --quiet
r3=$RC n3=$(printf '%s\n' "$ERR" | grep -c "past step")
fl run "$GOOD" --backend cpu --steps 6 --every 2 --out "$T/r50" --resume "$T/r50_4.state" --checkpoint "$T/r50_6.state" --quiet
r4=$RC n4=$(printf '%s\n' "$ERR" | grep -c "r50 holds 1 frame, mesh or grid file past step 4, the checkpoint's, that this run does not write again (from step 8")
if [ "$r1$r2$r3$r4" = 0000 ] && [ "$n2$n3$n4" = 001 ]; then
    ok "50 a resume notes the frames past its checkpoint it will not write again; one rewriting them, or continuing its run, none"
else
    bad "50 resume beside later frames" "exit $r1 $r2 $r3 $r4, notes $n2 $n3 $n4: $(errline)"
fi

# 51. Steps with no particle yet (an emitter not yet open, or its first
# layer not out) stay out of the summary's averages: pbf's iterations read
# 3.969 a step at pbf.iterations 4 (a review); the summary counts them.
cat >"$T/te51.json" <<'JSON'
{ "sim": {"solver": "pbf"}, "domain": {"min": [0,0,0], "max": [0.3,0.4,0.3]}, "particles": {"spacing": 0.01},
  "fluid": [],
  "emitters": [ {"shape": "disk", "center": [0.15,0.25,0.15], "direction": [0,-1,0], "radius": 0.02, "speed": 1.0,
                 "start": 0, "end": 0.5} ],
  "targets": [ {"shape": {"type": "sphere", "center": [0.15,0.12,0.15], "radius": 0.05}} ] }
JSON
fl run "$T/te51.json" --backend cpu --time 0.1 --quiet
if [ "$RC" = 0 ] && printf '%s\n' "$OUT" | grep -Eq "^iterations +4 \(mean over the steps\)" &&
   printf '%s\n' "$OUT" | grep -Eq "^empty steps +[1-9][0-9]* of the [0-9]+ \(no particle yet: the averages leave them out\)"; then
    ok "51 steps with no particle stay out of the summary's averages, and are counted"
else
    bad "51 empty steps in the averages" "exit $RC: $(printf '%s' "$OUT" | tr '\n' ' ' | cut -c1-400)"
fi

checks_done
