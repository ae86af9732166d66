#!/usr/bin/env bash
# test_devices.sh - the backend-agreement tests on every OpenCL device
# present besides the default one (which every other test runs on): each
# of the tests below runs once per such device, the device picked by
# FCL_TEST_DEVICE (tests/fcl_test.h). Mesa's rusticl is enabled on
# llvmpipe (RUSTICL_ENABLE=llvmpipe) unless the caller says otherwise, so
# on Debian with mesa-opencl-icd this is rusticl beside PoCL.
# Skips (77) when the machine has no second device.
#
# usage: bash tests/test_devices.sh BUILD_DIR
set -u
BUILD=$1
FL=$BUILD/fluidcl
. "$(cd "$(dirname "$0")" && pwd)/checks.sh"
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}
# Mesa 22.3's rusticl on llvmpipe lets a kernel start before the previous
# one on the same in-order queue has finished when llvmpipe runs several
# threads (README: Tests, "rusticl"); one thread keeps the kernels' own
# results under test. Set LP_NUM_THREADS to see the overlap.
export LP_NUM_THREADS=${LP_NUM_THREADS:-1}
TESTS="test_backends test_solvers test_nlist test_reduce test_grid test_solids test_surface_flag test_surface test_surface_band"

# "INDEX TYPE NAME" per device, from `fluidcl devices`.
devices=$("$FL" devices 2>/dev/null | awk '
    /^\[[0-9]+\] / { idx = substr($1, 2, length($1) - 2); name = $0; sub(/^\[[0-9]+\] /, "", name) }
    /^    type: / { type = $2; sub(/,$/, "", type); print idx, type, name }')
# The default device, as backend_create picks it: the first GPU, else the
# first CPU device.
default=$(printf '%s\n' "$devices" | awk '$2 == "GPU" { print $1; exit }')
[ -n "$default" ] || default=$(printf '%s\n' "$devices" | awk '$2 == "CPU" { print $1; exit }')
others=$(printf '%s\n' "$devices" | awk -v d="$default" 'NF && $1 != d')
if [ -z "$others" ]; then
    echo "SKIP: no OpenCL device besides the default one (devices: ${devices:-none})"
    exit 77
fi

while read -r idx type name; do
    for t in $TESTS; do
        start=$(date +%s%N)
        FCL_TEST_DEVICE=$idx timeout 900 "$BUILD/tests/$t" >"$BUILD/$t.device$idx.log" 2>&1
        rc=$?
        ms=$((($(date +%s%N) - start) / 1000000))
        used=$(sed -n 's/^OpenCL device: //p' "$BUILD/$t.device$idx.log" | head -1)
        last=$(tail -n 1 "$BUILD/$t.device$idx.log")
        if [ "$rc" -eq 0 ] && [ "${used#"$name"}" != "$used" ]; then
            ok "$t on [$idx] $name: $last ($((ms / 1000)).$((ms % 1000 / 100)) s)"
        else
            bad "$t on [$idx] $name" "exit $rc, ran on '$used': $(grep -m 3 FAIL "$BUILD/$t.device$idx.log" | tr '\n' ' ') $last; log $BUILD/$t.device$idx.log"
        fi
    done
    # opencl.workgroup above a kernel's own limit (CL_KERNEL_WORK_GROUP_SIZE:
    # rusticl reports 32 for grid_clear, a GPU less than 1024 for its
    # register-heavy passes) runs in groups of that limit, said once; and
    # in the same bench (one kernel build: about 17 s on rusticl), a device
    # whose profiling timestamps do not cover its kernels (rusticl 22: 2e-5
    # ms of an 11 ms step) is told of in a note and in the JSON, one whose
    # do is not (bench printed rusticl's zeros without a word).
    rm -f "$BUILD/devices_bench.json"
    out=$(timeout 300 "$FL" bench embedded:dam_break.json --backend opencl --device "$idx" --steps 3 --quiet \
          --param particles.spacing=0.05 --param opencl.workgroup=1024 --json "$BUILD/devices_bench.json" 2>&1 >/dev/null)
    rc=$?
    notes=$(printf '%s\n' "$out" | grep -c "opencl.workgroup = 1024 is above the")
    limit=$(printf '%s\n' "$out" | sed -n 's/.*is above the \([0-9]*\) work items kernel \([a-z_0-9]*\) takes.*/\2 \1/p')
    if [ "$rc" -eq 0 ] && [ "$notes" -le 1 ]; then
        ok "opencl.workgroup 1024 on [$idx] $name runs (${limit:-every kernel takes 1024})"
    else
        bad "opencl.workgroup 1024 on [$idx] $name" "exit $rc, $notes notes: $(printf '%s' "$out" | tail -2 | tr '\n' ' ')"
    fi
    verdict=$(python3 - "$BUILD/devices_bench.json" <<'PY' 2>&1
import json, sys
b = json.load(open(sys.argv[1]))["backends"][0]
low = b["sum_of_passes_ms"] < 0.01 * b["wall_ms_per_step"]
print("unusable" if b["pass_timers_unusable"] else "usable", "agrees" if b["pass_timers_unusable"] == low else "DISAGREES",
      "%.3g of %.3g ms" % (b["sum_of_passes_ms"], b["wall_ms_per_step"]))
PY
)
    noted=$(printf '%s\n' "$out" | grep -c "profiling timestamps do not cover its kernels")
    if [ "$rc" -eq 0 ] && case "$verdict" in "unusable agrees"*) [ "$noted" = 1 ] ;; "usable agrees"*) [ "$noted" = 0 ] ;; *) false ;; esac; then
        ok "bench on [$idx] $name: pass timers $verdict, noted $noted times"
    else
        bad "bench's pass timers on [$idx] $name" "exit $rc, $verdict, noted $noted: $(printf '%s' "$out" | tail -2 | tr '\n' ' ')"
    fi
done <<<"$others"

# A --device name that matches several devices is refused by run, listing
# them ("l" took PoCL's "skylake" beside rusticl's llvmpipe without a word;
# a review); the letter here is the first that two devices' names or
# platforms share.
letter=$("$FL" devices 2>/dev/null | python3 -c '
import re, sys
devs, cur = [], None
for line in sys.stdin:
    m = re.match(r"^\[\d+\] (.*)", line)
    if m:
        cur = [m.group(1)]; devs.append(cur)
    elif cur is not None and line.startswith("    platform: "):
        cur.append(line[14:].strip())
for c in "abcdefghijklmnopqrstuvwxyz":
    if sum(any(c in t.lower() for t in d) for d in devs) >= 2:
        print(c); break')
if [ -n "$letter" ]; then
    out=$(timeout 120 "$FL" run embedded:dam_break.json --backend opencl --device "$letter" --steps 1 --quiet 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -eq 2 ] && printf '%s' "$out" | grep -q -- "--device '$letter': [0-9]* devices match: \[" ; then
        ok "run --device '$letter', matching several devices, is refused listing them"
    else
        bad "run --device '$letter' (several devices)" "exit $rc: $(printf '%s' "$out" | tail -2 | tr '\n' ' ')"
    fi
fi
checks_done
