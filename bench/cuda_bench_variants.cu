// CUDA variants for bench/cuda_pipeline_bench.cpp (hce_cuda_variant
// signature): a kernel that does nothing, to time the runtime's transfers
// and per-chunk overhead alone, and a streaming matrix addition.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" int hce_bench_nothing_cuda(int64_t, int64_t, void *const *, const void *,
                                      void *, void *) {
  return 0;
}

__global__ void empty_kernel() {}

extern "C" int hce_bench_launch_only_cuda(int64_t, int64_t, void *const *,
                                          const void *, void *, void *stream) {
  empty_kernel<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>();
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

__global__ void matadd_kernel(int64_t lb, int64_t ub, int64_t n, const double *A,
                              const double *B, double *C) {
  int64_t total = (ub - lb) * n;
  int64_t first = lb * n;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x)
    C[first + e] = A[first + e] + B[first + e];
}

extern "C" int hce_bench_matadd_cuda(int64_t lb, int64_t ub, void *const *ptrs,
                                     const void *args, void *, void *stream) {
  int64_t n = *static_cast<const int64_t *>(args);
  int64_t total = (ub - lb) * n;
  int blocks = int(total / 256 + 1 < 65535 * 8 ? total / 256 + 1 : 65535 * 8);
  matadd_kernel<<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      lb, ub, n, static_cast<const double *>(ptrs[0]),
      static_cast<const double *>(ptrs[1]), static_cast<double *>(ptrs[2]));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
