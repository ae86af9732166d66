#!/usr/bin/env bash
# test_passes.sh - the typed launchers generated from kernels/passes.def
# (host/backend/passes.h) let the C compiler catch a wrong launch: three
# snippets are compiled with -fsyntax-only -Werror, one correct call (must
# compile), one with an argument missing and one passing a fcl_grid_info
# where fcl_sph_consts belongs (both must fail, naming the launcher).
# usage: test_passes.sh CC SOURCE_DIR
set -uo pipefail
CC=$1
SRC=$2
T=$(mktemp -d /tmp/fluidcl_passes.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(cd "$(dirname "$0")" && pwd)/checks.sh"

# snippet NAME CALL: a translation unit that launches one pass.
snippet() {
    cat >"$T/$1.c" <<EOS
#include "passes.h"
int launch(fcl_backend *be, fcl_buf *pos, fcl_buf *rho, fcl_buf *start, fcl_buf *normals, fcl_grid_info g,
           fcl_sph_consts c);
int launch(fcl_backend *be, fcl_buf *pos, fcl_buf *rho, fcl_buf *start, fcl_buf *normals, fcl_grid_info g,
           fcl_sph_consts c)
{
    return $2;
}
EOS
    "$CC" -std=c11 -fsyntax-only -Wall -Wextra -Werror -I"$SRC/host/backend" -I"$SRC/host/core" -I"$SRC/kernels" "$T/$1.c" >"$T/$1.log" 2>&1
}

snippet good 'pass_forces_normals(be, 10, "forces", pos, rho, start, normals, g, c)'
[ $? -eq 0 ] && ok "1 a correct launcher call compiles" || bad "1 correct call" "$(head -5 "$T/good.log")"

snippet missing 'pass_forces_normals(be, 10, "forces", pos, rho, start, normals, g)'
if [ $? -ne 0 ] && grep -q "pass_forces_normals" "$T/missing.log" && grep -qi "too few arguments" "$T/missing.log"; then
    ok "2 a missing argument fails to compile: $(grep -m1 -i 'too few' "$T/missing.log" | sed 's/.*error: //')"
else
    bad "2 missing argument" "compiled, or another error: $(head -3 "$T/missing.log")"
fi

snippet wrongtype 'pass_forces_normals(be, 10, "forces", pos, rho, start, normals, g, g)'
if [ $? -ne 0 ] && grep -q "fcl_sph_consts" "$T/wrongtype.log"; then
    ok "3 a fcl_grid_info for fcl_sph_consts fails to compile: $(grep -m1 'error' "$T/wrongtype.log" | sed 's/.*error: //')"
else
    bad "3 wrong value type" "compiled, or another error: $(head -3 "$T/wrongtype.log")"
fi
checks_done
