#!/usr/bin/env bash
# Builds what the GPU machine runs (runtime tests and GPU benchmarks, Release,
# CUDA for sm_90) into build-gpu/, plus the OpenMP runtime it needs there,
# small enough to carry (see bench/gpu_check.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" >/dev/null
cmake -S "$root" -B "$root/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DHCE_BUILD_TRANSLATOR=OFF \
  -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_HOST_COMPILER=g++ >/dev/null
cmake --build "$root/build-gpu" --target hce_runtime_tests hce_bench_cuda_pipeline \
  hce_bench_chunk_overhead
mkdir -p "$root/build-gpu/rt"
cp -L /usr/lib/llvm-19/lib/libomp.so.5 "$root/build-gpu/rt/"
