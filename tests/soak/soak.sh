#!/usr/bin/env bash
# soak.sh - issue 15's soak, run by hand (not in CI): a small scene for
# STEPS steps (default 10^6) on one backend, sampling the process's
# resident memory every 10 s; at the end it prints the memory at the
# first sample after start-up, the largest and the last, the particle
# count and mass from the run's summary, and whether it finished.
#
# usage: bash tests/soak/soak.sh path/to/fluidcl cpu|opencl [STEPS]
set -u
BIN=${1:?usage: $0 path/to/fluidcl cpu|opencl [STEPS]}
BACKEND=${2:?backend}
STEPS=${3:-1000000}
T=$(mktemp -d "${TMPDIR:-/tmp}/fluidcl_soak.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cat >"$T/soak.json" <<'JSON'
{ "name": "soak", "sim": { "solver": "wcsph", "dt": 0.0005 },
  "domain": { "min": [0, 0, 0], "max": [0.1, 0.1, 0.1] },
  "particles": { "spacing": 0.01 }, "boundary": { "walls": "mirror", "cache_dir": "off" },
  "material": { "viscosity": 5.0 },
  "fluid": [ { "type": "box", "min": [0, 0, 0], "max": [0.05, 0.05, 0.05] } ] }
JSON
"$BIN" run "$T/soak.json" --backend "$BACKEND" --steps "$STEPS" --quiet --stats "$T/stats.csv" >"$T/out.txt" 2>"$T/err.txt" &
PID=$!
: >"$T/rss"
while kill -0 "$PID" 2>/dev/null; do
    awk '/VmRSS/ { print $2 }' "/proc/$PID/status" 2>/dev/null >>"$T/rss"
    sleep 10
done
wait "$PID"
RC=$?
echo "exit $RC after $STEPS steps on $BACKEND"
grep -E "particles|steps|simulated|wall time|density error" "$T/out.txt"
awk 'NR == 2 { first = $1 } { if ($1 > max) max = $1; last = $1; n++ }
     END { printf "resident memory (kB): first sample after start-up %d, largest %d, last %d (%d samples)\n", first, max, last, n }' "$T/rss"
tail -n 1 "$T/stats.csv" | cut -d, -f1-6
grep -v '^$' "$T/err.txt" | tail -n 3
