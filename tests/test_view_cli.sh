#!/usr/bin/env bash
# test_view_cli.sh - `fluidcl view` from the command line, under a private
# Xvfb: a scripted run renders N frames, writes a PNG of the window's size,
# prints the frame rate and the particle path; --record writes numbered
# frames; --draw mesh and splats run, and a valid --color or --draw value is
# not mistaken for a recording folder; a run ending on a blow-up exits 3;
# bad viewer options exit 2 naming the
# option; --control draws fluid control's control particles; with no
# display the viewer exits 3 saying so, and with no OpenCL device it runs
# natively. Skips (77) when
# Xvfb is missing.
#
# usage: bash tests/test_view_cli.sh path/to/fluidcl
set -u
BIN=${1:?usage: $0 path/to/fluidcl}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
if ! command -v Xvfb >/dev/null 2>&1; then
    echo "SKIP: no Xvfb on the PATH (Debian package xvfb)"
    exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/fluidcl_view.XXXXXX") || exit 1
XPID=
cleanup() { [ -n "$XPID" ] && kill "$XPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
# Xvfb picks a free display and writes its number once it accepts clients.
exec 3<> "$T/displayfd"
Xvfb -displayfd 3 -screen 0 1280x720x24 -nolisten tcp -noreset >/dev/null 2>&1 &
XPID=$!
for _ in $(seq 100); do [ -s "$T/displayfd" ] && grep -q . "$T/displayfd" && break; sleep 0.2; done
NUM=$(head -n1 "$T/displayfd" | tr -dc 0-9)
if [ -z "$NUM" ]; then
    echo "SKIP: Xvfb did not start"
    exit 77
fi
. "$(cd "$(dirname "$0")" && pwd)/checks.sh"
fl() { DISPLAY=${DISP-:$NUM} timeout 120 "$BIN" "$@" >"$T/out.txt" 2>"$T/err.txt"; RC=$?; }

cat >"$T/s.json" <<'JSON'
{ "name": "view cli", "sim": { "dt": 0.0005 }, "domain": { "min": [0, 0, 0], "max": [0.3, 0.3, 0.3] },
  "particles": { "spacing": 0.03 }, "fluid": [ { "type": "box", "min": [0, 0, 0], "max": [0.15, 0.15, 0.3] } ] }
JSON

# PNG width and height from the IHDR chunk (bytes 16..23, big-endian).
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8 }'; }

fl view "$T/s.json" --backend cpu --frames 4 --steps-per-frame 2 --size 320x240 --screenshot "$T/a.png"
if [ "$RC" -eq 0 ] && [ "$(png_size "$T/a.png" 2>/dev/null)" = "320x240" ] &&
   grep -q "view: 4 frames in .* fps; 8 steps of 250 particles" "$T/out.txt" &&
   grep -q "particles to GL: copy via host" "$T/out.txt"; then
    ok "scripted view: 4 frames x 2 steps, 320x240 PNG, fps and path printed"
else
    bad "scripted view" "exit $RC, png $(png_size "$T/a.png" 2>/dev/null): $(tr '\n' ' ' <"$T/out.txt" "$T/err.txt" | cut -c1-300)"
fi
# A scripted run whose last step blew up exits 3, as run does (it exited
# 0 with the screenshot written; a review): sim.dt 0.05 blows up at step 2.
fl view "$T/s.json" --backend cpu --frames 3 --size 200x150 --param sim.dt=0.05 --screenshot "$T/blow.png"
[ "$RC" -eq 3 ] && grep -q "numerical blow-up at step" "$T/out.txt" &&
    ok "scripted view ending on a blow-up: exit 3, the status says so" ||
    bad "view blow-up exit" "exit $RC: $(tr '\n' ' ' <"$T/out.txt" | cut -c1-300)"
# ... and one whose later status (here the recording's) replaced the
# blow-up's still says why it exits 3 (a review: only a screenshot's status
# was printed).
fl view "$T/s.json" --backend cpu --frames 3 --size 200x150 --param sim.dt=0.05 --record "$T/blow_rec"
[ "$RC" -eq 3 ] && grep -q "^view: recording stopped" "$T/out.txt" && grep -q "^view: exit 3: numerical blow-up at step" "$T/out.txt" &&
    ok "a blow-up's reason kept past a later status: exit 3 says why" ||
    bad "view blow-up reason" "exit $RC: $(tr '\n' ' ' <"$T/out.txt" | cut -c1-300)"
