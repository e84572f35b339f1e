#!/usr/bin/env bash
# Builds what the GPU machine runs into build-gpu/ (Release, CUDA for sm_90,
# the OpenMP-offload tests for nvptx64): the runtime tests, the GPU
# benchmarks and the translator/driver that scripts/stage-suite.sh uses to
# build the examples.  Then: scripts/stage-suite.sh, carry .carry, and run
# bench/gpu_eval.sh there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" >/dev/null
cmake -S "$root" -B "$root/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-19/build/utils/lit/lit.py \
  -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_HOST_COMPILER=g++ -DHCE_OMP_TEST_TARGET=nvptx64 -DHCE_BUILD_TRANSLATOR=ON >/dev/null
cmake --build "$root/build-gpu" --target hce hce-translate hce-cc hce_runtime_tests \
  hce_bench_cuda_pipeline hce_bench_chunk_overhead hce_omp_tests
