#!/usr/bin/env bash
# test_cli.sh - the fluidcl command line end to end.
#
# Bad input (broken JSON, unknown keys, wrong types, impossible sizes, bad
# --param, unwritable outputs) must be refused with exit 2, a message that
# names the file and the offending key, and nothing written. Good runs must
# write complete frames and statistics; a numerical blow-up must stop with
# exit 3 and leave the frames written before it intact.
#
# usage: bash tests/test_cli.sh path/to/fluidcl      (any working directory)
set -u

. "$(cd "$(dirname "$0")" && pwd)/cli_common.sh"

# 1. JSON syntax error: line 3 ("sim") loses its trailing comma, so the
#    parser stops at the "domain" key, the first thing on line 4.
F=$T/syntax.json
scene "$F"
sed -i '3s/,$//' "$F"
next; refused "1 JSON syntax error reported as file:4:col" "$O" "$S" "$F:4:" "syntax" -- "$F"

# 2. Unknown keys, top level and inside a group.
F=$T/unknown_top.json
scene "$F"
sed -i 's/"name"/"nmae"/' "$F"
next; refused "2a unknown top-level key 'nmae' named" "$O" "$S" "$F" "nmae" "unknown key" -- "$F"
F=$T/unknown_group.json
scene "$F" "" "" "" '{ "stifness": 1000 }'
next; refused "2b unknown key material.stifness named" "$O" "$S" "$F" "material.stifness" "unknown key" -- "$F"

# 3. Wrong type.
F=$T/wrong_type.json
scene "$F" "" "" "" '{ "stiffness": "hard" }'
next; refused "3 material.stiffness: \"hard\" refused as not a number" "$O" "$S" \
    "$F" "material.stiffness" "expected a number" -- "$F"

# 4. Non-positive spacing.
for sp in 0 -0.01; do
    F=$T/spacing_$sp.json
    scene "$F" "" "" "{ \"spacing\": $sp }"
    next; refused "4 particles.spacing = $sp refused" "$O" "$S" "$F" "particles.spacing" -- "$F"
done

# 5. Fluid outside the domain (a box, then a sphere as the second block).
F=$T/box_outside.json
scene "$F" "" "" "" "" '[ { "type": "box", "min": [0, 0, 0], "max": [0.1, 0.3, 0.1] } ]'
next; refused "5a fluid box outside the domain names fluid[0]" "$O" "$S" "$F" "fluid[0]" -- "$F"
F=$T/sphere_outside.json
scene "$F" "" "" "" "" '[ { "type": "box", "min": [0, 0, 0], "max": [0.1, 0.1, 0.1] },
            { "type": "sphere", "center": [0.1, 0.1, 0.1], "radius": 0.15 } ]'
next; refused "5b fluid sphere outside the domain names fluid[1]" "$O" "$S" "$F" "fluid[1]" -- "$F"

# 6. More particles than fit: 1e-5 spacing in a 1 m box (1e15 particles),
#    then 1 mm (1e9 particles: indexable, but more than memory holds).
for sp in 1e-5 0.001; do
    F=$T/huge_$sp.json
    scene "$F" "" '{ "min": [0, 0, 0], "max": [1, 1, 1] }' "{ \"spacing\": $sp }" "" \
        '[ { "type": "box", "min": [0, 0, 0], "max": [1, 1, 1] } ]'
    next; refused "6 spacing $sp in a 1 m box refused as too many particles" "$O" "$S" \
        "$F" "particles.spacing" -- "$F"
    if [ "$LAST_SECONDS" -le 5 ]; then
        ok "6 spacing $sp refused quickly (${LAST_SECONDS}s)"
    else
        bad "6 spacing $sp refused quickly" "took ${LAST_SECONDS}s"
    fi
done

# 7. Bad --param: unknown key, out-of-range values. (These come from the
#    command line, not the scene, so only the key is required.)
#    An unknown key names its group's keys, as the scene loader does, and
#    a refused value its --param (both were plain; a review).
next; refused "7a --param with unknown key material.stifness" "$O" "$S" "material.stifness" \
    "material has: rest_density, stiffness" -- "$GOOD" --param material.stifness=3
next; refused "7b --param material.stiffness=-3 out of range" "$O" "$S" "--param material.stiffness" -- \
    "$GOOD" --param material.stiffness=-3
next; refused "7c --param sim.dt=5 out of range" "$O" "$S" "sim.dt" -- "$GOOD" --param sim.dt=5
next; refused "7d --param particles.spacing=0 out of range" "$O" "$S" "particles.spacing" -- \
    "$GOOD" --param particles.spacing=0

# 8. Outputs that cannot be written are reported before simulating.
: >"$T/plainfile"
next; refused "8a --out under a regular file refused before simulating" "$T/plainfile/frames" "$S" \
    "$T/plainfile/frames" -- "$GOOD"
next; refused "8b --stats under a regular file refused, --out folder not created" "$O" \
    "$T/plainfile/stats.csv" "$T/plainfile/stats.csv" -- "$GOOD"
mkdir -p "$T/statsdir"
next; refused "8c --stats naming an existing folder refused before simulating" "$O" \
    "$T/statsdir" "$T/statsdir" -- "$GOOD"
rm -f "$T/statsdir.tmp"
# A path that is not a regular file: the finished temporary renamed over
# it would replace it (as root, /dev/null itself).
next; refused "8g --stats /dev/null (a device) refused before simulating" "$O" /dev/null \
    "not a regular file (a device)" -- "$GOOD"
[ -c /dev/null ] && ok "8g /dev/null is still a character device" || bad "8g /dev/null" "it was replaced"
: >"$T/target.csv" && ln -sf "$T/target.csv" "$T/link.csv"
next; refused "8h --stats naming a link refused before simulating (the link would be replaced)" "$O" "$T/link.csv" \
    "not a regular file (a link)" -- "$GOOD"
# Two outputs named alike would overwrite each other after the whole run.
next; refused "8d --stats naming the --out folder refused before simulating" "$O" "$O/" \
    "--stats names the output folder" -- "$GOOD"
next; refused "8e --stats and --checkpoint naming one file refused before simulating" "$O" "$S" \
    "--stats and --checkpoint name one file" -- "$GOOD" --checkpoint "$S"
next; refused "8f --checkpoint naming the --out folder refused before simulating" "$O" "$S" \
    "--checkpoint names the output folder" -- "$GOOD" --checkpoint "$O"

# ---- runs -------------------------------------------------------------------

# Every solver's columns; a solver's own statistics follow (section 9b).
HEADER='step,time,dt,max_speed,avg_density_error_pct,max_density_error_pct'

# good_run DESC OUTDIR STATS BACKEND: 6 steps, a frame every 2.
good_run() {
    local desc=$1 out=$2 stats=$3 backend=$4 problems=""
    fl run "$GOOD" --backend "$backend" --steps 6 --every 2 --out "$out" --stats "$stats" --quiet
    [ "$RC" -eq 0 ] || problems+="exit $RC, expected 0; "
    printf '%s\n' "$OUT" | grep -Eq "^particles +$GOOD_N\$" ||
        problems+="summary lacks 'particles $GOOD_N'; "
    local s
    for s in 000000 000002 000004 000006; do
        [ -s "$out/frame_$s.vtu" ] || problems+="frame_$s.vtu missing; "
    done
    local extra
    extra=$(find "$out" -name 'frame_*' ! -name 'frame_00000[0246].vtu' 2>/dev/null | head -3 | tr '\n' ' ')
    [ -z "$extra" ] || problems+="unexpected frames: $extra; "
    if [ -f "$stats" ]; then
        [ "$(head -n 1 "$stats")" = "$HEADER" ] || problems+="stats header is '$(head -n 1 "$stats")'; "
        local rows
        rows=$(($(wc -l <"$stats") - 1))
        [ "$rows" -eq 6 ] || problems+="stats has $rows rows, expected 6; "
        awk -F, 'NR > 1 && (NF != 6 || $1 != NR - 1) { bad = 1 } END { exit bad }' "$stats" ||
            problems+="stats rows are not steps 1..6 with 6 columns; "
    else
        problems+="stats file missing; "
    fi
    local tmps
    tmps=$(find "$T" -name '*.tmp' 2>/dev/null | head -3 | tr '\n' ' ')
    [ -z "$tmps" ] || problems+=".tmp files left: $tmps; "
    if [ -z "$problems" ]; then
        ok "$desc"
    else
        bad "$desc" "${problems}stderr: $(errline)"
    fi
}