fl view "$T/s.json" --backend cpu --frames 3 --size 200x150 --no-panel --record "$T/rec"
n=$(ls "$T/rec" 2>/dev/null | grep -c '^frame_0000[0-2]\.png$')
[ "$RC" -eq 0 ] && [ "$n" -eq 3 ] && [ "$(png_size "$T/rec/frame_00002.png")" = "200x150" ] &&
    ok "--record writes frame_00000..00002.png" || bad "--record" "exit $RC, $n frames"
# A later take continues past the highest frame, whatever gaps the folder
# has (the first free index refilled a gap, then replaced the earlier
# take's next frame; a review).
rm -f "$T/rec/frame_00001.png"
kept=$(cksum <"$T/rec/frame_00002.png")
fl view "$T/s.json" --backend cpu --frames 2 --size 200x150 --no-panel --record "$T/rec"
[ "$RC" -eq 0 ] && [ "$(cksum <"$T/rec/frame_00002.png")" = "$kept" ] && [ -s "$T/rec/frame_00004.png" ] &&
    [ ! -e "$T/rec/frame_00001.png" ] && grep -q "frame_00003.png to frame_00004.png" "$T/out.txt" &&
    ok "--record: a later take goes on after the highest frame (a gap left as it is)" ||
    bad "--record after a gap" "exit $RC: $(ls "$T/rec" | tr '\n' ' ') $(tail -1 "$T/out.txt")"
# A folder no frame can be written in is refused at the start (a folder
# under /proc ran with exit 0 and no frames; a review).
fl view "$T/s.json" --backend cpu --frames 2 --size 200x150 --record /proc/1
[ "$RC" -eq 2 ] && grep -q -- "--record /proc/1: cannot write a frame there" "$T/err.txt" &&
    ok "--record into a folder that takes no file exits 2 naming it" ||
    bad "--record /proc/1" "exit $RC: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-300)"
# A valid --color or --draw value is the option's, never a recording folder.
cd "$T" || exit 1
fl view "$T/s.json" --backend cpu --frames 2 --size 200x150 --color density --draw mesh
cd - >/dev/null || exit 1
[ "$RC" -eq 0 ] && grep -q "view: [1-9][0-9]* meshes, .* the last, of step 2: [1-9][0-9]* triangles" "$T/out.txt" && [ ! -e "$T/density" ] &&
    [ ! -e "$T/mesh" ] && ok "--draw mesh: the mesh of the last step is reported; no stray recording" ||
    bad "--draw mesh / --color density" "exit $RC, $(ls "$T" | tr '\n' ' '): $(tr '\n' ' ' <"$T/out.txt" | cut -c1-300)"
# mac keeps no particle density (its markers carry the rest density: one
# flat colour, offered without a word; a review): --color density falls
# back to speed with a note.
fl view "$T/s.json" --backend cpu --frames 2 --size 200x150 --solver mac --color density
[ "$RC" -eq 0 ] && grep -q "note: view: mac keeps no particle density; the particles are coloured by speed" "$T/err.txt" &&
    ok "--color density under mac falls back to speed with a note" ||
    bad "--color density under mac" "exit $RC: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-300)"
# --control draws fluid control's control particles: the same frame with
# it differs from one without, and two without are identical.
cat >"$T/c.json" <<'JSON'
{ "sim": { "solver": "pbf" }, "domain": { "min": [0, 0, 0], "max": [0.3, 0.3, 0.3] },
  "particles": { "spacing": 0.03 }, "boundary": { "cache_dir": "off" },
  "fluid": [ { "type": "box", "min": [0, 0, 0], "max": [0.1, 0.1, 0.3] } ],
  "targets": [ { "shape": { "type": "sphere", "center": [0.2, 0.2, 0.15], "radius": 0.06 } } ] }
JSON
fl view "$T/c.json" --backend cpu --frames 2 --size 200x150 --no-panel --screenshot "$T/c0.png"; r0=$RC
fl view "$T/c.json" --backend cpu --frames 2 --size 200x150 --no-panel --screenshot "$T/c1.png"; r1=$RC
fl view "$T/c.json" --backend cpu --frames 2 --size 200x150 --no-panel --control --screenshot "$T/c2.png"
[ "$r0$r1$RC" = "000" ] && cmp -s "$T/c0.png" "$T/c1.png" && ! cmp -s "$T/c0.png" "$T/c2.png" &&
    ok "--control draws the control particles (the frame differs only with it)" ||
    bad "--control" "exit $r0/$r1/$RC: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-200)"
# --overlay draws a mac run's grid cells (the middle z slice's fluid and
# solid cells) the same way.
cat >"$T/m.json" <<'JSON'
{ "sim": { "solver": "mac" }, "domain": { "min": [0, 0, 0], "max": [0.32, 0.32, 0.32] },
  "particles": { "spacing": 0.02 }, "boundary": { "walls": "mirror" },
  "fluid": [ { "type": "box", "min": [0, 0, 0], "max": [0.32, 0.12, 0.32] } ] }
