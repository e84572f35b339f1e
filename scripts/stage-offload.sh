#!/usr/bin/env bash
# Stages what an OpenMP-offload program (hce-cc --hce-offload) needs at run
# time on the GPU machine, which has no clang: libomp, libomptarget, libLLVM
# (129 MB, so xz-compressed) and the one libLLVM dependency an Ubuntu 24.04
# machine lacks (libz3.so.4), plus libhce from the build folder.  The device
# tool carries at most 64 MiB in all; this stays under about 50 MB.
#
#   usage: scripts/stage-offload.sh [DEST]      (default .carry/offload/lib)
#   env:   HCE_BUILD_DIR   build folder with lib/libhce.so.1 (default build/)
#          HCE_LLVM_LIB    LLVM 19 library folder (default /usr/lib/llvm-19/lib)
#          HCE_STAGE_PLAIN=1  do not compress (for a machine without xz/python)
#
# It writes DEST/unpack.sh; on the GPU machine:
#   bash DEST/unpack.sh /tmp/hce-offload-lib && \
#     export LD_LIBRARY_PATH=/tmp/hce-offload-lib:$LD_LIBRARY_PATH
# (unpack.sh uses xz, or python3's lzma module where xz is missing).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$root/.carry/offload/lib}"
build="${HCE_BUILD_DIR:-$root/build}"
llvm_lib="${HCE_LLVM_LIB:-/usr/lib/llvm-19/lib}"
limit_mb=50

need() { [ -e "$1" ] || { echo "stage-offload: missing $1" >&2; exit 1; }; }
need "$llvm_lib/libomp.so.5"
need "$llvm_lib/libomptarget.so.19.1"
need "$llvm_lib/libLLVM.so.19.1"
# libLLVM's own dependencies that a stock Ubuntu 24.04 lacks (checked on the
# GPU machine: libffi8, libedit2, libxml2, libzstd, libtinfo are there).
z3="$(ldd "$llvm_lib/libLLVM.so.19.1" | awk '/libz3\.so/ {print $3}')"
[ -n "$z3" ] || { echo "stage-offload: libLLVM's libz3 not found" >&2; exit 1; }

rm -rf "$dest" && mkdir -p "$dest"
cp -L "$llvm_lib/libomp.so.5" "$llvm_lib/libomptarget.so.19.1" "$dest/"
if [ -e "$build/lib/libhce.so.1" ]; then
  cp -L "$build/lib/libhce.so.1" "$dest/"
  strip --strip-debug "$dest/libhce.so.1"
else
  echo "stage-offload: note: no $build/lib/libhce.so.1 (set HCE_BUILD_DIR); not staged" >&2
fi
for big in "$llvm_lib/libLLVM.so.19.1" "$z3"; do
  name="$(basename "$big")"
  if [ "${HCE_STAGE_PLAIN:-0}" = 1 ]; then
    cp -L "$big" "$dest/$name"
  else
    xz -T2 -9 -c "$big" > "$dest/$name.xz"
  fi
done

cat > "$dest/unpack.sh" <<'UNPACK'
#!/usr/bin/env bash
# Unpacks the libraries staged by scripts/stage-offload.sh into $1
# (default /tmp/hce-offload-lib); then
#   export LD_LIBRARY_PATH=$1:$LD_LIBRARY_PATH
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-/tmp/hce-offload-lib}"
mkdir -p "$out"
for f in "$here"/*.so*; do
  case "$f" in
    *.xz)
      target="$out/$(basename "$f" .xz)"
      if command -v xz >/dev/null; then
        xz -dc "$f" > "$target"
      else
        python3 -c 'import lzma, shutil, sys
with lzma.open(sys.argv[1]) as i, open(sys.argv[2], "wb") as o: shutil.copyfileobj(i, o)' "$f" "$target"
      fi ;;
    *) cp "$f" "$out/" ;;
  esac
done
# The names programs and libraries ask for.
ln -sf libomptarget.so.19.1 "$out/libomptarget.so"
ln -sf libLLVM.so.19.1 "$out/libLLVM-19.so"
[ -e "$out/libhce.so.1" ] && ln -sf libhce.so.1 "$out/libhce.so"
# libomptarget's CUDA plugin dlopens "libcuda.so", which a machine with only
# the driver does not have (it has libcuda.so.1): without it libomptarget
# sees zero devices (seen on the GPU machine, 2026-11-21).
if ! ldconfig -p 2>/dev/null | grep 'libcuda\.so ' >/dev/null; then
  cuda1="$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 / {print $NF; exit}')"
  [ -n "$cuda1" ] && ln -sf "$cuda1" "$out/libcuda.so"
fi
missing="$(LD_LIBRARY_PATH="$out:${LD_LIBRARY_PATH:-}" ldd "$out/libomptarget.so.19.1" | grep 'not found' || true)"
if [ -n "$missing" ]; then
  echo "unpack: libomptarget still lacks:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "unpack: libraries in $out (export LD_LIBRARY_PATH=$out:\$LD_LIBRARY_PATH)"
UNPACK
chmod +x "$dest/unpack.sh"

total_kb="$(du -sk "$dest" | cut -f1)"
ls -la "$dest"
echo "stage-offload: $((total_kb / 1024)) MB in $dest"
if [ "$total_kb" -gt $((limit_mb * 1024)) ]; then
  echo "stage-offload: warning: more than $limit_mb MB; the device tool carries at most 64 MiB in all" >&2
fi
echo "on the GPU machine: bash ${dest#$root/}/unpack.sh /tmp/hce-offload-lib && export LD_LIBRARY_PATH=/tmp/hce-offload-lib:\$LD_LIBRARY_PATH"
