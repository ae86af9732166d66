#!/usr/bin/env bash
# test_write_fail.sh - `fluidcl run` when writing fails part-way (native
# backend): a file-size limit (`ulimit -f`) below a checkpoint's size, below
# a frame's size, and below the statistics' size, and an output folder
# made read-only while the run writes into it. Each must stop the run with
# exit 3 and a message naming the file and the system's reason, leave the
# frames and the checkpoint written before it byte for byte as they were,
# and leave no partial file under a final name (no .tmp either, but for
# the statistics' rows, which are kept in FILE.tmp for a post-mortem).
# A new --out folder under a read-only one is refused naming mkdir's reason.
#
# usage: bash tests/test_write_fail.sh path/to/fluidcl
set -u
BIN=$1
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
. "$(cd "$(dirname "$0")" && pwd)/checks.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/fluidcl_wfail.XXXXXX") || exit 1
trap 'chmod -R u+w "$T"; rm -rf "$T"' EXIT
chmod 755 "$T"

SCENE=$T/scene.json
cat >"$SCENE" <<'EOF'
{ "sim": { "dt": 0.0005 }, "domain": { "min": [0, 0, 0], "max": [0.3, 0.3, 0.2] },
  "particles": { "spacing": 0.0125 }, "boundary": { "cache_dir": "off" },
  "fluid": [ { "type": "box", "min": [0, 0, 0], "max": [0.1, 0.2, 0.2] } ] }
EOF
chmod 644 "$SCENE"
RUN=(run "$SCENE" --quiet --backend cpu --every 4)

# limited KB ARGS...: fluidcl under `ulimit -f KB`; RC and ERR are set.
limited() {
    local kb=$1
    shift
    (ulimit -f "$kb" && exec timeout 300 "$BIN" "${RUN[@]}" "$@") >/dev/null 2>"$T/err.txt"
    RC=$?
    ERR=$(tr '\n' ' ' <"$T/err.txt" | cut -c1-400)
}

# unchanged DIR SAVED: every file saved before is still there, same bytes
# (but the collection, which lists new frames as they come).
unchanged() {
    local f
    for f in "$2"/frame_* "$2"/checkpoint.state; do
        cmp -s "$f" "$1/$(basename "$f")" || { echo "$(basename "$f") changed or lost; "; return 1; }
    done
}

