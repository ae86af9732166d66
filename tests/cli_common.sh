# cli_common.sh - what test_cli.sh, test_cli_more.sh and test_cli_review.sh
# share: the binary from $1, a scratch folder $T (removed on exit), fl (run fluidcl, setting
# RC, OUT and ERR), errline, scene (a small scene file), GOOD (a 600-particle
# one) and refused (a bad input: exit 2, its needles in stderr, nothing
# written). Sourced, with the test's own arguments.
if [ $# -lt 1 ] || [ -z "$1" ]; then
    echo "usage: $0 path/to/fluidcl" >&2
    exit 2
fi
BIN=$1
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
if [ ! -x "$BIN" ]; then
    echo "FAIL - fluidcl binary '$BIN' is not an executable file"
    echo "0 passed, 1 failed"
    exit 1
fi

SRC=$(cd "$(dirname "$0")/../kernels" && pwd) || exit 1
. "$(cd "$(dirname "$0")" && pwd)/checks.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/fluidcl_cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
cd "$T" || exit 1


# Every invocation is bounded, so a hang is a failure and not a stuck test.
TIMEOUT=()
command -v timeout >/dev/null 2>&1 && TIMEOUT=(timeout 120)

# fl ARGS...: run fluidcl; sets RC, OUT (stdout text), ERR (stderr text).
fl() {
    "${TIMEOUT[@]}" "$BIN" "$@" >"$T/stdout.txt" 2>"$T/stderr.txt"
    RC=$?
    OUT=$(cat "$T/stdout.txt")
    ERR=$(cat "$T/stderr.txt")
}

# Short one-line rendering of stderr for FAIL messages.
errline() { printf '%s' "$ERR" | tr '\n' ' ' | cut -c1-400; }

# ---- scenes -------------------------------------------------------------

# scene FILE SIM DOMAIN PARTICLES MATERIAL FLUID: writes a scene whose lines
# are, in order: 1 "{", 2 name, 3 sim, 4 domain, 5 particles, 6 material,
# 7 fluid, 8 "}". Empty arguments get small, stable defaults.
scene() {
    local file=$1 sim=${2:-'{ "dt": 0.0005 }'} dom=${3:-'{ "min": [0, 0, 0], "max": [0.2, 0.2, 0.2] }'}
    local prt=${4:-'{ "spacing": 0.02 }'} mat=${5:-'{ "stiffness": 1000 }'}
    local fld=${6:-'[ { "type": "box", "min": [0, 0, 0], "max": [0.2, 0.12, 0.2] } ]'}
    cat >"$file" <<EOF
{
  "name": "cli test",
  "sim": $sim,
  "domain": $dom,
  "particles": $prt,
  "material": $mat,
  "fluid": $fld
}
EOF
}


GOOD=$T/good.json          # 10 x 6 x 10 = 600 particles
scene "$GOOD"
GOOD_N=600

# ---- refusals -------------------------------------------------------------

n=0
# refused DESC OUTDIR STATSFILE NEEDLE... -- RUN-ARGS...
# Runs `fluidcl run RUN-ARGS --backend cpu --steps 3 --quiet --out OUTDIR
# --stats STATSFILE` and expects exit 2, every NEEDLE in stderr, no summary
# on stdout, OUTDIR not created, and neither STATSFILE (unless it existed
# before) nor its .tmp present.
refused() {
    local desc=$1 out=$2 stats=$3 needles=() problems=""
    shift 3
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do needles+=("$1"); shift; done
    shift
    local pre=0
    [ -e "$stats" ] && pre=1   # 8c: STATSFILE is a folder made beforehand
    local t0=$SECONDS
    fl run "$@" --backend cpu --steps 3 --quiet --out "$out" --stats "$stats"
    LAST_SECONDS=$((SECONDS - t0))
    [ "$RC" -eq 2 ] || problems+="exit $RC, expected 2; "
    local k
    for k in "${needles[@]}"; do
        case $ERR in *"$k"*) ;; *) problems+="stderr lacks '$k'; " ;; esac
    done
    case $OUT in *"simulated time"*) problems+="a run summary was printed; " ;; esac
    [ -e "$out" ] && problems+="output folder '$out' was created; "
    [ "$pre" -eq 0 ] && [ -e "$stats" ] && problems+="stats file '$stats' was written; "
    [ -e "$stats.tmp" ] && problems+="stats file '$stats.tmp' was written; "
    if [ -z "$problems" ]; then
        ok "$desc"
    else
        bad "$desc" "${problems}stderr: $(errline)"
    fi
}
next() { n=$((n + 1)); O=$T/frames_$n; S=$T/stats_$n.csv; }

