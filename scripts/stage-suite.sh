#!/usr/bin/env bash
# Stages what bench/gpu_eval.sh runs on the GPU machine into .carry/suite,
# from build-gpu/ (scripts/build-gpu.sh):
#   bin/          the examples (hce-cc, CUDA variants), stores_once and rows_reduce (lit tests' programs),
#                 the GPU tests and benchmarks
#   bin-offload/  the examples built with --hce-offload (nvptx64) and hce_omp_tests
#   lib/          libhce, libomp, libcudart
#   offload-lib/  libomptarget + compressed libLLVM (scripts/stage-offload.sh)
# Carry `.carry` in the device call (about 45 MB); the omp:N check is
# bench/gpu_offload_check.sh.  HCE_STAGE_OFFLOAD=0 leaves the offload part out.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
gpu="${HCE_BUILD_DIR:-$root/build-gpu}"
dst="$root/.carry/suite"
examples="matadd blackscholes gemm jacobi2d heat3d fdtd2d nbody kmeans mcpi cg bfs lud taskgraph histogram"
rm -rf "$dst" && mkdir -p "$dst/bin" "$dst/bin-offload" "$dst/lib"
build_examples() { # dir, extra hce-cc flags...
  local out="$1"; shift
  for e in $examples; do
    "$gpu/bin/hce-cc" -O2 "$@" "$root/examples/$e.c" -o "$out/$e" -lm &
    [ "$(jobs -r | wc -l)" -lt "$(nproc)" ] || wait -n
  done
  wait
}
build_examples "$dst/bin"
# The rows kernel whose stores run between barriers, at sizes past one grid
# (bench/gpu_check.sh runs it on the GPU).
"$gpu/bin/hce-cc" -O2 "$root/tests/lit/cuda_kernel_rows_stores_once.c" -o "$dst/bin/stores_once" -lm
"$gpu/bin/hce-cc" -O2 "$root/tests/lit/cuda_kernel_rows_reduce.c" -o "$dst/bin/rows_reduce" -lm
if [ "${HCE_STAGE_OFFLOAD:-1}" = 1 ]; then
  build_examples "$dst/bin-offload" --hce-offload
  # hce-cc builds without offload variants (one note) where clang cannot
  # offload; such a program would only show "no omp devices" there.
  for e in $examples; do
    if ! readelf -d "$dst/bin-offload/$e" 2>/dev/null | grep 'NEEDED.*libomptarget' >/dev/null; then
      echo "stage-suite: error: bin-offload/$e has no OpenMP-offload image" \
        "(clang-tools-19 installed? hce-cc --version says)" >&2
      exit 1
    fi
  done
  [ -x "$gpu/bin/hce_omp_tests" ] && cp "$gpu/bin/hce_omp_tests" "$dst/bin-offload/"
  HCE_BUILD_DIR="$gpu" "$root/scripts/stage-offload.sh" "$dst/offload-lib" >/dev/null
fi
for t in hce_runtime_tests hce_bench_chunk_overhead hce_bench_region_overhead hce_bench_cuda_pipeline; do
  [ -x "$gpu/bin/$t" ] && cp "$gpu/bin/$t" "$dst/bin/"
done
strip --strip-debug "$dst"/bin*/hce_* 2>/dev/null || true
cp -L "$gpu/lib/libhce.so.1" /usr/lib/llvm-19/lib/libomp.so.5 \
  "$(dirname "$(readlink -f /usr/local/cuda/bin/nvcc)")/../lib/libcudart.so.13" "$dst/lib/"
# The benchmarks link Google Benchmark, which the GPU machine does not have.
for t in "$dst"/bin/hce_bench_*; do
  ldd "$t" | awk '/libbenchmark/ { print $3 }'
done | sort -u | xargs -r cp -L -t "$dst/lib/"
strip --strip-debug "$dst/lib/libhce.so.1"
du -sh "$dst"
