#!/usr/bin/env bash
# tests/consumers/run.sh WORKDIR [NVCC] [ARCH] -- the four ways to use gpuprims, each built
# and run as a user would (`make consumers`, and CI):
#   1. pkg-config: a C program built by gcc with `pkg-config --cflags --libs gpuprims`
#      (and the static library's link line, by hand);
#   2. plain nvcc -I<gpuprims>: header-only, GPUPRIMS_IMPLEMENTATION in the program;
#   3. CMake, installed: find_package(gpuprims CONFIG REQUIRED), gpuprims::gpuprims and
#      gpuprims::headers;
#   4. CMake, add_subdirectory of the source tree: the same targets.
# Installs into WORKDIR/prefix first and uninstalls at the end (checking that nothing is
# left). A program passes if it prints its result ("ok", status 0) or, without a GPU,
# reaches its "no CUDA GPU found" (status 1) after a call into the library.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mkdir -p "$1" && cd "$1" && pwd)
nvcc=${2:-nvcc}
arch=${3:-sm_90}
prefix=$work/prefix
here=$root/tests/consumers
cuda_home=$(dirname "$(dirname "$(command -v "$nvcc")")")

say() { printf '\n== %s\n' "$*"; }
show() { echo "\$ $*" >&2; "$@"; }
run() {
    local out rc=0
    echo "\$ $*"
    out=$("$@" 2>&1) || rc=$?
    printf '%s\n' "$out" | sed 's/^/  | /'
    if [ $rc -eq 0 ] && grep -q ': ok$' <<<"$out"; then return 0; fi
    if [ $rc -eq 1 ] && grep -q 'no CUDA GPU found' <<<"$out"; then return 0; fi
    echo "FAIL: $1 (status $rc)"
    exit 1
}

say "make install PREFIX=$prefix"
rm -rf "$prefix"
make -C "$root" --no-print-directory install PREFIX="$prefix" >/dev/null
(cd "$prefix" && find . -type f | sort | sed 's/^/  /')

say "1. pkg-config, a C program built by gcc"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
echo "pkg-config --cflags --libs gpuprims: $(pkg-config --cflags --libs gpuprims)"
show gcc -std=c11 -Wall -Wextra -pedantic "$here/app.c" $(pkg-config --cflags --libs gpuprims) \
    -Wl,-rpath,"$(pkg-config --variable=libdir gpuprims)" -o "$work/app_pkgconfig"
run "$work/app_pkgconfig"
echo "(static library, by hand)"
show gcc -std=c11 -Wall -Wextra -pedantic "$here/app.c" -I"$prefix/include" -I"$cuda_home/include" \
    "$prefix/lib/libgpuprims.a" -L"$cuda_home/lib64" -lcudart -lstdc++ -o "$work/app_static"
run "$work/app_static"

say "2. plain nvcc -I, header-only (GPUPRIMS_IMPLEMENTATION in the program)"
show "$nvcc" -arch="$arch" -I"$root" -DAPP_IN_TREE -DGPUPRIMS_IMPLEMENTATION "$here/app.cu" -o "$work/app_nvcc"
run "$work/app_nvcc"

for kind in installed subdir; do
    if [ $kind = installed ]; then
        say "3. CMake: find_package(gpuprims CONFIG REQUIRED) on the installed package"
        def=-DCMAKE_PREFIX_PATH="$prefix"
    else
        say "4. CMake: add_subdirectory of the source tree"
        def=-DGPUPRIMS_SOURCE_DIR="$root"
    fi
    rm -rf "$work/cmake-$kind"
    show cmake -S "$here/$kind" -B "$work/cmake-$kind" "$def" -DCMAKE_CUDA_COMPILER="$(command -v "$nvcc")" \
        -DCMAKE_CUDA_ARCHITECTURES="${arch#sm_}" >/dev/null
    show env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL cmake --build "$work/cmake-$kind" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
    for app in app_c app_cu app_headers; do run "$work/cmake-$kind/$app"; done
done

say "make uninstall PREFIX=$prefix"
make -C "$root" --no-print-directory uninstall PREFIX="$prefix" >/dev/null
left=$(find "$prefix" -type f)
[ -z "$left" ] || { echo "FAIL: make uninstall left: $left"; exit 1; }
echo "nothing left under $prefix"

say "all four consumers built, linked and ran"