# 9. A good run on the native backend.
good_run "9 good run (cpu): summary, frames 0/2/4/6, stats header and 6 rows, no .tmp" \
    "$T/good_frames" "$T/good_stats.csv" cpu

# 9b. The solver's declared statistics follow the common columns, in the
#     CSV and in the summary.
fl run "$GOOD" --backend cpu --solver dfsph --steps 3 --stats "$T/dfsph_stats.csv"
want="$HEADER,density_iterations,divergence_iterations,avg_divergence_error_pct_per_s"
if [ "$RC" -eq 0 ] && [ "$(head -n 1 "$T/dfsph_stats.csv")" = "$want" ] &&
   awk -F, 'NR > 1 && NF != 9 { bad = 1 } END { exit bad }' "$T/dfsph_stats.csv" &&
   printf '%s\n' "$OUT" | grep -Eq '^density iters +[0-9.]+ \(mean over the steps\)$'; then
    ok "9b dfsph stats: its three columns after the common six, and a summary line each"
else
    bad "9b dfsph stats" "exit $RC, header '$(head -n 1 "$T/dfsph_stats.csv" 2>/dev/null)', summary: $(printf '%s' "$OUT" | grep -i iter)"
fi

# 10. Numerical blow-up: stiffness 1e4 with dt 2 ms explodes a 600-particle
#     block within a few steps (step 3 on the native backend).
F=$T/blowup.json
scene "$F" '{ "dt": 0.002 }' "" "" '{ "stiffness": 10000 }'
B=$T/blowup_frames
fl run "$F" --backend cpu --steps 200 --every 1 --out "$B" --stats "$T/blowup.csv" --quiet --param output.format=vtk
problems=""
[ "$RC" -eq 3 ] || problems+="exit $RC, expected 3; "
case $ERR in *blow-up*) ;; *) problems+="stderr lacks 'blow-up'; " ;; esac
bstep=$(printf '%s' "$ERR" | grep -o 'step [0-9][0-9]*' | head -n 1 | cut -d' ' -f2)
if [ -z "$bstep" ]; then
    problems+="stderr names no 'step N'; "
elif [ "$bstep" -le 0 ]; then
    problems+="reported step $bstep is not > 0; "
else
    # --every 1: frames 0 .. step-1 were written before the blow-up.
    for ((k = 0; k < bstep; k++)); do
        f=$(printf '%s/frame_%06d.vtk' "$B" "$k")
        [ -s "$f" ] || problems+="$(basename "$f") missing; "
    done
    newest=$(find "$B" -name 'frame_*.vtk' 2>/dev/null | sort | tail -n 1)
    if [ -n "$newest" ]; then
        [ -e "$newest.tmp" ] && problems+="newest frame has a .tmp sibling; "
        head -c 32 "$newest" | grep -q '^# vtk DataFile' || problems+="newest frame lacks a VTK header; "
        grep -aq "^POINTS $GOOD_N float" "$newest" || problems+="newest frame lacks 'POINTS $GOOD_N'; "
        s0=$(wc -c <"$B/frame_000000.vtk") sn=$(wc -c <"$newest")
        [ $((sn - s0)) -le 64 ] && [ $((s0 - sn)) -le 64 ] ||
            problems+="newest frame is $sn bytes, the first $s0 (truncated?); "
    fi
    [ -e "$(printf '%s/frame_%06d.vtk' "$B" "$bstep")" ] && problems+="a frame of the blown-up step was written; "
    # Its statistics row is kept: what a post-mortem reads (it ended a step early).
    last=$(tail -n 1 "$T/blowup.csv" 2>/dev/null | cut -d, -f1)
    [ "$last" = "$bstep" ] || problems+="the CSV ends at step '$last', not the blown-up step $bstep; "
fi
tmps=$(find "$B" -name '*.tmp' 2>/dev/null | head -3 | tr '\n' ' ')
[ -z "$tmps" ] || problems+=".tmp files left: $tmps; "
if [ -z "$problems" ]; then
    ok "10 blow-up: exit 3 at step $bstep, frames before it intact, its CSV row kept"
else
    bad "10 blow-up: exit 3, message names the step, frames before it intact" "${problems}stderr: $(errline)"
fi

# 11. Embedded scene, help, unknown subcommand.
fl run embedded:dam_break.json --steps 2 --backend cpu --quiet
if [ "$RC" -eq 0 ]; then ok "11a embedded:dam_break.json runs 2 steps"; else
    bad "11a embedded:dam_break.json runs 2 steps" "exit $RC; stderr: $(errline)"; fi