JSON
fl view "$T/m.json" --backend cpu --frames 2 --size 200x150 --no-panel --screenshot "$T/m0.png"; r0=$RC
fl view "$T/m.json" --backend cpu --frames 2 --size 200x150 --no-panel --overlay --screenshot "$T/m1.png"
[ "$r0$RC" = "00" ] && ! cmp -s "$T/m0.png" "$T/m1.png" && ok "--overlay draws a mac run's grid cells (the frame differs)" ||
    bad "--overlay (mac)" "exit $r0/$RC: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-200)"
# pbf draws its control particles: without targets there are none, and
# --overlay says so as it does for wcsph (it said nothing; a review).
fl view "$T/s.json" --backend cpu --solver pbf --frames 1 --size 200x150 --no-panel --overlay
[ "$RC" -eq 0 ] && grep -q "the pbf solver draws no overlay without targets" "$T/out.txt" "$T/err.txt" &&
    ok "--overlay with pbf and no targets says there is none" || bad "--overlay pbf" "exit $RC: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-200)"
fl view "$T/s.json" --backend cpu --frames 2 --size 200x150 --draw splats --screenshot "$T/sp.png"
[ "$RC" -eq 0 ] && [ "$(png_size "$T/sp.png" 2>/dev/null)" = "200x150" ] && ok "--draw splats renders" ||
    bad "--draw splats" "exit $RC: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-200)"
for args in "--frames 0" "--color heat --frames 1" "--draw voxels --frames 1" "--screenshot x.png" "--size 10x10 --frames 1" "--steps-per-frame" \
    "--steps-per-frame 5000000000 --frames 1" "--size 640x480junk --frames 1" "--screenshot x.jpg --frames 1" \
    "--screenshot $T/none/x.png --frames 1" "--size +640x+480 --frames 1" "--record /proc/none/rec --frames 1" \
    "--frames 2 --frames 3"; do
    # shellcheck disable=SC2086
    fl view "$T/s.json" --backend cpu $args
    opt=${args%% *}
    [ "$RC" -eq 2 ] && grep -q -- "$opt" "$T/err.txt" && ok "view $args: exit 2 naming $opt" ||
        bad "view $args" "exit $RC: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-200)"
done
# --device with --backend cpu is kept for the panel's one-step comparison
# on OpenCL, and said (it was taken silently where run and bench refuse
# it; the note spoke of a backend switch the panel does not have).
fl view "$T/s.json" --backend cpu --device 0 --frames 1 --size 200x150
[ "$RC" -eq 0 ] && grep -q "note: --device applies to the panel's \"Same step on OpenCL\" comparison only" "$T/err.txt" &&
    ok "view --backend cpu --device 0: runs, with a note" || bad "view cpu --device" "exit $RC: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-200)"
fl view "$T/s.json" --backend cpu --frames 1 --param material.viscosity=-1
[ "$RC" -eq 2 ] && grep -q "material.viscosity" "$T/err.txt" && ok "a bad --param exits 2 naming it" ||
    bad "bad --param" "exit $RC"
DISP= fl view "$T/s.json" --backend cpu --frames 1
[ "$RC" -eq 3 ] && grep -q "no display" "$T/err.txt" && ok "no display: exit 3, says so" ||
    bad "no display" "exit $RC: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-200)"
# Emitters and an outflow change the particle count while the viewer runs:
# its vertex buffer and phases follow (it once wrote past them and aborted),
# on both backends and with the splats' second plane.
cat >"$T/e.json" <<'JSON'
{ "name": "view emitters", "sim": { "solver": "wcsph", "dt": 0.0005 },
  "domain": { "min": [0, 0, 0], "max": [0.3, 0.3, 0.3] }, "particles": { "spacing": 0.02 }, "fluid": [],
  "emitters": [ { "shape": "rect", "center": [0.15, 0.25, 0.15], "direction": [0, -1, 0], "size": [0.08, 0.08],
                  "speed": 1.5 } ],
  "outflows": [ { "min": [0, 0, 0], "max": [0.3, 0.1, 0.3] } ] }
JSON
for be in cpu opencl; do
    fl view "$T/e.json" --backend "$be" --frames 12 --steps-per-frame 20 --size 200x150 --no-panel --draw splats \
        --color phase --screenshot "$T/e_$be.png"
    n=$(sed -n 's/.*steps of \([0-9]*\) particles.*/\1/p' "$T/out.txt")
    if [ "$RC" -eq 0 ] && [ -n "$n" ] && [ "$n" -gt 0 ] && [ -s "$T/e_$be.png" ]; then
        ok "emitters and an outflow under the viewer ($be): 240 steps, $n particles at the end, frames drawn"
    else
        bad "emitters under the viewer ($be)" "exit $RC, particles '$n': $(tr '\n' ' ' <"$T/err.txt" | cut -c1-300)"
    fi
