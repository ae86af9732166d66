#!/bin/sh
# fluidcl-env.sh - run the relocatable fluidcl with a vendor's OpenCL library.
#   fluidcl-env.sh /path/to/libVENDOR-opencl.so.1 fluidcl ARGS...
# The bundled OpenCL loader (ocl-icd) reads the .icd files of the folder in
# OCL_ICD_VENDORS; this writes one naming the library into a private
# folder and runs the command with it. With no library, it finds NVIDIA's
# (libnvidia-opencl.so.1) through the dynamic linker's cache or in the
# usual driver folders.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
lib=${1:-}
given=
# A library is named by its file name (libX.so or libX.so.N), so a
# command given by path (/opt/fluidcl/bin/fluidcl) is not taken for one
# (it was written into the .icd file, and the run exited 0; a review).
case "${lib##*/}" in
  *.so|*.so.*) shift; given=1 ;;
  *) # ldconfig lives in /sbin, off an ordinary user's PATH; then the
     # usual driver folders (an H100 machine had it in /usr/local/nvidia/lib64).
     lib=
     for l in ldconfig /sbin/ldconfig /usr/sbin/ldconfig; do
       [ -n "$lib" ] || lib=$($l -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1/ {print $NF; exit}') || lib=
     done
     for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64; do
       [ -n "$lib" ] || [ ! -e "$d/libnvidia-opencl.so.1" ] || lib=$d/libnvidia-opencl.so.1
     done ;;
esac
# A library given by path must exist; one given by its name alone (an
# .icd line may be either) is left to the loader's search (a bare soname
# was refused as "no OpenCL library given"; a review).
if [ -n "$given" ]; then
  case "$lib" in
    */*) if [ ! -e "$lib" ]; then
           echo "fluidcl-env.sh: $lib: no such file (expected the vendor's OpenCL library, or its name alone for the dynamic linker to find)" >&2
           exit 2
         fi ;;
  esac
elif [ -z "$lib" ] || [ ! -e "$lib" ]; then
  echo "fluidcl-env.sh: no OpenCL library given and libnvidia-opencl.so.1 not found; usage: $0 /path/to/lib.so fluidcl ARGS..." >&2
  exit 2
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/fluidcl-icd.XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "$lib" > "$dir/vendor.icd"
cmd=${1:-fluidcl}
[ $# -gt 0 ] && shift
case "$cmd" in fluidcl) cmd=$here/fluidcl ;; esac
OCL_ICD_VENDORS=$dir "$cmd" "$@"
