#!/usr/bin/env bash
# Copies the examples (built by scripts/setup.sh with hce-cc, CUDA variants
# included) and the libraries they need into .carry/suite for
# bench/gpu_suite.sh on the GPU machine.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HCE_BUILD_DIR:-$root/build}"
rm -rf "$root/.carry/suite" && mkdir -p "$root/.carry/suite/bin" "$root/.carry/suite/lib"
for e in matadd blackscholes gemm jacobi2d heat3d fdtd2d nbody kmeans mcpi cg bfs lud; do
  cp "$build/examples/$e" "$root/.carry/suite/bin/"
done
cp -L "$build/lib/libhce.so.0" /usr/lib/llvm-19/lib/libomp.so.5 \
  /usr/local/cuda/lib64/libcudart.so.13 "$root/.carry/suite/lib/"
strip --strip-debug "$root/.carry/suite/lib/libhce.so.0"