done

# A second take into one recording folder continues the numbering.
fl view "$T/s.json" --backend cpu --frames 3 --size 200x150 --no-panel --record "$T/takes"
r0=$RC
fl view "$T/s.json" --backend cpu --frames 2 --size 200x150 --no-panel --record "$T/takes"
n=$(ls "$T/takes" | grep -c '^frame_0000[0-4].png$')
[ "$r0$RC" = "00" ] && [ "$n" -eq 5 ] && grep -q "frame_00004.png" "$T/out.txt" &&
    ok "a second --record take into the same folder continues at frame_00003 (5 frames, none overwritten)" ||
    bad "second recording take" "exit $r0/$RC, $n frames: $(ls "$T/takes" | tr '\n' ' ')"
: >"$T/afile"
fl view "$T/s.json" --backend cpu --frames 1 --record "$T/afile"
[ "$RC" -eq 2 ] && grep -q "a file of that name exists" "$T/err.txt" && ok "--record onto a file: exit 2, says so" ||
    bad "--record onto a file" "exit $RC: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-200)"

# --color phase draws a scene's phases in their own colours: pure red and
# pure green phases give pixels near those colours (python3's zlib decodes
# the PNG; skipped without python3).
cat >"$T/ph.json" <<'JSON'
{ "name": "view phases", "sim": { "solver": "mps", "dt": 0.0005 }, "domain": { "min": [0, 0, 0], "max": [0.3, 0.3, 0.3] },
  "particles": { "spacing": 0.03 }, "boundary": { "walls": "mirror" },
  "phases": [ { "name": "red", "density": 1000, "viscosity": 0.01, "color": [1, 0, 0] },
              { "name": "green", "density": 1000, "viscosity": 0.01, "color": [0, 1, 0] } ],
  "fluid": [ { "type": "box", "min": [0, 0, 0], "max": [0.15, 0.15, 0.3], "phase": "red" },
             { "type": "box", "min": [0.15, 0, 0], "max": [0.3, 0.15, 0.3], "phase": "green" } ] }
JSON
fl view "$T/ph.json" --backend cpu --frames 1 --size 320x240 --no-panel --color phase --screenshot "$T/ph.png"
if command -v python3 >/dev/null; then
    counts=$(python3 - "$T/ph.png" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
w, h = struct.unpack('>II', d[16:24]); raw = b''; i = 8
while i < len(d):
    n, t = struct.unpack('>I4s', d[i:i + 8]); raw += d[i + 8:i + 8 + n] if t == b'IDAT' else b''; i += 12 + n
raw = zlib.decompress(raw); bpp = 3 if d[25] == 2 else 4; stride = w * bpp; prev = bytearray(stride); red = green = 0
for y in range(h):
    f = raw[y * (stride + 1)]; line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        p = a + b - c; pr = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else (b if abs(p - b) <= abs(p - c) else c)
        line[x] = (line[x] + [0, a, b, (a + b) // 2, pr][f]) & 255
    for x in range(0, stride, bpp):
        r, g, bl = line[x:x + 3]; red += r > 2 * g + 40 and r > 2 * bl + 40; green += g > 2 * r + 40 and g > 2 * bl + 40
    prev = line
print(red, green)
PY
)
    set -- $counts
    [ "$RC" -eq 0 ] && [ "${1:-0}" -gt 200 ] && [ "${2:-0}" -gt 200 ] &&
        ok "--color phase: the scene's phase colours drawn ($1 red, $2 green pixels)" ||
        bad "--color phase with the scene's colours" "exit $RC, red/green pixels: $counts"
else
    echo "SKIP phase colours: no python3"
fi

# With no OpenCL device the viewer runs on the native backend with a note,
# as run does (it exited 3: the source tree's kernel folder it finds
# itself was taken for a --kernel-dir; a review).
mkdir -p "$T/no_icd"
OCL_ICD_VENDORS=$T/no_icd fl view "$T/s.json" --frames 2
if [ "$RC" -eq 0 ] && grep -q "no OpenCL device found (see 'fluidcl devices'): the native backend runs instead" "$T/err.txt" &&
   grep -q "view: backend .*native" "$T/out.txt"; then
    ok "no OpenCL device: view runs on the native backend with a note"
else
    bad "view without OpenCL" "exit $RC: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-300)"
fi

checks_done