# A run to step 8 with a checkpoint there; its files saved for comparison.
D=$T/frames
timeout 300 "$BIN" "${RUN[@]}" --steps 8 --out "$D" --checkpoint-every 8 >/dev/null 2>&1
mkdir -p "$T/saved" && cp "$D"/* "$T/saved/"
frame=$(wc -c <"$D/frame_000008.vtu")
ckpt=$(wc -c <"$D/checkpoint.state")
restore() { rm -rf "$D" && mkdir -p "$D" && cp "$T/saved"/* "$D/"; }

# 1. Room for frames, not for the checkpoint due at step 16.
kb=$((frame / 1024 + 2))
if [ $((kb * 1024)) -ge "$ckpt" ]; then
    bad "limit between frame ($frame) and checkpoint ($ckpt bytes)" "the checkpoint is not larger than a frame"
else
    limited "$kb" --steps 24 --out "$D" --resume "$D/checkpoint.state" --checkpoint-every 8
    problems=""
    [ "$RC" -eq 3 ] || problems+="exit $RC, expected 3; "
    printf '%s' "$ERR" | grep -q "$D/checkpoint.state" || problems+="checkpoint not named; "
    printf '%s' "$ERR" | grep -q "File too large" || problems+="no reason; "
    problems+=$(unchanged "$D" "$T/saved")
    [ -s "$D/frame_000016.vtu" ] || problems+="frame 16 missing; "
    grep -q 'file="frame_000016.vtu"' "$D/frames.pvd" || problems+="the collection lacks frame 16; "
    [ -z "$(find "$D" -name '*.tmp')" ] || problems+=".tmp left; "
    [ -z "$problems" ] && ok "ulimit -f $kb KB: the checkpoint at step 16 fails: exit 3, file and reason named, the step-8 checkpoint and every frame intact, no .tmp" ||
        bad "checkpoint over the size limit" "$problems$ERR"
fi

# 2. No room for a frame: the first one after the resume fails.
restore
limited 8 --steps 24 --out "$D" --resume "$D/checkpoint.state" --checkpoint-every 8
problems=""
[ "$RC" -eq 3 ] || problems+="exit $RC, expected 3; "
printf '%s' "$ERR" | grep -q "$D/frame_000012.vtu" || problems+="frame 12 not named; "
printf '%s' "$ERR" | grep -q "File too large" || problems+="no reason; "
problems+=$(unchanged "$D" "$T/saved")
[ ! -e "$D/frame_000012.vtu" ] || problems+="a frame 12 is in place; "
[ -z "$(find "$D" -name '*.tmp')" ] || problems+=".tmp left; "
[ "$(ls "$D" | wc -l)" -eq "$(ls "$T/saved" | wc -l)" ] || problems+="files added; "
[ -z "$problems" ] && ok "ulimit -f 8 KB: frame 12 fails: exit 3, file and reason named, earlier frames, collection and checkpoint intact, nothing added" ||
    bad "frame over the size limit" "$problems$ERR"

# 3. The statistics outgrow the limit part-way: no final CSV, rows kept.
RUN=(run "$SCENE" --quiet --backend cpu)
limited 2 --steps 200 --stats "$T/stats.csv"
problems=""
[ "$RC" -eq 3 ] || problems+="exit $RC, expected 3; "
printf '%s' "$ERR" | grep -q "$T/stats.csv" || problems+="statistics file not named; "
[ ! -e "$T/stats.csv" ] || problems+="a stats.csv is in place; "
head -1 "$T/stats.csv.tmp" 2>/dev/null | grep -q '^step,' || problems+="rows not kept in the .tmp; "
[ -z "$problems" ] && ok "ulimit -f 2 KB: the statistics fail part-way: exit 3, file named, no final CSV, rows in stats.csv.tmp" ||
    bad "statistics over the size limit" "$problems$ERR"

# 3b. The same with checkpoints, on 8 particles (a checkpoint fits in 8 KB,
# the statistics outgrow it and end in a torn row): the last checkpoint
# resumes with the rows up to it, the torn one dropped, and the file equals
# an uninterrupted run's.
cat >"$T/tiny.json" <<'EOF'
{ "sim": { "dt": 0.0005 }, "domain": { "min": [0, 0, 0], "max": [0.3, 0.3, 0.2] },
  "particles": { "spacing": 0.0125 }, "boundary": { "cache_dir": "off" },
  "fluid": [ { "type": "box", "min": [0, 0, 0], "max": [0.025, 0.025, 0.025] } ] }
EOF
RUN=(run "$T/tiny.json" --quiet --backend cpu --steps 200 --checkpoint-every 20 --checkpoint "$T/c3.state")
limited 8 --stats "$T/s3.csv"
problems=""
[ "$RC" -eq 3 ] || problems+="exit $RC, expected 3; "
[ -s "$T/s3.csv.tmp" ] && [ -n "$(tail -c 1 "$T/s3.csv.tmp" | tr -d '\n')" ] ||
    problems+="no torn last row to drop (the test needs one); "
timeout 300 "$BIN" "${RUN[@]}" --stats "$T/s3.csv" --resume "$T/c3.state" >/dev/null 2>"$T/err.txt" ||
    problems+="the resume failed: $(tr '\n' ' ' <"$T/err.txt" | cut -c1-300); "
timeout 300 "$BIN" run "$T/tiny.json" --quiet --backend cpu --steps 200 --stats "$T/s3full.csv" >/dev/null 2>&1
cmp -s "$T/s3.csv" "$T/s3full.csv" || problems+="the resumed statistics differ from an uninterrupted run's; "
[ -z "$problems" ] && ok "ulimit -f 8 KB on the statistics of 8 particles: exit 3; the checkpoint resumes, the torn row dropped, statistics as an uninterrupted run's" ||
    bad "statistics torn, then resumed" "$problems$ERR"
RUN=(run "$SCENE" --quiet --backend cpu)

# 3c. `surface` under a limit below its mesh: exit 3 naming the file, no
# .tmp left (it was killed by SIGXFSZ before: exit 153 and a partial .tmp).
timeout 300 "$BIN" run "$SCENE" --quiet --backend cpu --steps 1 --every 1 --out "$T/sf" >/dev/null 2>&1
(ulimit -f 16 && exec timeout 300 "$BIN" surface "$T/sf/frame_000001.vtu" --out "$T/sf_mesh" --backend cpu --quiet) \
    >/dev/null 2>"$T/err.txt"
RC=$? ERR=$(tr '\n' ' ' <"$T/err.txt" | cut -c1-300)
if [ "$RC" -eq 3 ] && printf '%s' "$ERR" | grep -q "frame_000001.surface.ply: write to '.*frame_000001.surface.ply.tmp' failed: File too large" &&
   [ -z "$(ls "$T/sf_mesh" 2>/dev/null)" ]; then
    ok "ulimit -f 16 KB on surface: exit 3, file and reason named, nothing left in the folder"
else
    bad "surface over the size limit" "exit $RC, left: $(ls "$T/sf_mesh" 2>/dev/null | tr '\n' ' '): $ERR"
fi

# 4. The output folder made read-only while the run writes into it. Root
# ignores permissions, so then the run is made as nobody (setpriv).
AS=()
if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv >/dev/null && AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
R=$T/ro
mkdir -p "$R" && chmod 755 "$R"
[ ${#AS[@]} -gt 0 ] && chown 65534:65534 "$R"
if [ "$(id -u)" -eq 0 ] && [ ${#AS[@]} -eq 0 ]; then
    bad "read-only folder" "running as root without setpriv: cannot make a folder read-only to the run"
elif ! "${AS[@]}" test -x "$BIN"; then
    echo "SKIP read-only folder: $BIN is not reachable by the unprivileged user"
else
    "${AS[@]}" timeout 300 "$BIN" "${RUN[@]}" --steps 1000000 --out "$R" --checkpoint-every 4 >/dev/null 2>"$T/ro.txt" &
    pid=$!
    # Frames come every 100 steps here: the folder turns read-only once
    # the third is written, mid-run (waiting for a name that never comes
    # let the run go on for the whole minute of the wait).
    for ((k = 0; k < 600; k++)); do
        [ -e "$R/frame_000200.vtu" ] && break
        sleep 0.1
    done
    chmod 555 "$R"
    wait "$pid"
    RC=$?
    ERR=$(tr '\n' ' ' <"$T/ro.txt" | cut -c1-400)
    chmod 755 "$R"
    problems=""
    [ "$RC" -eq 3 ] || problems+="exit $RC, expected 3; "
    printf '%s' "$ERR" | grep -q "$R/" || problems+="no file in the folder named; "
    printf '%s' "$ERR" | grep -q "Permission denied" || problems+="no reason; "
    # Made read-only between a temporary's creation and its rename, the
    # temporary cannot be removed either: then the message must name it.
    for f in $(find "$R" -name '*.tmp'); do
        printf '%s' "$ERR" | grep -q "temporary '$f' could not be removed" || problems+="$f left unnamed; "
    done
    size0=$(wc -c <"$R/frame_000000.vtu")
    for f in "$R"/frame_*.vtu; do
        sz=$(wc -c <"$f")
        [ $((sz - size0)) -le 64 ] && [ $((size0 - sz)) -le 64 ] || problems+="$(basename "$f") is $sz bytes; "
    done
    last=$(ls "$R"/frame_*.vtu | tail -1 | sed 's/.*frame_0*\([0-9][0-9]*\).vtu/\1/')
    # The checkpoint (every 4 steps) lies after the last frame (every 100).
    timeout 300 "$BIN" "${RUN[@]}" --steps $((last + 104)) --out "$T/ro2" --resume "$R/checkpoint.state" \
        >/dev/null 2>&1 || problems+="the last checkpoint does not resume; "
    [ -z "$problems" ] && ok "folder made read-only after frame $last: exit 3, file and reason named, frames whole, no .tmp, the last checkpoint resumes" ||
        bad "read-only folder" "$problems$ERR"
    # A new --out folder under a read-only one: the reason is mkdir's
    # (it said "No such file or directory", the errno of a stat after it).
    chmod 555 "$R"
    "${AS[@]}" timeout 60 "$BIN" "${RUN[@]}" --steps 1 --out "$R/sub" >/dev/null 2>"$T/ro.txt"
    RC=$?
    chmod 755 "$R"
    ERR=$(tr '\n' ' ' <"$T/ro.txt" | cut -c1-400)
    [ "$RC" -ne 0 ] && printf '%s' "$ERR" | grep -q "cannot create directory '$R/sub': Permission denied" &&
        ok "an --out folder under a read-only one: exit $RC, 'Permission denied'" ||
        bad "--out under a read-only folder" "exit $RC: $ERR"
fi

checks_done