fl help params
if [ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -q 'material\.viscosity'; then
    ok "11b help params lists material.viscosity"
else
    bad "11b help params lists material.viscosity" "exit $RC; stderr: $(errline)"
fi
fl help solvers
if [ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -qw 'wcsph'; then
    ok "11c help solvers lists wcsph"
else
    bad "11c help solvers lists wcsph" "exit $RC; stdout: $(printf '%s' "$OUT" | head -c 200)"
fi
fl frobnicate
if [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q 'frobnicate'; then
    ok "11d unknown subcommand exits 2 and names it"
else
    bad "11d unknown subcommand exits 2 and names it" "exit $RC; stderr: $(errline)"
fi
fl help frobnicate
if [ "$RC" -eq 2 ]; then ok "11e unknown help topic exits 2"; else
    bad "11e unknown help topic exits 2" "exit $RC; stderr: $(errline)"; fi

# 12. OpenCL, when there is a device.
fl devices
if [ "$RC" -eq 0 ]; then
    good_run "12 good run (opencl): summary, frames, stats, no .tmp" "$T/cl_frames" "$T/cl_stats.csv" opencl
else
    echo "SKIP opencl run: no device"
fi

# 13 --kernel-dir: kernels load from disk; a syntax error there is reported
# with the compiler log naming DIR/FILE:LINE, exit 3, and no output.
if [ "$RC" -eq 0 ]; then
    mkdir -p "$T/kdir" && cp "$SRC"/*.cl "$SRC"/*.h "$SRC"/*.def "$T/kdir/"
    fl run "$GOOD" --backend opencl --steps 2 --quiet --kernel-dir "$T/kdir"
    [ "$RC" -eq 0 ] && ok "13a --kernel-dir with intact sources runs" || bad "13a --kernel-dir run" "exit $RC: $(errline)"
    # The first such line only (the cell-walk and the list density passes
    # both have one); the compiler stops at the first error anyway.
    line=$(grep -nF '    rho[i] = d;' "$T/kdir/wcsph.cl" | head -n 1 | cut -d: -f1)
    sed -i "${line}s/    rho\[i\] = d;/    rho[i] = d/" "$T/kdir/wcsph.cl"
    fl run "$GOOD" --backend opencl --steps 2 --quiet --kernel-dir "$T/kdir" --out "$T/kframes"
    # The missing ';' is reported at the end of that line or the next.
    if [ "$RC" -eq 3 ] && grep -qE "$T/kdir/wcsph.cl:($line|$((line + 1))):" "$T/stderr.txt" && [ ! -e "$T/kframes" ]; then
        ok "13b a kernel syntax error names $T/kdir/wcsph.cl:$line, exit 3, nothing written"
    else
        bad "13b kernel syntax error report" "exit $RC, want 3 and $T/kdir/wcsph.cl:$line: $(errline)"
    fi
    fl run "$GOOD" --backend opencl --steps 2 --quiet --kernel-dir "$T/nonexistent"
    [ "$RC" -eq 2 ] && grep -q "nonexistent: no such folder" "$T/stderr.txt" && ok "13c a missing --kernel-dir is named, exit 2" ||
        bad "13c missing --kernel-dir" "exit $RC: $(errline)"
    # 14 --device by index and by name substring; an unknown one exits 2.
    fl run "$GOOD" --backend opencl --device 0 --steps 1 --quiet
    [ "$RC" -eq 0 ] && ok "14a --device 0" || bad "14a --device 0" "exit $RC: $(errline)"
    name=$("$BIN" devices | sed -n 's/^\[0\] \(....\).*/\1/p')
    fl run "$GOOD" --backend opencl --device "$name" --steps 1 --quiet
    [ "$RC" -eq 0 ] && ok "14b --device '$name' (name substring)" || bad "14b --device by name" "exit $RC: $(errline)"
    fl run "$GOOD" --backend opencl --device no-such-device --steps 1 --quiet
    [ "$RC" -eq 2 ] && grep -q "no-such-device" "$T/stderr.txt" && ok "14c unknown --device exits 2 naming it" ||
        bad "14c unknown --device" "exit $RC: $(errline)"
fi

# 15. Obstacle meshes: a missing, empty, malformed or open OBJ file is
#     refused with exit 2 and a message naming the file (and the line);
#     a closed cube runs.
mesh_scene() {
    scene "$1"
    sed -i '$d' "$1"
    sed -i '$s/$/,/' "$1"
    printf '  "obstacles": [ { "type": "mesh", "file": "%s", "scale": 0.04, "translate": [0.08, 0.14, 0.08] } ]\n}\n' \
        "$2" >>"$1"
}
F=$T/mesh_missing.json
mesh_scene "$F" nope.obj
next; refused "15a a missing OBJ file is named" "$O" "$S" "nope.obj" -- "$F"
: >"$T/empty.obj"
F=$T/mesh_empty.json
mesh_scene "$F" empty.obj
next; refused "15b an empty OBJ file is named" "$O" "$S" "empty.obj" "no faces" -- "$F"
printf 'v 0 0 0\nv 0 0\n' >"$T/bad.obj"
F=$T/mesh_bad.json
mesh_scene "$F" bad.obj
next; refused "15c a malformed OBJ line is named as bad.obj:2" "$O" "$S" "mesh_bad.json: obstacles[0].file:" "bad.obj:2:" -- "$F"
printf '%s\n' "$CUBE" | sed '$d' | sed '$d' >"$T/open.obj"
F=$T/mesh_open.json
mesh_scene "$F" open.obj
next; refused "15d an OBJ mesh that is not closed is named" "$O" "$S" "mesh_open.json: obstacles[0].file:" "open.obj:" "not closed" -- "$F"
printf '%s\n' "$CUBE" >"$T/cube.obj"
F=$T/mesh_cube.json
mesh_scene "$F" cube.obj
fl run "$F" --backend cpu --steps 2 --quiet --param boundary.cache_dir="$T/cache"
if [ "$RC" -eq 0 ] && ls "$T/cache"/boundary-*.bin >/dev/null 2>&1 && ! printf '%s' "$ERR" | grep -q "spans"; then
    ok "15e a closed OBJ cube runs and its sampling is cached"
else
    bad "15e closed OBJ cube" "exit $RC: $(errline)"
fi
# A mesh smaller than a spacing is noted (it ran with next to no effect and
# no word; a review).
sed 's/"scale": 0.04/"scale": 1e-5/' "$F" >"$T/mesh_tiny.json"
fl run "$T/mesh_tiny.json" --backend cpu --steps 2 --quiet --param boundary.cache_dir=off
[ "$RC" -eq 0 ] && printf '%s' "$ERR" | grep -q "obstacles\[0\]: the mesh .*cube.obj at scale 1e-05 spans 1e-05 m, under particles.spacing" &&
    ok "15e an OBJ mesh smaller than a spacing is noted" || bad "15e tiny OBJ mesh" "exit $RC: $(errline)"

# 15f. output.grid: a solver without a grid refuses it.
next; refused "15f output.grid on wcsph (no grid) is refused" "$O" "$S" "output.grid" "keeps no grid" -- "$GOOD" \
    --param output.grid=1 --every 1

# 16. Surface meshes: run --mesh writes one per frame; `surface` rebuilds
# the same mesh offline from the saved frames, and refuses bad input with
# exit 2, naming the file, before writing anything.
M=$T/mesh_run
fl run "$GOOD" --backend cpu --steps 4 --every 2 --out "$M" --mesh --quiet
nm=$(ls "$M"/frame_*.surface.ply 2>/dev/null | wc -l)
if [ "$RC" -eq 0 ] && [ "$nm" -eq 3 ] && printf '%s' "$OUT" | grep -q "surface meshes"; then
    ok "16a run --mesh writes a surface per frame"
else
    bad "16a run --mesh" "exit $RC, $nm meshes: $(errline)"
fi
fl surface "$M"/frame_000002.vtu --out "$T/mesh_off" --backend cpu --param surface.format=both
if [ "$RC" -eq 0 ] && cmp -s "$M/frame_000002.surface.ply" "$T/mesh_off/frame_000002.surface.ply" &&
   head -1 "$T/mesh_off/frame_000002.surface.obj" | grep -q "fluidcl surface mesh"; then
    ok "16b surface rebuilds the run's mesh from its .vtu frame (PLY identical, OBJ written)"
else
    bad "16b offline surface" "exit $RC: $(errline)"
fi
fl surface "$M"/frame_000002.vtu "$T/nope.vtk" --out "$T/mesh_bad" --backend cpu
if [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "nope.vtk" && [ ! -e "$T/mesh_bad" ]; then
    ok "16c surface refuses a missing frame by name and writes nothing"
else
    bad "16c surface bad frame" "exit $RC: $(errline)"
fi
# A link at the second frame's mesh name: refused before the first mesh
# is written, naming the link (it named the input frame, exit 3, after).
mkdir -p "$T/mesh_link" && ln -s "$T/elsewhere.ply" "$T/mesh_link/frame_000002.surface.ply"
fl surface "$M"/frame_000000.vtu "$M"/frame_000002.vtu --out "$T/mesh_link" --backend cpu
if [ "$RC" -eq 2 ] && [ "$(ls "$T/mesh_link")" = frame_000002.surface.ply ] &&
   printf '%s' "$ERR" | grep -q "mesh_link/frame_000002.surface.ply: not a regular file (a link)"; then
    ok "16d surface refuses a link at a mesh's name by name, before any mesh"
else
    bad "16d surface mesh link" "exit $RC, $(ls "$T/mesh_link" | tr '\n' ' '): $(errline)"
fi
fl run "$GOOD" --backend cpu --steps 2 --mesh --quiet
if [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q -- "--mesh"; then
    ok "16d run --mesh without --out is refused"
else
    bad "16d run --mesh without --out" "exit $RC: $(errline)"
fi

# 17. Frames record the spacing and the surface flag; `surface` takes the
# spacing from the frame unless --param particles.spacing gives one, and
# refuses a frame of the previous layout (no spacing) without it.
F=$T/spacing.json
scene "$F" "" "" '{ "spacing": 0.025 }'
X=$T/sp_run
fl run "$F" --backend cpu --steps 2 --every 2 --out "$X" --param output.format=all --quiet
if [ "$RC" -eq 0 ] && head -2 "$X/frame_000002.vtk" | grep -q "^fluidcl frame time=.* spacing=0.025" &&
   grep -aq "SCALARS surface float 1" "$X/frame_000002.vtk" &&
   head -4 "$X/frame_000002.ply" | grep -q "^comment fluidcl spacing 0.025" &&
   head -16 "$X/frame_000002.ply" | grep -aq "^property float surface"; then
    ok "17a frames record the spacing and the surface flag (VTK and PLY)"
else
    bad "17a frame spacing and surface" "exit $RC: $(errline)"
fi
tris() { printf '%s' "$OUT" | sed -n 's/.*-> \([0-9]*\) triangles.*/\1/p' | head -1; }
for ext in vtu vtk ply; do
    fl surface "$X/frame_000002.$ext" --out "$X/auto_$ext" --backend cpu
    auto_rc=$RC auto_t=$(tris)
    fl surface "$X/frame_000002.$ext" --out "$X/expl_$ext" --backend cpu --param particles.spacing=0.025
    if [ "$auto_rc" -eq 0 ] && [ "$RC" -eq 0 ] && [ -n "$auto_t" ] && [ "$auto_t" = "$(tris)" ] &&
       cmp -s "$X/auto_$ext/frame_000002.surface.ply" "$X/expl_$ext/frame_000002.surface.ply"; then
        ok "17b surface without --param uses the $ext frame's spacing ($auto_t triangles, as with it given)"
    else
        bad "17b surface spacing from the $ext frame" "exit $auto_rc/$RC, $auto_t vs $(tris) triangles: $(errline)"
    fi
done
fl surface "$X/frame_000002.vtk" --out "$X/other" --backend cpu --param particles.spacing=0.02 --quiet
if [ "$RC" -eq 0 ] && [ "$(printf '%s' "$ERR" | grep -c "note: using --param particles.spacing=0.02")" -eq 1 ] &&
   [ "$(tris)" != "$auto_t" ]; then
    ok "17c a different --param particles.spacing wins, with a one-line note (under --quiet too)"
else
    bad "17c spacing override" "exit $RC, $(tris) triangles: $(errline)"
fi
# ply_frame FILE [SPACING]: a PLY frame of one particle at the origin;
# with SPACING the current layout (its spacing comment and surface flag),
# without it the previous one (neither).
ply_frame() {
    {
        printf 'ply\nformat binary_little_endian 1.0\ncomment fluidcl particle frame\n'
        [ $# -gt 1 ] && printf 'comment fluidcl spacing %s\n' "$2"
        printf 'element vertex 1\n'
        for p in x y z vx vy vz density pressure; do printf 'property float %s\n' "$p"; done
        printf 'property uint id\n'
        [ $# -gt 1 ] && printf 'property float surface\n'
        printf 'end_header\n'
        head -c $(($# > 1 ? 40 : 36)) /dev/zero
    } >"$1"
}
# A PLY frame of the previous layout (no spacing comment, no surface flag).
ply_frame "$T/old_frame.ply"
fl surface "$T/old_frame.ply" --out "$T/old_mesh" --backend cpu
if [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "old_frame.ply" &&
   printf '%s' "$ERR" | grep -q -- "--param particles.spacing=" && [ ! -e "$T/old_mesh" ]; then
    ok "17d a frame without a spacing needs --param particles.spacing (exit 2, file named, nothing written)"
else
    bad "17d frame without spacing" "exit $RC: $(errline)"
fi
fl surface "$T/old_frame.ply" --out "$T/old_mesh" --backend cpu --param particles.spacing=0.02
if [ "$RC" -eq 0 ] && [ -s "$T/old_mesh/old_frame.surface.ply" ]; then
    ok "17e a previous-layout frame reads with --param particles.spacing"
else
    bad "17e previous-layout frame" "exit $RC: $(errline)"
fi
# A recorded spacing of -1: the field named ("\"-1\" has no valid spacing
# (expected a number >= 0)" said neither).
ply_frame "$T/sp_frame.ply" -1
fl surface "$T/sp_frame.ply" --out "$T/sp_mesh" --backend cpu
[ "$RC" -eq 2 ] && [ ! -e "$T/sp_mesh" ] &&
    printf '%s' "$ERR" | grep -q "the recorded particle spacing '-1' (in \"comment fluidcl spacing -1\"): expected a number of metres" &&
    ok "17f a frame recording spacing -1: the field named, exit 2" || bad "17f spacing -1" "exit $RC: $(errline)"

# 18. bench --mesh times the surface of each backend's final state.
fl bench "$GOOD" --backend cpu --steps 2 --mesh --json "$T/bench.json"
if [ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -Eq "^surface ms \(med3\) +[0-9.]+" &&
   printf '%s' "$OUT" | grep -Eq "^surface triangles +[1-9][0-9]*" && grep -q '"surface_triangles"' "$T/bench.json"; then
    ok "18 bench --mesh prints the surface rows (and writes them to the JSON)"
else
    bad "18 bench --mesh" "exit $RC: $(printf '%s' "$OUT" | grep surface) $(errline)"
fi

# 19. bench --from starts from a saved frame (17's, spacing 0.025) within
# the scene's walls; a frame of another spacing, a missing frame and
# run --from exit 2 naming the problem.
fl bench "$F" --backend cpu --steps 2 --from "$X/frame_000002.vtk"
nx=$(grep -a "^POINTS" "$X/frame_000002.vtk" | awk '{ print $2 }')
if [ "$RC" -eq 0 ] && printf '%s' "$ERR" | grep -q "from $X/frame_000002.vtk" &&
   printf '%s' "$ERR" | grep -q ", $nx particles, 2 steps"; then
    ok "19 bench --from FRAME runs the frame's $nx particles"
else
    bad "19 bench --from" "exit $RC: $(errline)"
fi
fl bench "$F" --backend cpu --steps 2 --from "$X/frame_000002.vtk" --param particles.spacing=0.03
[ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "frame_000002.vtk: the frame was run at particles.spacing=0.025" &&
    ok "19 bench --from a frame of another spacing: exit 2, both spacings named" ||
    bad "19 bench --from, other spacing" "exit $RC: $(errline)"
fl bench "$F" --backend cpu --steps 2 --from "$T/nope.vtk"
[ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "nope.vtk: cannot open" && ok "19 bench --from a missing frame: exit 2" ||
    bad "19 bench --from, missing" "exit $RC: $(errline)"
fl run "$GOOD" --from "$X/frame_000002.vtk"
[ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "bench option" && ok "19 run --from: exit 2, says it is a bench option" ||
    bad "19 run --from" "exit $RC: $(errline)"

# 20. A neighbors.capacity below what the first step's lists need: exit 2
# naming the key, the particle and its count, nothing written.
fl run "$GOOD" --backend cpu --steps 2 --param neighbors.capacity=8 --out "$T/cap"
if [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "neighbors.capacity: particle [0-9]* has [0-9]* fluid neighbors" &&
   [ ! -e "$T/cap" ]; then
    ok "20 neighbors.capacity too small: exit 2 naming the key and the particle, nothing written"
else
    bad "20 neighbors.capacity too small" "exit $RC: $(errline)"
fi
# particles.capacity too large for the lists names itself, not the spacing
# (a review); one below the scene's count is raised with a note.
fl run "$GOOD" --backend cpu --steps 2 --param particles.capacity=100000000 --out "$T/bigcap"
[ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "particles.capacity: 100000000 particles exceed the 67108864 a neighbor list can index" &&
    [ ! -e "$T/bigcap" ] &&
    ok "20 particles.capacity past the lists' addressing: exit 2 naming it" || bad "20 big capacity" "exit $RC: $(errline)"
# The boundary list's entries count too, named by their own key (the
# check took the fluid list's alone, and the refusal came after the
# allocations, naming neighbors.capacity; a review).
fl run "$GOOD" --backend cpu --steps 2 --param particles.capacity=50000000 --param neighbors.boundary_capacity=100 \
    --out "$T/bigbcap"
[ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "particles.capacity: 50000000 particles x 100 entries (neighbors.boundary_capacity) exceed the 2^32" &&
    [ ! -e "$T/bigbcap" ] &&
    ok "20 a boundary list past 2^32 entries: exit 2 naming neighbors.boundary_capacity" ||
    bad "20 big boundary capacity" "exit $RC: $(errline)"
fl run "$GOOD" --backend cpu --steps 2 --param particles.capacity=5
[ "$RC" -eq 0 ] && printf '%s' "$ERR" | grep -q "particles.capacity 5 is below the scene's $GOOD_N particles" &&
    ok "20 particles.capacity below the scene's count: raised with a note" || bad "20 small capacity" "exit $RC: $(errline)"
# The native backend's memory is what the process may use (ulimit -v, a
# cgroup): a 1 m domain at 0.5 mm for a 1 cm cube (10^9 grid cells, 4 GB)
# under a 2 GB limit is refused up front naming the domain (it allocated
# for 15 s and failed on the grid; a review). Not under the sanitizers,
# whose shadow memory a limit on the address space does not leave room for.
if [ -z "${ASAN_OPTIONS:-}" ]; then
    cat >"$T/wbig.json" <<'EOF'
{ "sim": { "dt": 0.0001 }, "domain": { "min": [0, 0, 0], "max": [1, 1, 1] }, "particles": { "spacing": 0.0005 },
  "boundary": { "walls": "mirror" }, "fluid": [ { "type": "box", "min": [0.5, 0, 0.5], "max": [0.51, 0.01, 0.51] } ] }
EOF
    RC=0
    ERR=$( (ulimit -v 2000000 && "${TIMEOUT[@]}" "$BIN" run "$T/wbig.json" --backend cpu --steps 2 --out "$T/wbig_out") 2>&1 >/dev/null) || RC=$?
    [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "domain: 8000 particles need .*neighbor grid's 1000000000 cells" &&
        [ ! -e "$T/wbig_out" ] && ok "20 a grid past ulimit -v: refused up front naming the domain" ||
        bad "20 grid past ulimit -v" "exit $RC: $(printf '%s' "$ERR" | tr '\n' ' ' | cut -c1-300)"
fi

# 21. Options are declared once with the commands that read them: another
# command's option, a fraction or hex where a whole number goes, and an
# option taken for a missing value exit 2 naming the option, nothing run.
opt_case() { # WANT-IN-STDERR ARGS...
    local want=$1; shift
    fl "$@"
    if [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -qF -- "$want" && [ ! -e "$T/opt_out" ]; then
        ok "21 '$*' exits 2: $want"
    else
        bad "21 '$*'" "exit $RC, want 2 and '$want': $(errline)"
    fi
}
opt_case "--json is a bench option, not a run one" run "$GOOD" --backend cpu --json "$T/j.json"
opt_case "--out is a run option, not a bench one" bench "$GOOD" --backend cpu --out "$T/opt_out"
opt_case "--time is a run option, not a bench one" bench "$GOOD" --backend cpu --time 0.01
opt_case "--steps is a run and bench option, not a view one" view "$GOOD" --steps 3
opt_case "--steps: expected a whole number" run "$GOOD" --backend cpu --steps 1.5 --out "$T/opt_out"
opt_case "--steps: expected a whole number" run "$GOOD" --backend cpu --steps 0x10
opt_case "--every: expected a whole number" run "$GOOD" --backend cpu --steps 2 --every 1.5 --out "$T/opt_out"
opt_case "--solver needs a value" run "$GOOD" --backend cpu --solver --steps 2
opt_case "--device 7 selects an OpenCL device; --backend cpu has none" run "$GOOD" --backend cpu --device 7
opt_case "--kernel-dir $T/none: no such folder" run "$GOOD" --kernel-dir "$T/none"
opt_case "unexpected argument 'foo'" devices foo
opt_case "more than the 1.07e9 (2^30)" run "$GOOD" --backend cpu --solver mac --param domain.max=11,11,11 \
    --param particles.spacing=0.005 --out "$T/opt_out"
opt_case "mac.dt_min" run "$GOOD" --backend cpu --solver mac --steps 2 --param mac.dt_min=0.01 --param mac.dt_max=0.001
# mac with an inflow at 2.5 m/s, past a support radius (2 cm) per 0.01 s
# step: the blow-up bound mac widens to what its substeps let a face carry
# must hold after the emitter adds markers (it once fell back to
# sim.max_step_ratio there: exit 3 at step 1).
cat >"$T/mac_inflow.json" <<'EOF'
{ "sim": { "solver": "mac", "dt": 0.01 }, "domain": { "min": [0, 0, 0], "max": [0.32, 0.32, 0.32] },
  "particles": { "spacing": 0.01 }, "boundary": { "cache_dir": "off" },
  "fluid": [ { "type": "box", "min": [0, 0, 0], "max": [0.32, 0.06, 0.32] } ],
  "emitters": [ { "shape": "disk", "center": [0.16, 0.28, 0.16], "direction": [0, -1, 0], "radius": 0.03,
                  "speed": 2.5, "end": 0.3 } ] }
EOF
fl run "$T/mac_inflow.json" --backend cpu --steps 30
[ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -q "2400 particles added" &&
    ok "21 mac with a 2.5 m/s inflow at dt 0.01 s runs (the widened blow-up bound kept after emission)" ||
    bad "21 mac inflow" "exit $RC: $(errline)"
# ... and a 6 m/s jet into an empty box: its first markers carry the
# emitter's speed before any substep, and the first substep is the
# CFL's for that speed (exit 3 at step 1 before, whatever mac.dt_max).
cat >"$T/mac_jet.json" <<'EOF'
{ "sim": { "solver": "mac", "dt": 0.01 }, "domain": { "min": [0, 0, 0], "max": [0.4, 0.24, 0.16] },
  "particles": { "spacing": 0.01 }, "boundary": { "walls": "mirror", "cache_dir": "off" }, "fluid": [],
  "emitters": [ { "shape": "rect", "center": [0.03, 0.15, 0.08], "direction": [1, 0, 0], "size": [0.06, 0.04],
                  "speed": 6, "end": 0.1 } ],
  "outflows": [ { "min": [0.34, 0, 0], "max": [0.4, 0.24, 0.16] } ] }
EOF
fl run "$T/mac_jet.json" --backend cpu --steps 20
[ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -q "^substeps  *[2-9]" &&
    ok "21 mac with a 6 m/s jet into an empty box runs, in substeps" || bad "21 mac jet" "exit $RC: $(errline)"
# A scene that starts empty with its only emitter opening after the run's
# end runs no particle: noted (300 steps of nothing, exit 0, no word).
cat >"$T/late_jet.json" <<'EOF'
{ "domain": { "min": [0, 0, 0], "max": [0.3, 0.3, 0.3] }, "particles": { "spacing": 0.01 },
  "boundary": { "walls": "mirror" }, "fluid": [],
  "emitters": [ { "shape": "rect", "center": [0.05, 0.2, 0.15], "direction": [1, 0, 0], "size": [0.06, 0.04],
                  "speed": 1, "start": 5, "end": 6 } ] }
EOF
fl run "$T/late_jet.json" --backend cpu --steps 20
late=$(printf '%s' "$ERR" | grep -c "no particle in this run: the first emitter opens at t = 5 s, at or after its end")
sed 's/"start": 5/"start": 0.001/' "$T/late_jet.json" >"$T/soon_jet.json"
fl run "$T/soon_jet.json" --backend cpu --steps 20
soon=$(printf '%s' "$ERR" | grep -c "no particle in this run")
# Within the step past a --time (the capacity's horizon, not the run's
# end): noted too (it went unnoted; a review).
sed 's/"start": 5/"start": 0.00505/' "$T/late_jet.json" >"$T/edge_jet.json"
fl run "$T/edge_jet.json" --backend cpu --time 0.005
edge=$(printf '%s' "$ERR" | grep -c "opens at t = 0.00505 s, at or after its end (t = 0.005 s)")
[ "$late$edge" = 11 ] && [ "$soon" -eq 0 ] && [ "$RC" -eq 0 ] && ok "21 an emitter opening after the run's end is noted, within a step of a --time too (not one opening within it)" ||
    bad "21 late emitter note" "$late and $edge notes, $soon for one opening at 1 ms, exit $RC: $(errline)"
# A mesh obstacle's distance field is built once, though the fluid's
# carving and the solids both ask for it: a 4 mm slab across a 1.9 m
# domain gets the node-spacing warning once (twice, each build ~1 s).
cat >"$T/slab.obj" <<'EOF'
v -0.1 -0.1 -0.1
v 2 2 -0.1
v 2 2 2
v -0.1 -0.1 2
v -0.0971715729 -0.102828427 -0.1
v 2.00282843 1.99717157 -0.1
v 2.00282843 1.99717157 2
v -0.0971715729 -0.102828427 2
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
EOF
cat >"$T/slab.json" <<'EOF'
{ "sim": { "solver": "dfsph" }, "domain": { "min": [0, 0, 0], "max": [1.9, 1.9, 1.9] },
  "particles": { "spacing": 0.01 }, "boundary": { "cache_dir": "off" },
  "fluid": [ { "type": "box", "min": [0.9, 1.0, 0.9], "max": [1.0, 1.1, 1.0] } ],
  "obstacles": [ { "type": "mesh", "file": "slab.obj" } ] }
EOF
fl run "$T/slab.json" --backend cpu --steps 1
nw=$(printf '%s' "$ERR" | grep -c "distance field has its nodes")
[ "$RC" -eq 0 ] && [ "$nw" -eq 1 ] && ok "21 a mesh's distance field is built once (its warning said once)" ||
    bad "21 mesh field built twice" "exit $RC, $nw warnings: $(errline)"
# Fluid starting behind a polygon (against its normal) is noted: a ceiling
# whose vertices run the wrong way has its pool behind it; the right way
# round, nothing is said.
cat >"$T/ceiling.json" <<'EOF'
{ "domain": { "min": [0, 0, 0], "max": [0.2, 0.2, 0.2] }, "particles": { "spacing": 0.01 },
  "boundary": { "cache_dir": "off" },
  "fluid": [ { "type": "box", "min": [0, 0, 0], "max": [0.2, 0.1, 0.2] } ],
  "obstacles": [ { "type": "polygon", "vertices": [[0, 0.12, 0], [0, 0.12, 0.2], [0.2, 0.12, 0.2], [0.2, 0.12, 0]] } ] }
EOF
fl run "$T/ceiling.json" --backend cpu --steps 1
nb=$(printf '%s' "$ERR" | grep -c "obstacles\[0\] (a polygon) has 1200 fluid particles within 0.05 m behind it")
sed 's/\[\[0, 0.12, 0\], \[0, 0.12, 0.2\], \[0.2, 0.12, 0.2\], \[0.2, 0.12, 0\]\]/[[0, 0.12, 0], [0.2, 0.12, 0], [0.2, 0.12, 0.2], [0, 0.12, 0.2]]/' \
    "$T/ceiling.json" >"$T/ceiling_down.json"
fl run "$T/ceiling_down.json" --backend cpu --steps 1
nd=$(printf '%s' "$ERR" | grep -c "behind it")
[ "$nb" -eq 1 ] && [ "$nd" -eq 0 ] && [ "$RC" -eq 0 ] && ok "21 fluid behind a polygon is noted (not in front of it)" ||
    bad "21 fluid behind a polygon" "$nb notes behind, $nd in front, exit $RC: $(errline)"
# The adaptive solvers' first step under a 25 m/s jet opening at t = 0 is
# bounded by the jet's speed: chosen without it, it placed the jet's
# layers 5 spacings past the plane, into a box 2 spacings away, and pbf
# and mps stopped as blown up at step 1 (new particles, not yet moved).
cat >"$T/jet_box.json" <<'EOF'
{ "domain": { "min": [0, 0, 0], "max": [0.3, 0.3, 0.3] }, "particles": { "spacing": 0.01, "support": 2.0 },
  "boundary": { "cache_dir": "off" },
  "fluid": [ { "type": "box", "min": [0.22, 0.01, 0.01], "max": [0.29, 0.05, 0.29] } ],
  "obstacles": [ { "type": "box", "min": [0.12, 0.1, 0.05], "max": [0.2, 0.3, 0.25] } ],
  "emitters": [ { "shape": "rect", "center": [0.1, 0.2, 0.15], "direction": [1, 0, 0], "size": [0.04, 0.04],
                  "speed": 25, "end": 1 } ] }
EOF
jets=
for sv in pbf mps; do
    fl run "$T/jet_box.json" --backend cpu --solver $sv --steps 4
    dt=$(printf '%s' "$OUT" | sed -n 's/^time step *mean [^,]*, min \([0-9.e+-]*\) s$/\1/p')
    [ "$RC" -eq 0 ] && awk -v d="$dt" 'BEGIN { exit !(d > 0 && 25 * d <= 0.01) }' && jets="$jets $sv:$dt" ||
        bad "21 $sv under a 25 m/s jet" "exit $RC, smallest dt '$dt': $(errline)"
done
[ "$jets" = "${jets#* mps}" ] || ok "21 a 25 m/s jet bounds the first step (smallest dt$jets s)"
# Fewer markers a cell than the seed's 8 lose liquid (cells no marker
# holds read as air): noted once, and not at 8.
fl run embedded:mac_dam_break.json --backend cpu --steps 1 --param mac.particles_per_cell=4 --param particles.spacing=0.015749
N4=$(printf '%s' "$ERR" | grep -c "mac.particles_per_cell = 4 is below the seed's 8")
fl run embedded:mac_dam_break.json --backend cpu --steps 1
[ "$N4" -eq 1 ] && [ "$RC" -eq 0 ] && ! printf '%s' "$ERR" | grep -q "particles_per_cell" &&
    ok "21 mac below 8 markers a cell noted once, at 8 not" || bad "21 mac ppc note" "notes $N4, exit $RC: $(errline)"
# A pressure solve cut at 2 iterations whose residual grew past |b| puts
# the start back: the cg_residual column reports the start's (1 from a
# zero pressure), not the discarded solution's (it read 1.03-1.45 here).
fl run embedded:dam_break.json --backend cpu --solver mps --steps 6 --param particles.spacing=0.025 \
    --param mps.cg_max_iter=2 --stats "$T/cg.csv"
worst=$(awk -F, 'NR > 1 { if ($8 > w) w = $8 } END { print w + 0 }' "$T/cg.csv" 2>/dev/null)
[ "$RC" -eq 0 ] && [ "$(head -1 "$T/cg.csv" | cut -d, -f8)" = cg_residual ] && awk -v w="$worst" 'BEGIN { exit !(w <= 1) }' &&
    ok "21 a discarded MPS solve reports the kept pressure's residual (largest $worst)" ||
    bad "21 discarded solve's residual" "exit $RC, largest cg_residual $worst: $(errline)"
# A discarded solve whose warm start was worse than zero pressure keeps
# zero (it kept a start of 1.182 at step 24 here).
fl run embedded:dam_break.json --backend cpu --solver mps --steps 40 --param particles.spacing=0.02 \
    --param mps.cg_max_iter=3 --param mps.preconditioner=jacobi --stats "$T/cg3.csv"
worst=$(awk -F, 'NR > 1 { if ($8 > w) w = $8 } END { print w + 0 }' "$T/cg3.csv" 2>/dev/null)
[ "$RC" -eq 0 ] && awk -v w="$worst" 'BEGIN { exit !(w <= 1) }' &&
    ok "21 a discarded solve keeps zero pressure over a worse warm start (largest cg_residual $worst)" ||
    bad "21 discarded solve over a worse warm start" "exit $RC, largest cg_residual $worst: $(errline)"
# Every solve cut short is counted (a warning says only the first): the
# CSV's short_solves column and the summary's total, 0 when they converge.
nshort=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "short_solves") c = i } NR > 1 { n += $c } END { print n + 0 }' "$T/cg.csv")
fl run embedded:mac_dam_break.json --backend cpu --steps 3 --param mac.cg_max_iter=1
mshort=$(printf '%s' "$OUT" | sed -n 's/^solves cut short *\([0-9]*\) (total over the steps)$/\1/p')
fl run embedded:mac_dam_break.json --backend cpu --steps 3
mfull=$(printf '%s' "$OUT" | sed -n 's/^solves cut short *\([0-9]*\) (total over the steps)$/\1/p')
[ "$nshort" -eq 6 ] && [ "${mshort:-0}" -ge 3 ] && [ "$mfull" = 0 ] &&
    ok "21 solves cut short counted: mps $nshort of 6 steps, mac $mshort at 1 iteration, $mfull converged" ||
    bad "21 short solves" "mps $nshort of 6, mac '$mshort' at 1 iteration, '$mfull' converged: $(errline)"
# Solves cut at one iteration let a column compress until no particle is
# below beta n0, or until it blows up: the stop names the short solves,
# not a closed volume (it said "a closed volume full of fluid?" after 177
# steps at 279 %).
cat >"$T/mps_col.json" <<'EOF'
{ "sim": { "solver": "mps" }, "domain": { "min": [0, 0, 0], "max": [0.1, 0.3, 0.1] },
  "boundary": { "walls": "mirror", "cache_dir": "off" }, "particles": { "spacing": 0.01 },
  "material": { "viscosity": 1.0, "tension_model": "none" },
  "fluid": [ { "type": "box", "min": [0, 0, 0], "max": [0.1, 0.2, 0.1] } ] }
EOF
fl run "$T/mps_col.json" --backend cpu --steps 300 --param mps.cg_max_iter=1
[ "$RC" -eq 3 ] && printf '%s' "$ERR" | grep -q "every pressure solve since step 1 stopped at mps.cg_max_iter = 1" &&
    ! printf '%s' "$ERR" | grep -q "closed volume" &&
    ok "21 MPS solves cut short until the fluid compressed: the stop names them" || bad "21 mps short solves" "exit $RC: $(errline)"
# bench --json to a folder that cannot take it: refused before any step.
fl bench "$GOOD" --backend cpu --steps 2 --json "$T/no/such/dir/b.json"
if [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q -- "--json $T/no/such/dir/b.json: cannot create" &&
   ! printf '%s' "$OUT$ERR" | grep -q "particles, 2 steps"; then
    ok "21 bench --json to a missing folder: exit 2 with the reason, before any step"
else
    bad "21 bench --json unwritable" "exit $RC: $(errline)"
fi
# An output that names an input is refused before any step, the input
# intact (bench --json and run --stats replaced the scene with exit 0; a
# review); an empty --json too (it ran the whole bench, then failed).
cp "$GOOD" "$T/in.json"
fl run "$T/in.json" --backend cpu --steps 2 --out "$T/in_fr" --every 2 --quiet
sum_in=$(cksum <"$T/in.json") sum_fr=$(cksum <"$T/in_fr/frame_000002.vtu")
fl bench "$T/in.json" --backend cpu --steps 2 --json "$T/in.json"
r1=$RC e1=$ERR
fl bench "$T/in.json" --backend cpu --steps 2 --from "$T/in_fr/frame_000002.vtu" --json "$T/in_fr/frame_000002.vtu"
r2=$RC e2=$ERR
fl run "$T/in.json" --backend cpu --steps 2 --stats "$T/in.json"
r3=$RC e3=$ERR
fl bench "$T/in.json" --backend cpu --steps 2 --json ''
if [ "$r1$r2$r3$RC" = 2222 ] && printf '%s' "$e1" | grep -q -- "--json $T/in.json: is the scene" &&
   printf '%s' "$e2" | grep -q "is the --from frame" && printf '%s' "$e3" | grep -q -- "--stats $T/in.json: is the scene" &&
   printf '%s' "$ERR" | grep -q -- "--json: an empty file name" && [ "$(cksum <"$T/in.json")" = "$sum_in" ] &&
   [ "$(cksum <"$T/in_fr/frame_000002.vtu")" = "$sum_fr" ]; then
    ok "21 --json or --stats naming the scene or the --from frame, and an empty --json: exit 2, inputs intact"
else
    bad "21 outputs over inputs" "exit $r1 $r2 $r3 $RC: $e1 / $e2 / $e3 / $(errline)"
fi
# ... nor a mesh file the scene reads (--checkpoint glass.obj replaced the
# glass pour's glass with exit 0; a review), and a checkpoint replaces only
# a checkpoint (it replaced another run's frame).
mkdir -p "$T/mo" && cp "$SRC/../scenes/glass_pour.json" "$SRC/../scenes/glass.obj" "$T/mo/"
sum_obj=$(cksum <"$T/mo/glass.obj")
fl run "$T/mo/glass_pour.json" --backend cpu --steps 2 --checkpoint "$T/mo/glass.obj"
r1=$RC e1=$ERR
fl run "$T/mo/glass_pour.json" --backend cpu --steps 2 --stats "$T/mo/glass.obj"
r2=$RC e2=$ERR
fl bench "$T/mo/glass_pour.json" --backend cpu --steps 2 --json "$T/mo/glass.obj"
r3=$RC e3=$ERR
fl run "$T/in.json" --backend cpu --steps 2 --checkpoint "$T/in_fr/frame_000002.vtu"
if [ "$r1$r2$r3$RC" = 2222 ] && [ "$(printf '%s\n%s\n%s\n' "$e1" "$e2" "$e3" |
   grep -c "is the mesh file .*glass.obj of the scene's obstacles\[0\]")" = 3 ] &&
   printf '%s' "$ERR" | grep -q "is not a fluidcl checkpoint" &&
   [ "$(cksum <"$T/mo/glass.obj")" = "$sum_obj" ] && [ "$(cksum <"$T/in_fr/frame_000002.vtu")" = "$sum_fr" ]; then
    ok "21 --checkpoint, --stats or --json naming the scene's mesh, or --checkpoint over a frame: exit 2, files intact"
else
    bad "21 outputs over meshes" "exit $r1 $r2 $r3 $RC: $e1 / $e2 / $e3 / $(errline)"
fi
# The default DIR/checkpoint.state and DIR/frames.pvd replace only their
# own kind: a user's file at either name was replaced, exit 0 (a review);
# a rerun into the folder replaces its own.
mkdir -p "$T/own_ck" "$T/own_pvd"
echo "my notes" >"$T/own_ck/checkpoint.state"
echo "my paraview notes" >"$T/own_pvd/frames.pvd"
fl run "$GOOD" --backend cpu --steps 4 --out "$T/own_ck" --every 2 --checkpoint-every 2
r1=$RC e1=$ERR
fl run "$GOOD" --backend cpu --steps 2 --out "$T/own_pvd" --every 1
r2=$RC e2=$ERR
fl run "$GOOD" --backend cpu --steps 4 --out "$T/own_rerun" --every 2 --checkpoint-every 2
fl run "$GOOD" --backend cpu --steps 4 --out "$T/own_rerun" --every 2 --checkpoint-every 2
if [ "$r1$r2$RC" = 220 ] && printf '%s' "$e1" | grep -q "checkpoint.state: exists and is not a fluidcl checkpoint" &&
   printf '%s' "$e2" | grep -q "frames.pvd: exists and is not a frames collection" &&
   [ "$(cat "$T/own_ck/checkpoint.state")" = "my notes" ] && [ "$(cat "$T/own_pvd/frames.pvd")" = "my paraview notes" ] &&
   [ "$(ls "$T/own_ck")" = checkpoint.state ] && [ "$(ls "$T/own_pvd")" = frames.pvd ]; then
    ok "21 a user's file at the default checkpoint or frames.pvd name is refused and kept; a rerun replaces its own"
else
    bad "21 default output names" "exit $r1 $r2 $RC: $e1 / $e2 / $(errline)"
fi
# --json replaces only an earlier table: it replaced any file, a README
# once, with exit 0 (a review).
printf '# notes\nkeep me\n' >"$T/notes.md"
sum_notes=$(cksum <"$T/notes.md")
fl bench "$GOOD" --backend cpu --steps 2 --json "$T/notes.md"
r1=$RC e1=$ERR
fl bench "$GOOD" --backend cpu --steps 2 --json "$T/bench.json"
r2=$RC
printf '  \n\n' >"$T/blank.json"   # white space only: nothing to lose (it was refused)
fl bench "$GOOD" --backend cpu --steps 2 --json "$T/blank.json"
if [ "$r1$r2$RC" = 200 ] && printf '%s' "$e1" | grep -q -- "--json $T/notes.md: exists and is not a bench table" &&
   [ "$(cksum <"$T/notes.md")" = "$sum_notes" ] && grep -q '"backends"' "$T/bench.json" &&
   grep -q '"backends"' "$T/blank.json"; then
    ok "21 --json over a file that is not a bench table: exit 2, the file intact; over an earlier table or white space: replaced"
else
    bad "21 --json over another file" "exit $r1 $r2 $RC: $e1 / $(errline)"
fi
# bench under the default --backend all: a --device that names nothing is
# refused before any step; a device that fails (its kernels do not build)
# gives exit 3, the columns that ran, and no --json file.
fl bench "$GOOD" --steps 2 --device no-such-device --json "$T/dn.json"
if [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q -- "--device 'no-such-device': no OpenCL device matches" &&
   ! printf '%s' "$OUT$ERR" | grep -q "particles, 2 steps" && [ ! -e "$T/dn.json" ]; then
    ok "21 bench --device naming no device: exit 2 before any step"
else
    bad "21 bench --device no-such-device" "exit $RC: $(errline)"
fi
if "$BIN" devices 2>/dev/null | grep -q '^\[0\]'; then
    mkdir -p "$T/kbad" && cp "$SRC"/*.cl "$SRC"/*.h "$SRC"/*.def "$T/kbad/" &&
        echo 'this is not C;' >>"$T/kbad/wcsph.cl"
    fl bench "$GOOD" --steps 2 --kernel-dir "$T/kbad" --json "$T/kb.json"
    if [ "$RC" -eq 3 ] && printf '%s' "$OUT" | grep -q "incomplete" && [ ! -e "$T/kb.json" ] &&
       printf '%s' "$ERR" | grep -q "kbad/wcsph.cl:[0-9]*"; then
        ok "21 bench with an OpenCL device that fails: exit 3, the table incomplete, no --json"
    else
        bad "21 bench with a failing device" "exit $RC, json $( [ -e "$T/kb.json" ] && echo written || echo absent): $(errline)"
    fi
else
    echo "SKIP bench with a failing OpenCL device: no OpenCL device"
fi
# The output folder's error names where the folder came from.
fl run "$GOOD" --backend cpu --steps 2 --param output.every=1 --param output.dir=/proc/fluidcl_no
[ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q -- "--param output.dir: cannot create directory" &&
    ok "21 an unusable output.dir names --param output.dir" || bad "21 output.dir origin" "exit $RC: $(errline)"
# A check after the command line is merged names --param where the value
# came from there (they blamed the scene file; a review); a scene's own
# value keeps the scene's name.
fl run "$GOOD" --backend cpu --steps 2 --solver pbf --param particles.support=3.8
r1=$RC e1=$ERR
fl run "$GOOD" --backend cpu --steps 2 --param particles.spacing=0.0005
r2=$RC e2=$ERR
printf '{ "sim": { "solver": "pbf" }, "particles": { "spacing": 0.05, "support": 3.8 },\n  "domain": { "min": [0,0,0], "max": [0.4,0.4,0.4] },\n  "fluid": [ { "type": "box", "min": [0,0,0], "max": [0.2,0.2,0.2] } ] }\n' >"$T/sup.json"
fl run "$T/sup.json" --backend cpu --steps 2
if [ "$r1$r2$RC" = 222 ] && printf '%s' "$e1" | grep -q -- "^fluidcl: $GOOD with --solver pbf and --param particles.support = 3.8: pbf runs up to" &&
   printf '%s' "$e2" | grep -q -- "^fluidcl: $GOOD with --param particles.spacing: " &&
   printf '%s' "$ERR" | grep -q -- "^fluidcl: $T/sup.json: particles.support = 3.8"; then
    ok "21 a refused value from --param names --param (and the --solver the check ran for), one from the scene the scene"
else
    bad "21 origin of refused values" "exit $r1 $r2 $RC: $e1 / $e2 / $(errline)"
fi
# A scene of fluid control under another solver is told so first, naming
# the option that chose it (--param sim.solver=mac was told of its
# domain's cells; --solver dfsph was not named; a review).
fl run "embedded:control_chase.json" --backend cpu --steps 1 --param sim.solver=mac
r1=$RC e1=$ERR
fl run "embedded:control_chase.json" --backend cpu --steps 1 --solver dfsph
if [ "$r1$RC" = 22 ] &&
   printf '%s' "$e1" | grep -q -- "with --param sim.solver=mac: targets: fluid control needs a solver that has it (pbf)" &&
   printf '%s' "$ERR" | grep -q -- "with --solver dfsph: targets: fluid control needs a solver that has it (pbf)"; then
    ok "21 fluid control under another solver is refused first, naming --param sim.solver or --solver"
else
    bad "21 targets under another solver" "exit $r1 $RC: $e1 / $(errline)"
fi
# An option given twice with two values is refused (the last won without
# a word; a review); the same value twice is harmless.
fl run "$GOOD" --backend cpu --steps 10 --steps 5
r1=$RC e1=$ERR
fl run "$GOOD" --backend cpu --backend cpu --time 0.002 --time 2e-3
r2=$RC
fl surface "$T/in_fr/frame_000002.vtu" --backend cpu --out "$T/tw1" --out "$T/tw2"
if [ "$r1" -eq 2 ] && printf '%s' "$e1" | grep -q -- "run: --steps given twice ('10', then '5'): expected one" &&
   [ "$r2" -eq 0 ] && [ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q -- "surface: --out given twice" &&
   [ ! -e "$T/tw2" ]; then
    ok "21 an option given twice with two values is refused naming both (run and surface); the same value twice runs"
else
    bad "21 repeated option" "exit $r1 $r2 $RC: $e1 / $(errline)"
fi
# --every 0 writes no frames with a note (the README's; it was refused);
# a run of no length is refused (--time 0 ran nothing, printed zeros as
# figures, exit 0). A --stats file in the --out folder gets its folder
# (refused as "no such folder" before), and it holds nothing else.
fl run "$GOOD" --backend cpu --steps 2 --every 0 --out "$T/e0"
r1=$RC e1=$ERR
fl run "$GOOD" --backend cpu --steps 2 --every 0 --out "$T/e0s" --stats "$T/e0s/s.csv"
r3=$RC
fl run "$GOOD" --backend cpu --time 0
r2=$RC e2=$ERR
fl run "$GOOD" --backend cpu --param sim.duration=0
if [ "$r1$r2$RC$r3" = 0220 ] && printf '%s' "$e1" | grep -q "note: --every is 0: no frames go to" && [ ! -e "$T/e0" ] &&
   [ "$(ls "$T/e0s")" = s.csv ] && [ "$(wc -l <"$T/e0s/s.csv")" -eq 3 ] &&
   printf '%s' "$e2" | grep -q -- "--time: expected a number of seconds in (0, 1e+06], got '0'" &&
   printf '%s' "$ERR" | grep -q -- "--param sim.duration = 0 and sim.steps = 0: nothing to run"; then
    ok "21 --every 0 writes no frame with a note (a --stats file in its --out folder: that file alone); --time 0 and sim.duration 0 are refused"
else
    bad "21 --every 0 / --time 0" "exit $r1 $r2 $RC $r3: $e1 / $e2 / $(errline)"
fi

# 22. Each command's --help lists exactly its options (from the same
# declarations the parser reads), exit 0.
fl run --help; run_help=$OUT; run_rc=$RC
fl bench --help
if [ "$run_rc" -eq 0 ] && [ "$RC" -eq 0 ] && printf '%s' "$run_help" | grep -q -- "--checkpoint-every K" &&
   ! printf '%s' "$run_help" | grep -q -- "--json" && printf '%s' "$OUT" | grep -q -- "--json FILE" &&
   ! printf '%s' "$OUT" | grep -q -- "--resume"; then
    ok "22 run --help and bench --help list their own options"
else
    bad "22 per-command help" "exit $run_rc/$RC: $(printf '%s' "$run_help" | head -c 200)"
fi
# ... and only its own part of a shared option's help (run's once showed
# bench's "timed steps" and "time the surface", bench "both").
bench_help=$OUT
fl view --help; view_help=$OUT
if ! printf '%s\n%s' "$run_help" "$view_help" | grep -q -e "timed" -e "time the surface" -e "bench" &&
   ! printf '%s' "$bench_help" | grep -q -e "reconstruct the surface of every frame" -e "all, both" -e "run:" &&
   printf '%s' "$bench_help" | grep -q "or all: both (the default)"; then
    ok "22 a shared option's help shows each command its own part"
else
    bad "22 per-command sections of shared help" "$(printf '%s' "$run_help" | grep -e timed -e bench | head -2)"
fi

# 23. The README's parameter table names every parameter 'help params'
# prints, in its group's row.
readme=$(cd "$SRC/.." && pwd)/README.md
fl help params
table=$(sed -n '/^### Parameters/,/^## Viewer/p' "$readme")
missing=""
for k in $(printf '%s\n' "$OUT" | sed -n 's/^  \([a-z_]*\.[a-z_0-9]*\) =.*/\1/p'); do
    printf '%s\n' "$table" | grep -q "^| \`${k%%.*}\` |.*\`${k#*.}\`" || missing+="$k "
done
n=$(printf '%s\n' "$OUT" | grep -c '^  [a-z_]*\.[a-z_0-9]* =')
[ "$n" -gt 100 ] && [ -z "$missing" ] && ok "23 the README's parameter table names all $n parameters" ||
    bad "23 README parameter table" "$n parameters; missing: $missing"
# ... and scenes/README.md every shipped scene and mesh.
missing=""
for f in "$SRC"/../scenes/*.json "$SRC"/../scenes/*.obj; do
    grep -q "^| \`$(basename "$f")\` |" "$SRC/../scenes/README.md" || missing+="$(basename "$f") "
done
[ -z "$missing" ] && ok "23 scenes/README.md lists every shipped scene and mesh" || bad "23 scenes/README.md" "missing: $missing"

# surface of frames holding no particles (an emitter's scene before it
# opens): an empty mesh, noted once even with --quiet (it was said only
# in the progress line; a review).
printf '{ "domain": { "min": [0,0,0], "max": [0.2,0.2,0.2] }, "particles": { "spacing": 0.02 }, "fluid": [],\n  "emitters": [ { "shape": "disk", "center": [0.1,0.15,0.1], "radius": 0.03, "direction": [0,-1,0], "speed": 1, "start": 0.05 } ] }\n' >"$T/empty_em.json"
fl run "$T/empty_em.json" --backend cpu --steps 2 --every 1 --out "$T/empty_frames" --quiet
fl surface "$T/empty_frames/frame_000000.vtu" "$T/empty_frames/frame_000001.vtu" --out "$T/empty_mesh" --backend cpu --quiet
if [ "$RC" -eq 0 ] && [ "$(printf '%s' "$ERR" | grep -c "holds no particles: its mesh is empty")" = 1 ] &&
   [ -s "$T/empty_mesh/frame_000001.surface.ply" ]; then
    ok "23 surface of particle-less frames notes it once under --quiet"
else
    bad "23 surface of empty frames" "exit $RC: $(errline)"
fi



checks_done
