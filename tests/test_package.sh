#!/usr/bin/env bash
# test_package.sh - the relocatable install (README: Relocatable build).
# Installs the build into a scratch prefix with `cmake --install` and
# checks that the binary carries an $ORIGIN-relative RPATH, that every
# shared library it needs outside the C library and OpenGL resolves inside
# PREFIX/lib with an empty environment, that the installed binary runs,
# and that a vendor OpenCL library named through OCL_ICD_VENDORS (here
# PoCL's, by absolute path) is used by the bundled loader, directly,
# through bin/fluidcl-env.sh and as OCL_ICD_VENDORS=LIBRARY. The prefix is
# then moved, to show that nothing depends on where it was installed. It
# also checks that the build tree's binary has no empty RPATH element.
# usage: test_package.sh BUILD_DIR
set -uo pipefail
BUILD=$1
T=$(mktemp -d /tmp/fluidcl_pkg.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(cd "$(dirname "$0")" && pwd)/checks.sh"

if ! cmake --install "$BUILD" --prefix "$T/a" >"$T/install.log" 2>&1; then
    bad "1 cmake --install" "$(tail -3 "$T/install.log")"
    checks_done
    exit 1
fi
mv "$T/a" "$T/moved"
P=$T/moved
ok "1 cmake --install into a scratch prefix (then moved)"

rpath=$(readelf -d "$P/bin/fluidcl" | sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p')
[ "$rpath" = '$ORIGIN/../lib' ] && ok "2 RPATH is \$ORIGIN/../lib" || bad "2 RPATH" "got '$rpath'"
# The build tree's binary too: an empty element (CMake's placeholder of
# colons) would make the loader search the current directory.
brpath=$(readelf -d "$BUILD/fluidcl" | sed -n 's/.*(R[A-Z]*PATH).*\[\(.*\)\]/\1/p')
case ":$brpath:" in
    *::*) bad "2b build-tree RPATH has no empty element" "got '$brpath'" ;;
    *) ok "2b build-tree RPATH has no empty element ('$brpath')" ;;
esac

# Every resolved library outside the C library and OpenGL comes from
# PREFIX/lib, none is missing.
# ldd prints paths through bin/../lib: compare canonical paths.
libs() { env -i "$(command -v ldd)" "$P/bin/fluidcl" | awk '$2 == "=>" { print $1, $3 }'; }
outside=$(libs | while read -r name path; do
    case "$name" in libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|ld-linux*|libGL*|libEGL*|libOpenGL*) continue ;; esac
    real=$(realpath -m "$path" 2>/dev/null)
    [ "${real#"$P/lib/"}" != "$real" ] || echo "$name -> $path"
done)
[ -z "$outside" ] && ok "3 every bundled library resolves inside PREFIX/lib" || bad "3 libraries outside" "$outside"

out=$(env -i "$P/bin/fluidcl" help solvers 2>&1)
printf '%s\n' "$out" | grep -q '^dfsph' && ok "4 installed fluidcl help solvers" || bad "4 help solvers" "$out"
out=$(env -i HOME="$T" "$P/bin/fluidcl" run embedded:dam_break.json --backend cpu --steps 2 --quiet \
      --param boundary.cache_dir=off 2>&1)
rc=$?
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq '^steps +2 ' && ok "5 installed fluidcl runs 2 steps" ||
    bad "5 run" "exit $rc: $(printf '%s' "$out" | tail -2)"

# A vendor library by absolute path through the bundled ocl-icd loader.
pocl=$(ldconfig -p | awk '/libpocl\.so\.2 / {print $NF; exit}')
if [ -z "$pocl" ]; then
    echo "SKIP 6-9: no libpocl.so.2 on this machine"
