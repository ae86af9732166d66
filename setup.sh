#!/usr/bin/env bash
# setup.sh - everything fluidcl needs on Debian 12, then build, then run.
#   bash setup.sh         install the Debian packages (idempotent) and build
#   bash setup.sh run     ... and run the default scene (the viewer when
#                         there is a display, headless otherwise)
#   bash setup.sh test    ... and run the test suite (what CI runs first;
#                         .ci/run then adds the sanitizer pass and the fuzz
#                         smoke, which need clang and libclang-rt-14-dev)
# Packages come from Debian only; nothing is downloaded from elsewhere.
set -euo pipefail
cd "$(dirname "$0")"

packages=(build-essential cmake pkg-config
          opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo
          libglfw3-dev libgl-dev python3-glad libcjson-dev
          libimgui-dev libstb-dev xvfb libgl1-mesa-dri
          clang libclang-rt-14-dev
          python3-meshio python3-vtk9 mesa-opencl-icd)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"

case "${1:-}" in
  run)  ./build/fluidcl ;;
  test) cd build && ctest --output-on-failure -j"$(nproc)" --timeout 900 ;;
  "")   ;;
  *)    echo "usage: bash setup.sh [run|test]" >&2; exit 2 ;;
esac
