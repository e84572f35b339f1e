// Hand-written CUDA variants for the runtime's GPU tests, shaped like the
// translator's output: a grid-stride __global__ kernel over normalised
// iterations [lb, ub) and an extern "C" launcher with the hce_cuda_variant
// signature (runtime/include/hce/hce.h).  `ptrs` are device pointers (biased:
// element e of an array is at ptrs[m] + e), `args` and `red` are host memory.
#include "cuda_variants.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t work) {
  int64_t b = (work + kThreads - 1) / kThreads;
  return int(std::max<int64_t>(1, std::min<int64_t>(b, 65535)));
}

int status(cudaError_t rc) { return rc == cudaSuccess ? 0 : int(rc); }

// C[i*n + j] = A[i*n + j] + B[i*n + j] for rows i in [lb, ub).
__global__ void matadd_kernel(int64_t lb, int64_t ub, int64_t n,
                              const double *A, const double *B, double *C) {
  const int64_t first = lb * n, total = (ub - lb) * n;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t e = first + t;
    C[e] = A[e] + B[e];
  }
}

// Block-wide sum of x[lb, ub), one atomicAdd per block into *out.
__global__ void sum_kernel(int64_t lb, int64_t ub, const double *x, double *out) {
  __shared__ double part[kThreads];
  double s = 0;
  for (int64_t i = lb + int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < ub;
       i += int64_t(gridDim.x) * blockDim.x)
    s += x[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (int(threadIdx.x) < w)
      part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, part[0]);
}

// b[i] = (a[i-1] + a[i] + a[i+1]) / 3 row-wise, i = k + 1.
__global__ void sweep_kernel(int64_t lb, int64_t ub, int64_t n, const double *a,
                             double *b) {
  const int64_t total = (ub - lb) * n;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = lb + t / n + 1, j = t % n;
    b[i * n + j] = (a[(i - 1) * n + j] + a[i * n + j] + a[(i + 1) * n + j]) / 3.0;
  }
}

// a[i] = b[i], i = k + 1.
__global__ void copy_kernel(int64_t lb, int64_t ub, int64_t n, double *a,
                            const double *b) {
  const int64_t first = (lb + 1) * n, total = (ub - lb) * n;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x)
    a[first + t] = b[first + t];
}

} // namespace

extern "C" {

int hce_test_matadd_cuda(int64_t lb, int64_t ub, void *const *ptrs,
                         const void *args, void *, void *stream) {
  if (ub <= lb)
    return 0;
  const int64_t n = static_cast<const HceTestRowArgs *>(args)->n;
  matadd_kernel<<<blocks_for((ub - lb) * n), kThreads, 0,
                  static_cast<cudaStream_t>(stream)>>>(
      lb, ub, n, static_cast<const double *>(ptrs[0]),
      static_cast<const double *>(ptrs[1]), static_cast<double *>(ptrs[2]));
  return status(cudaGetLastError());
}

int hce_test_sum_cuda(int64_t lb, int64_t ub, void *const *ptrs, const void *,
                      void *red, void *stream) {
  if (ub <= lb)
    return 0;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  double *dsum = nullptr;
  cudaError_t rc = cudaMallocAsync(reinterpret_cast<void **>(&dsum), sizeof(double), s);
  if (rc != cudaSuccess)
    return status(rc);
  double host = 0;
  rc = cudaMemsetAsync(dsum, 0, sizeof(double), s);
  if (rc == cudaSuccess) {
    sum_kernel<<<blocks_for(ub - lb), kThreads, 0, s>>>(
        lb, ub, static_cast<const double *>(ptrs[0]), dsum);
    rc = cudaGetLastError();
  }
  if (rc == cudaSuccess)
    rc = cudaMemcpyAsync(&host, dsum, sizeof(double), cudaMemcpyDeviceToHost, s);
  cudaError_t rc2 = cudaFreeAsync(dsum, s);
  cudaError_t rc3 = cudaStreamSynchronize(s);
  if (rc == cudaSuccess)
    rc = rc2 != cudaSuccess ? rc2 : rc3;
  if (rc != cudaSuccess)
    return status(rc);
  // The host slot (preset to the identity, 0) receives this chunk's sum.
  *static_cast<double *>(red) += host;
  return 0;
}

int hce_test_sweep_cuda(int64_t lb, int64_t ub, void *const *ptrs,
                        const void *args, void *, void *stream) {
  if (ub <= lb)
    return 0;
  const int64_t n = static_cast<const HceTestRowArgs *>(args)->n;
  sweep_kernel<<<blocks_for((ub - lb) * n), kThreads, 0,
                 static_cast<cudaStream_t>(stream)>>>(
      lb, ub, n, static_cast<const double *>(ptrs[0]),
      static_cast<double *>(ptrs[1]));
  return status(cudaGetLastError());
}

int hce_test_copy_back_cuda(int64_t lb, int64_t ub, void *const *ptrs,
                            const void *args, void *, void *stream) {
  if (ub <= lb)
    return 0;
  const int64_t n = static_cast<const HceTestRowArgs *>(args)->n;
  copy_kernel<<<blocks_for((ub - lb) * n), kThreads, 0,
                static_cast<cudaStream_t>(stream)>>>(
      lb, ub, n, static_cast<double *>(ptrs[0]),
      static_cast<const double *>(ptrs[1]));
  return status(cudaGetLastError());
}

int hce_test_failing_cuda(int64_t, int64_t, void *const *, const void *, void *,
                          void *) {
  return 7;
}

int hce_test_cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

} // extern "C"
