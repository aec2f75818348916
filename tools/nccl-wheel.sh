#!/usr/bin/env bash
# tools/nccl-wheel.sh DEST -- NCCL's headers and library where the system has none: installs
# the nvidia-nccl-cu13 wheel from PyPI (pip, into DEST/wheel) and lays it out as DEST/include
# and DEST/lib (libnccl.so linked to the wheel's libnccl.so.2), which the Makefile's
# NCCL_HOME then points at. Needs python3 with pip and access to PyPI.
set -euo pipefail
dest=$1
py=${PYTHON:-python3}
mkdir -p "$dest"
"$py" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --target "$dest/wheel" nvidia-nccl-cu13
header=$(find "$dest/wheel" -name nccl.h -print -quit)
lib=$(find "$dest/wheel" -name 'libnccl.so*' -print -quit)
if [ -z "$header" ] || [ -z "$lib" ]; then
    echo "tools/nccl-wheel.sh: nvidia-nccl-cu13 has no nccl.h or libnccl.so under $dest/wheel" >&2
    exit 1
fi
rm -rf "$dest/include" "$dest/lib"
mkdir -p "$dest/lib"
ln -s "$(dirname "$header")" "$dest/include"
ln -s "$lib" "$dest/lib/libnccl.so"
[ "$(basename "$lib")" = libnccl.so ] || ln -s "$lib" "$dest/lib/$(basename "$lib")"
echo "NCCL from the nvidia-nccl-cu13 wheel: $(dirname "$header"), $lib"
touch "$dest/ok"
