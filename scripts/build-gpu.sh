#!/usr/bin/env bash
# Builds what the GPU machine runs into build-gpu/ (Release, CUDA for sm_90,
# hce_omp_tests offloaded to nvptx64): the runtime tests, the GPU benchmarks
# and the translator/driver that scripts/stage-suite.sh uses to build the
# examples.  Then: scripts/stage-suite.sh, carry .carry, and on the GPU
# machine bench/gpu_offload_check.sh (omp:N) or bench/gpu_eval.sh.
#
# It does not install anything: scripts/setup.sh does (run it once first).
#   env: HCE_GPU_BUILD_DIR (default build-gpu/), HCE_BUILD_JOBS (ninja -j)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HCE_GPU_BUILD_DIR:-$root/build-gpu}"
nvcc=/usr/local/cuda/bin/nvcc
for tool in clang-19 clang++-19 ninja "$nvcc"; do
  command -v "$tool" >/dev/null || { echo "build-gpu: $tool not found (scripts/setup.sh)" >&2; exit 1; }
done
# OpenMP offload (omp:N) links need clang-tools-19; without it there are no
# offload programs to stage, which scripts/stage-suite.sh then reports.
llvm_bin="$(dirname "$(readlink -f "$(command -v clang-19)")")"
offload_tests=hce_omp_tests
if [ ! -x "$llvm_bin/clang-offload-packager" ]; then
  echo "build-gpu: warning: no $llvm_bin/clang-offload-packager (Debian package" \
    "clang-tools-19): no OpenMP-offload programs (omp:N) can be built" >&2
  offload_tests=""
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-19/build/utils/lit/lit.py \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_HOST_COMPILER=g++ -DHCE_OMP_TEST_TARGET=nvptx64 -DHCE_BUILD_TRANSLATOR=ON >/dev/null
# hce_omp_tests exists only where clang can build offload programs.
wanted="hce hce-translate hce-cc hce_runtime_tests hce_bench_cuda_pipeline
        hce_bench_chunk_overhead hce_bench_region_overhead $offload_tests"
have="$(ninja -C "$build" -t targets all | cut -d: -f1)"
targets=()
for t in $wanted; do
  if grep -qx "$t" <<<"$have"; then targets+=("$t"); else echo "build-gpu: note: no target $t here" >&2; fi
done
cmake --build "$build" -j "${HCE_BUILD_JOBS:-$(nproc)}" --target "${targets[@]}"
echo "build-gpu: built ${targets[*]} in $build"
