#!/bin/bash
# gpu.sh - the test suite and the benches on a GPU machine that has only a
# driver (no Debian packages), from a relocatable build made elsewhere:
#   cmake -S . -B build-portable -DCMAKE_BUILD_TYPE=Release -DFCL_NATIVE=OFF
#   cmake --build build-portable -j && cmake --install build-portable --prefix build-portable/install
#   (copy the tree with build-portable to the GPU machine)
#   bash tests/gpu.sh build-portable OUTDIR [suite|bench|goals|all]
# The bundled libraries (install/lib) serve the test binaries too; the
# driver's OpenCL library is found as fluidcl-env.sh finds it. ctest's
# files name the source folder the build was configured in: when the tree
# now lies elsewhere, that path is made a link to it (root only).
# FCL_OPENCL_LIB names another library than NVIDIA's.
# goals: the issues' GPU goals not yet met, in one run (about a minute on an H200):
# MPS on a developed flow at 1M (560 steps from rest, then each
# preconditioner from that frame), the MAC drop at 256^3, and DFSPH at 1M
# timed by run, without profiling events (22 steps, and 0.5 s of the
# flow), and MPS at 1M by run with Jacobi and the two-level grid.
# Logs, bench tables and JSON go to OUTDIR, and all of them into
# OUTDIR/results.tar.gz. Viewer, reader, package, pass-compiler
# and two-device tests are left out: they need Xvfb, meshio, a compiler
# tree or PoCL, which such a machine lacks.
set -u
build=$(cd "${1:?usage: gpu.sh BUILD OUTDIR [suite|bench|goals|all]}" && pwd)
out=$(mkdir -p "${2:?usage: gpu.sh BUILD OUTDIR}" && cd "$2" && pwd)
what=${3:-all}
here=$(cd "$(dirname "$0")/.." && pwd)
inst=$build/install
lib=${FCL_OPENCL_LIB:-}   # another vendor's library (a check here: PoCL's)
for l in ldconfig /sbin/ldconfig /usr/sbin/ldconfig; do
  [ -n "$lib" ] || lib=$($l -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1/ {print $NF; exit}') || lib=
done
for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64; do
  [ -n "$lib" ] || [ ! -e "$d/libnvidia-opencl.so.1" ] || lib=$d/libnvidia-opencl.so.1
done
[ -n "$lib" ] || { echo "gpu.sh: libnvidia-opencl.so.1 not found" >&2; exit 2; }
icd=$(mktemp -d); echo "$lib" > "$icd/nvidia.icd"
export OCL_ICD_VENDORS=$icd LD_LIBRARY_PATH=$inst/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
src=$(awk -F= '/^CMAKE_HOME_DIRECTORY/ {print $2}' "$build/CMakeCache.txt")
if [ "$src" != "$here" ] && [ ! -e "$src" ]; then
  mkdir -p "$(dirname "$src")" && ln -s "$here" "$src"
fi
fcl=$inst/bin/fluidcl
"$fcl" devices 2>&1 | tee "$out/devices.txt"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 | tee -a "$out/devices.txt"

bench() { # name scene steps [args...]
  local name=$1 scene=$2 steps=$3; shift 3
  echo "== $name"
  timeout 120 "$fcl" bench "$scene" --backend opencl --steps "$steps" --json "$out/$name.json" "$@" \
    > "$out/$name.txt" 2>&1
  echo "exit $?"; grep -vE "^(grid-|boundary |stats |$)" "$out/$name.txt" | tail -28
}
if [ "$what" = bench ] || [ "$what" = all ]; then
  s=$here/scenes
  bench wcsph_1m embedded:dam_break_1m.json 20
  bench dfsph_1m "$s/dam_break_model.json" 20 --param particles.spacing=0.0098
  bench dfsph_1m_xsph "$s/dam_break_model.json" 20 --param particles.spacing=0.0098 \
    --param dfsph.viscosity=0 --param dfsph.xsph=0.01 --param dfsph.min_iter_v=2
  bench pbf_1m "$s/dam_break_model.json" 20 --solver pbf --param particles.spacing=0.0098
  bench mps_1m "$s/dam_break_model_mps.json" 10 --param particles.spacing=0.0098
  bench mac_128 "$s/mac_drop_pool.json" 10 --param particles.spacing=0.00234375
  echo "== dfsph DamBreakModel 1.5 s"
  timeout 120 "$fcl" run "$s/dam_break_model.json" --time 1.5 --quiet > "$out/dbm_run.txt" 2>&1
  echo "exit $?"; cat "$out/dbm_run.txt"
fi
if [ "$what" = goals ] || [ "$what" = all ]; then
  s=$here/scenes dev=$(mktemp -d)
  echo "== mps 1M: 560 steps from rest (grid, as the README's frame)"; t0=$(date +%s)
  timeout 200 "$fcl" run "$s/dam_break_model_mps.json" --backend opencl --param particles.spacing=0.0098 \
    --param mps.preconditioner=grid --steps 560 --every 560 --out "$dev" --quiet > "$out/mps_1m_run.txt" 2>&1
  echo "exit $? after $(( $(date +%s) - t0 )) s"; cat "$out/mps_1m_run.txt"
  for pc in grid jacobi poly; do
    bench "mps_1m_dev_$pc" "$s/dam_break_model_mps.json" 10 --param particles.spacing=0.0098 \
      --from "$dev/frame_000560.vtu" --param mps.preconditioner=$pc
  done
  rm -rf "$dev"
  bench mac_256 "$s/mac_drop_pool.json" 3 --param particles.spacing=0.001171875
  # run times no pass (no profiling event a launch): its wall per step
  # beside bench's for DFSPH at 1M
  echo "== dfsph 1M, run (22 steps)"
  timeout 120 "$fcl" run "$s/dam_break_model.json" --backend opencl --param particles.spacing=0.0098 \
    --steps 22 --quiet > "$out/dfsph_1m_run.txt" 2>&1
  echo "exit $?"; cat "$out/dfsph_1m_run.txt"
  echo "== dfsph 1M, run 0.5 s (the front through the tank)"
  timeout 120 "$fcl" run "$s/dam_break_model.json" --backend opencl --param particles.spacing=0.0098 \
    --time 0.5 --quiet > "$out/dfsph_1m_run05.txt" 2>&1
  echo "exit $?"; cat "$out/dfsph_1m_run05.txt"
  # MPS by run, each preconditioner: 600 steps less 560 are 40 developed
  # steps without profiling events (the same steps: one device, one binary)
  for pc in jacobi grid; do
    for n in 560 600; do
      echo "== mps 1M, run $n steps, $pc"
      timeout 120 "$fcl" run "$s/dam_break_model_mps.json" --backend opencl --param particles.spacing=0.0098 \
        --param mps.preconditioner=$pc --steps $n --quiet > "$out/mps_1m_run_${pc}_$n.txt" 2>&1
      echo "exit $?"; grep -E "^(wall time|CG iterations|steps)" "$out/mps_1m_run_${pc}_$n.txt"
    done
  done
fi
if [ "$what" = suite ] || [ "$what" = all ]; then
  # 8 tests at a time, 2 OpenMP threads each: with the native backend's
  # default of one thread per core, 8 tests on 16 cores oversubscribed them
  # and test_mps alone outlasted 300 s on an H200 machine.
  (cd "$build" && OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} timeout ${FCL_SUITE_TIMEOUT:-400} ctest -j8 --timeout 300 --output-on-failure \
     -E 'test_view|test_readers|test_package|test_passes|test_devices') > "$out/ctest.log" 2>&1
  echo "ctest exit $?"; tail -15 "$out/ctest.log"
fi

rm -rf "$icd"
(cd "$out" && tar czf results.tar.gz --exclude=results.tar.gz .)
