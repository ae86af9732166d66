#!/usr/bin/env bash
# run_long.sh - the long fuzz runs the README reports: each harness in turn
# (never two at once: the machine is shared), at nice 19, for RUNS
# executions (1 s of CPU time per input at most, fuzz_clock.h; 30 s of wall
# time, which a busy machine stretches, for hangs), from the seeds and the corpus
# of earlier runs. Logs and findings go to BUILD/long_NAME.log and
# BUILD/findings_NAME/.
#
# usage: bash tests/fuzz/run_long.sh BUILD [RUNS] [NAME...]
#        (BUILD: the configured and built tests/fuzz project)
set -u
B=$1
RUNS=${2:-10000000}
shift 2 2>/dev/null || shift $#
SRC=$(cd "$(dirname "$0")" && pwd)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(scene obj vtk ply param)
status=0
for h in "${names[@]}"; do
    mkdir -p "$B/corpus_$h" "$B/findings_$h"
    t0=$(date +%s)
    nice -n 19 "$B/fuzz_$h" -runs="$RUNS" -timeout=30 -dict="$SRC/$h.dict" -print_final_stats=1 \
        -artifact_prefix="$B/findings_$h/" "$B/corpus_$h" "$SRC/seeds/$h" >"$B/long_$h.log" 2>&1
    rc=$?
    echo "fuzz_$h: exit $rc, $(( $(date +%s) - t0 )) s, $(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$B/long_$h.log")"
    [ $rc -eq 0 ] || status=1
done
exit $status
