# checks.sh - the shell tests' counters, sourced by tests/test_*.sh:
# ok DESC, bad DESC WHY, and checks_done, which prints the closing
# "N passed, M failed" line and returns non-zero when anything failed.
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1 ($2)"; }
checks_done() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
