#!/usr/bin/env bash
# smoke.sh - CI's fuzz smoke: builds the harnesses (clang, libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer) into BUILD and runs each
# for SECONDS from the seed corpus with its dictionary, JOBS at a time.
# Any crash, sanitizer report, input over 1 s of CPU (fuzz_clock.h) or
# hang over 30 s of wall time fails it; the finding is kept in
# BUILD/smoke_NAME/ and its log in BUILD/smoke_NAME.log.
#
# usage: bash tests/fuzz/smoke.sh [BUILD] [SECONDS] [JOBS]
set -u
SRC=$(cd "$(dirname "$0")" && pwd)
B=${1:-$SRC/../../build-fuzz}
SECS=${2:-60}
JOBS=${3:-2}
cmake -S "$SRC" -B "$B" -DCMAKE_C_COMPILER=clang >/dev/null || exit 1
cmake --build "$B" -j"$(nproc)" >/dev/null || exit 1

one() {
    local h=$1
    rm -rf "$B/smoke_$h" "$B/smoke_corpus_$h"
    mkdir -p "$B/smoke_$h" "$B/smoke_corpus_$h"
    "$B/fuzz_$h" -max_total_time="$SECS" -timeout=30 -dict="$SRC/$h.dict" -print_final_stats=1 \
        -artifact_prefix="$B/smoke_$h/" "$B/smoke_corpus_$h" "$SRC/seeds/$h" >"$B/smoke_$h.log" 2>&1
    local rc=$? runs
    runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$B/smoke_$h.log" | grep -o '[0-9]*$')
    if [ $rc -eq 0 ]; then
        echo "ok - fuzz_$h: ${runs:-?} executions in $SECS s, no finding"
    else
        echo "FAIL - fuzz_$h: exit $rc; $(grep -m1 -E 'ERROR|runtime error|fuzz:' "$B/smoke_$h.log")"
    fi
    return $rc
}

status=0
pids=()
for h in scene obj vtk ply param; do
    one "$h" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$JOBS" ]; then
        wait "${pids[0]}" || status=1
        pids=("${pids[@]:1}")
    fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
