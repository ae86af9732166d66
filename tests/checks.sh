# checks.sh - the shell tests' counters, sourced by tests/test_*.sh:
# ok DESC, bad DESC WHY, and checks_done, which prints the closing
# "N passed, M failed" line and returns non-zero when anything failed;
# and CUBE, a unit cube's OBJ text that several of them write.
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1 ($2)"; }
checks_done() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

# A unit cube as OBJ, closed, faces outward (scaled and placed by scenes).
CUBE='v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
f 1 4 3
f 1 3 2
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 4 8 7
f 4 7 3
f 1 5 8
f 1 8 4
f 2 3 7
f 2 7 6'
