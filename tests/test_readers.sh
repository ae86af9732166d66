#!/usr/bin/env bash
# test_readers.sh FLUIDCL - frames read by other programs' readers: a run
# of each registered solver writes .vtu (with frames.pvd), legacy .vtk and
# .ply frames; tests/readers.py reads them with Debian's meshio and VTK
# (/usr/bin/python3: the interpreter those packages install into) and
# demands that positions and every field agree bit for bit; the mac run
# also writes its grid (output.grid), read with VTK's ImageData reader.
# Skips (77) when meshio or VTK is missing.
set -u
FL=$1
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
T=$(mktemp -d /tmp/test_readers_XXXXXX)
trap 'rm -rf "$T"' EXIT
if ! "$PY" -c 'import meshio, vtk' 2>/dev/null; then
    echo "SKIP: $PY cannot import meshio and vtk (Debian: python3-meshio python3-vtk9)"
    exit 77
fi
dirs=()
for solver in $("$FL" help solvers | awk '/^[a-z]/ { print $1 }'); do
    grid=0
    [ "$solver" = mac ] && grid=1    # the solver with a grid writes it too (output.grid)
    # spacing 0.05: mac's 0.1 m cells divide the 1 x 0.7 x 0.4 m domain
    "$FL" run embedded:dam_break.json --backend cpu --solver "$solver" --steps 6 --every 3 --out "$T/$solver" \
        --param particles.spacing=0.05 --param output.format=all --param output.grid=$grid --quiet >/dev/null || {
        echo "FAIL run of $solver"; echo "0 passed, 1 failed"; exit 1; }
    dirs+=("$T/$solver")
done
[ ${#dirs[@]} -ge 2 ] || { echo "FAIL: fewer than two solvers listed"; echo "0 passed, 1 failed"; exit 1; }
exec "$PY" "$HERE/readers.py" "${dirs[@]}"