else
    mkdir -p "$T/icd" && echo "$pocl" >"$T/icd/pocl.icd"
    out=$(env -i HOME="$T" OCL_ICD_VENDORS="$T/icd" "$P/bin/fluidcl" devices 2>&1)
    loader=$(realpath -m "$(libs | awk '/libOpenCL/ {print $2}')")
    printf '%s\n' "$out" | grep -qi 'portable computing language\|pthread' && [ "${loader#"$P/lib/"}" != "$loader" ] &&
        ok "6 OCL_ICD_VENDORS names PoCL to the bundled loader ($loader)" || bad "6 vendor ICD" "loader $loader: $out"
    out=$(env -i HOME="$T" PATH=/usr/bin:/bin "$P/bin/fluidcl-env.sh" "$pocl" fluidcl devices 2>&1)
    printf '%s\n' "$out" | grep -qi 'portable computing language\|pthread' && ok "7 fluidcl-env.sh LIB fluidcl devices" ||
        bad "7 fluidcl-env.sh" "$out"
    # The library by its name alone is the loader's to find; a path that
    # is not there is named (both were "no OpenCL library given").
    out=$(env -i HOME="$T" PATH=/usr/bin:/bin "$P/bin/fluidcl-env.sh" libpocl.so.2 fluidcl devices 2>&1)
    printf '%s\n' "$out" | grep -qi 'portable computing language\|pthread' && ok "7 fluidcl-env.sh libpocl.so.2 (a bare name)" ||
        bad "7 fluidcl-env.sh bare name" "$out"
    out=$(env -i HOME="$T" PATH=/usr/bin:/bin "$P/bin/fluidcl-env.sh" /no/such/lib.so fluidcl devices 2>&1); rc=$?
    [ "$rc" -eq 2 ] && printf '%s\n' "$out" | grep -q "/no/such/lib.so: no such file" &&
        ok "7 fluidcl-env.sh with a missing library path: exit 2 naming it" || bad "7 fluidcl-env.sh missing" "exit $rc: $out"
    # A command given by path is the command, not the library (it was
    # written into the .icd file, and "devices: not found" exited 0): with
    # no library named, NVIDIA's is looked for.
    out=$(env -i HOME="$T" PATH=/usr/bin:/bin "$P/bin/fluidcl-env.sh" "$P/bin/fluidcl" devices 2>&1); rc=$?
    if /sbin/ldconfig -p 2>/dev/null | grep -q libnvidia-opencl.so.1; then
        want=0 said="devices listed"; printf '%s\n' "$out" | grep -q "not found" && said=
    else
        want=2 said=; printf '%s\n' "$out" | grep -q "libnvidia-opencl.so.1 not found" && said="NVIDIA's library looked for"
    fi
    [ "$rc" -eq "$want" ] && [ -n "$said" ] && ok "7 fluidcl-env.sh BIN/fluidcl devices: the path is the command ($said)" ||
        bad "7 fluidcl-env.sh command by path" "exit $rc (expected $want): $out"
    # The control: an OCL_ICD_VENDORS folder with no .icd file gives no
    # device, so check 6's PoCL came from the named file, not from
    # /etc/OpenCL/vendors.
    mkdir -p "$T/empty"
    out=$(env -i HOME="$T" OCL_ICD_VENDORS="$T/empty" "$P/bin/fluidcl" devices 2>&1)
    printf '%s\n' "$out" | grep -qi 'portable computing language' && bad "8 empty OCL_ICD_VENDORS" "$out" ||
        ok "8 an empty OCL_ICD_VENDORS folder gives no PoCL device"
    # ocl-icd also takes the library itself (OCL_ICD_FILENAMES is the
    # Khronos loader's variable; ocl-icd 2.3.1 ignores it).
    out=$(env -i HOME="$T" OCL_ICD_VENDORS="$pocl" "$P/bin/fluidcl" devices 2>&1)
    printf '%s\n' "$out" | grep -qi 'portable computing language' && ok "9 OCL_ICD_VENDORS=$pocl" ||
        bad "9 OCL_ICD_VENDORS=LIBRARY" "$out"
fi
checks_done
