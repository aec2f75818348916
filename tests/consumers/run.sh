#!/usr/bin/env bash
# tests/consumers/run.sh WORKDIR [NVCC] [ARCH] [PYTHON] -- the ways to use gpuprims, each
# built by the line docs/building.md documents and run as a user would (`make consumers`, CI):
#   1. pkg-config: a C program built by gcc and a CUDA program built by nvcc with
#      `pkg-config --cflags --libs gpuprims` (the static library), the same C program with
#      the shared library's line (--variable=libs_shared: an rpath), and the static
#      library's link line by hand;
#   2. plain nvcc -I<gpuprims>: header-only, GPUPRIMS_IMPLEMENTATION in the program;
#   3. CMake, installed: find_package(gpuprims CONFIG REQUIRED), gpuprims::gpuprims and
#      gpuprims::headers, configured without CMAKE_CUDA_ARCHITECTURES (the package's default
#      and its message);
#   4. CMake, add_subdirectory of the source tree: the same targets;
#   5. Python: the installed module imported from another directory by a fresh venv's
#      python (the .pth that `make install` writes), and one call into libgpuprims.so.
# Every program runs without LD_LIBRARY_PATH (or PYTHONPATH). Installs into WORKDIR/prefix
# first and uninstalls at the end (checking that nothing is left). A program passes if it
# prints its result ("ok", status 0) or, without a GPU, reaches its "no CUDA GPU found"
# (status 1) after a call into the library.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mkdir -p "$1" && cd "$1" && pwd)
nvcc=${2:-nvcc}
arch=${3:-sm_90}
python=${4:-python3}
prefix=$work/prefix
venv=$work/venv
here=$root/tests/consumers
cuda_home=$(dirname "$(dirname "$(command -v "$nvcc")")")

say() { printf '\n== %s\n' "$*"; }
show() { echo "\$ $*" >&2; "$@"; }
run() {
    local out rc=0
    echo "\$ $*"
    out=$(env -u LD_LIBRARY_PATH -u PYTHONPATH "$@" 2>&1) || rc=$?
    printf '%s\n' "$out" | sed 's/^/  | /'
    if [ $rc -eq 0 ] && grep -q ': ok$' <<<"$out"; then return 0; fi
    if [ $rc -eq 1 ] && grep -q 'no CUDA GPU found' <<<"$out"; then return 0; fi
    echo "FAIL: $1 (status $rc)"
    exit 1
}

needs() { # needs PROGRAM LIB: the program loads LIB (yes) or not (no), as readelf says
    if readelf -d "$1" | grep "NEEDED.*$2" >/dev/null; then echo yes; else echo no; fi
}

say "make install PREFIX=$prefix (the Python module for a fresh venv's python)"
rm -rf "$prefix" "$venv"
"$python" -m venv --without-pip "$venv"
make -C "$root" --no-print-directory install PREFIX="$prefix" PYTHON="$venv/bin/python3" >/dev/null
(cd "$prefix" && find . -type f | sort | sed 's/^/  /')

say "1. pkg-config: gcc and nvcc with --libs (static), gcc with libs_shared (rpath)"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
echo "pkg-config --cflags --libs gpuprims: $(pkg-config --cflags --libs gpuprims)"
show gcc -std=c11 -Wall -Wextra -pedantic "$here/app.c" $(pkg-config --cflags --libs gpuprims) -o "$work/app_pkgconfig"
[ "$(needs "$work/app_pkgconfig" libgpuprims)" = no ] || { echo "FAIL: app_pkgconfig loads libgpuprims.so"; exit 1; }
run "$work/app_pkgconfig"
show "$nvcc" -arch="$arch" "$here/app.cu" $(pkg-config --cflags --libs gpuprims) -o "$work/app_pkgconfig_nvcc"
run "$work/app_pkgconfig_nvcc"
show gcc -std=c11 -Wall -Wextra -pedantic "$here/app.c" $(pkg-config --cflags gpuprims) \
    $(pkg-config --variable=libs_shared gpuprims) -o "$work/app_pkgconfig_shared"
[ "$(needs "$work/app_pkgconfig_shared" libgpuprims)" = yes ] || { echo "FAIL: app_pkgconfig_shared does not load libgpuprims.so"; exit 1; }
run "$work/app_pkgconfig_shared"
echo "(static library, by hand)"
show gcc -std=c11 -Wall -Wextra -pedantic "$here/app.c" -I"$prefix/include" -I"$cuda_home/include" \
    "$prefix/lib/libgpuprims.a" -L"$cuda_home/lib64" -lcudart_static -ldl -lpthread -lrt -lstdc++ -o "$work/app_static"
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
    # No CMAKE_CUDA_ARCHITECTURES: gpuprims must choose and say so, not leave the compiler's default.
    out=$(show cmake -S "$here/$kind" -B "$work/cmake-$kind" "$def" -DCMAKE_CUDA_COMPILER="$(command -v "$nvcc")")
    grep "gpuprims: CMAKE_CUDA_ARCHITECTURES not set" <<<"$out" ||
        { echo "FAIL: no message about CMAKE_CUDA_ARCHITECTURES"; printf '%s\n' "$out"; exit 1; }
    grep -q -- "-arch=sm_75\|compute_75" "$work/cmake-$kind/CMakeFiles/app_cu.dir/flags.make" &&
        { echo "FAIL: app_cu compiles for sm_75"; exit 1; }
    show env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL cmake --build "$work/cmake-$kind" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
    for app in app_c app_cu app_headers; do run "$work/cmake-$kind/$app"; done
done

say "5. Python: import gpuprims from elsewhere (the venv's python, no PYTHONPATH)"
cat > "$work/import_gpuprims.py" <<'PY'
import ctypes, sys
import gpuprims
lib = gpuprims.library()
assert lib._name.startswith(sys.argv[1] + "/"), "loaded %s, not the installed library" % lib._name
f = lib.gp_reduce_sum_f32
f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
err = f(None, None, 1, None)  # a NULL input with n > 0: cudaErrorInvalidValue (1), no GPU needed
print("python: %s, %s; gp_reduce_sum_f32(NULL, NULL, 1, 0) = %d: %s"
      % (gpuprims.__file__, lib._name, err, "ok" if err == 1 else "WRONG"))
PY
run sh -c 'cd / && exec "$1" "$2" "$3"' sh "$venv/bin/python3" "$work/import_gpuprims.py" "$prefix"

say "make uninstall PREFIX=$prefix"
make -C "$root" --no-print-directory uninstall PREFIX="$prefix" PYTHON="$venv/bin/python3" >/dev/null
left=$(find "$prefix" -type f; find "$venv" -name gpuprims.pth)
[ -z "$left" ] || { echo "FAIL: make uninstall left: $left"; exit 1; }
echo "nothing left under $prefix, no gpuprims.pth in the venv"

say "all consumers built, linked and ran"
