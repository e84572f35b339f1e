#!/usr/bin/env bash
# Stages what bench/gpu_eval.sh runs on the GPU machine into .carry/suite:
# the examples (built by scripts/setup.sh with hce-cc, CUDA variants
# included), the GPU test and benchmark binaries (scripts/build-gpu.sh) and
# the shared libraries they need.  Carry `.carry` in the device call.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HCE_BUILD_DIR:-$root/build}"
gpu="$root/build-gpu"
dst="$root/.carry/suite"
rm -rf "$dst" && mkdir -p "$dst/bin" "$dst/lib"
for e in matadd blackscholes gemm jacobi2d heat3d fdtd2d nbody kmeans mcpi cg bfs lud taskgraph; do
  if [ -x "$build/examples/$e" ]; then cp "$build/examples/$e" "$dst/bin/"; fi
done
for t in hce_runtime_tests hce_bench_chunk_overhead hce_bench_cuda_pipeline hce_omp_tests; do
  if [ -x "$gpu/bin/$t" ]; then cp "$gpu/bin/$t" "$dst/bin/" && strip --strip-debug "$dst/bin/$t"; fi
done
cp -L "$build/lib/libhce.so.0" /usr/lib/llvm-19/lib/libomp.so.5 \
  "$(dirname "$(readlink -f /usr/local/cuda/bin/nvcc)")/../lib/libcudart.so.13" "$dst/lib/"
strip --strip-debug "$dst/lib/libhce.so.0"
du -sh "$dst"
