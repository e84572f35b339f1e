// Whether a small reduction kernel's partial results, read back the way the
// translator's CUDA variant reads them (an 8-byte cudaMemcpyAsync to the host
// on the kernel's stream, then cudaStreamSynchronize), wait behind another
// stream's large device-to-host copy -- the fetch home of a co-executing
// CPU's rows -- and whether reading them without a copy engine does not
// (issue 12, session 84: the H100's cold cg, whose dot probe of 33792 rows
// took 0.708 ms beside the CPU's 7.92 MiB fetch, 0.029 ms one execution
// before; docs/benchmarks.md "Where issue 12 stands (session 84").
//   nvcc -O2 -arch=sm_90 bench/reduction_beside_fetch.cu -o reduction_beside_fetch
//   ./reduction_beside_fetch [fetch MiB, default 8] [reps, default 21]
// Prints, per way of reading the partials back, the median milliseconds of
// launch + read-back + synchronise, alone, beside the fetch (issued on
// another stream just before), the fetch's own time, and beside an upload of
// as many bytes (host to device, another stream).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

namespace {

__global__ void dot_partial(const double *x, const double *y, int n,
                            unsigned long long *acc) {
  // A sum as the generated code accumulates one (an 8-byte atomic slot).
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(acc, (unsigned long long)(x[i] * y[i] > 0));
}

// The slot copied to mapped pinned host memory by the GPU's threads: no copy
// engine is involved.
__global__ void copy_slot(const unsigned long long *from, unsigned long long *to) {
  *to = *from;
}

void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "reduction_beside_fetch: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

enum class ReadBack { PageableCopy, PinnedCopy, MappedKernel, MappedBoth };
const char *name(ReadBack r) {
  switch (r) {
  case ReadBack::PageableCopy: return "pageable 8-byte copy (generated code)";
  case ReadBack::PinnedCopy: return "pinned 8-byte copy";
  case ReadBack::MappedKernel: return "copy kernel into mapped memory";
  case ReadBack::MappedBoth: return "identity and read-back by kernels";
  }
  return "?";
}

} // namespace

int main(int argc, char **argv) {
  const size_t fetch_bytes = size_t(argc > 1 ? std::atof(argv[1]) : 8) * (1 << 20);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 21;
  const int n = 33792; // cg's dot probe
  cudaStream_t compute, fetch;
  check(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&fetch, cudaStreamNonBlocking), "stream");
  double *x, *y;
  unsigned long long *acc, *pinned, *mapped, *mapped_dev;
  check(cudaMalloc(&x, n * sizeof(double)), "cudaMalloc");
  check(cudaMalloc(&y, n * sizeof(double)), "cudaMalloc");
  check(cudaMemset(x, 0, n * sizeof(double)), "cudaMemset");
  check(cudaMemset(y, 0, n * sizeof(double)), "cudaMemset");
  check(cudaMalloc(&acc, sizeof *acc), "cudaMalloc");
  check(cudaHostAlloc(&pinned, sizeof *pinned, cudaHostAllocDefault), "cudaHostAlloc");
  check(cudaHostAlloc(&mapped, sizeof *mapped, cudaHostAllocMapped), "cudaHostAlloc");
  check(cudaHostGetDevicePointer(reinterpret_cast<void **>(&mapped_dev), mapped, 0),
        "cudaHostGetDevicePointer");
  // The fetch: device rows into pinned host memory (the staging pool's slots).
  void *src, *dst;
  check(cudaMalloc(&src, fetch_bytes), "cudaMalloc");
  check(cudaMemset(src, 1, fetch_bytes), "cudaMemset");
  check(cudaHostAlloc(&dst, fetch_bytes, cudaHostAllocDefault), "cudaHostAlloc");

  auto reduce = [&](ReadBack how) {
    unsigned long long pageable = 0, zero = 0;
    if (how == ReadBack::MappedBoth) {
      // The identity from mapped memory by a kernel too: no copy engine at all.
      *mapped = 0;
      copy_slot<<<1, 1, 0, compute>>>(mapped_dev, acc);
    } else {
      check(cudaMemcpyAsync(acc, &zero, sizeof zero, cudaMemcpyHostToDevice, compute),
            "identity");
    }
    dot_partial<<<(n + 255) / 256, 256, 0, compute>>>(x, y, n, acc);
    switch (how) {
    case ReadBack::PageableCopy:
      check(cudaMemcpyAsync(&pageable, acc, sizeof pageable, cudaMemcpyDeviceToHost,
                            compute),
            "read back");
      break;
    case ReadBack::PinnedCopy:
      check(cudaMemcpyAsync(pinned, acc, sizeof *pinned, cudaMemcpyDeviceToHost, compute),
            "read back");
      break;
    case ReadBack::MappedKernel:
    case ReadBack::MappedBoth: copy_slot<<<1, 1, 0, compute>>>(acc, mapped_dev); break;
    }
    check(cudaStreamSynchronize(compute), "cudaStreamSynchronize");
  };

  for (ReadBack how :
       {ReadBack::PageableCopy, ReadBack::PinnedCopy, ReadBack::MappedKernel,
        ReadBack::MappedBoth})
    reduce(how); // first launches out of the way
  std::printf("fetch %.2f MiB, %d reps, reduction of %d rows: median ms\n",
              double(fetch_bytes) / (1 << 20), reps, n);
  std::printf("%-40s %10s %14s %10s %14s\n", "read-back", "alone", "beside fetch", "fetch",
              "beside upload");
  for (ReadBack how :
       {ReadBack::PageableCopy, ReadBack::PinnedCopy, ReadBack::MappedKernel,
        ReadBack::MappedBoth}) {
    std::vector<double> alone, beside, fetch_ms, beside_up;
    for (int r = 0; r < reps; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      reduce(how);
      alone.push_back(ms_since(t0));
      auto f0 = std::chrono::steady_clock::now();
      check(cudaMemcpyAsync(dst, src, fetch_bytes, cudaMemcpyDeviceToHost, fetch),
            "fetch");
      t0 = std::chrono::steady_clock::now();
      reduce(how);
      beside.push_back(ms_since(t0));
      check(cudaStreamSynchronize(fetch), "cudaStreamSynchronize");
      fetch_ms.push_back(ms_since(f0));
      // An upload (host to device, another stream) instead: the GPU's own rows.
      check(cudaMemcpyAsync(src, dst, fetch_bytes, cudaMemcpyHostToDevice, fetch),
            "upload");
      t0 = std::chrono::steady_clock::now();
      reduce(how);
      beside_up.push_back(ms_since(t0));
      check(cudaStreamSynchronize(fetch), "cudaStreamSynchronize");
    }
    std::printf("%-40s %10.3f %14.3f %10.3f %14.3f\n", name(how), median(alone),
                median(beside), median(fetch_ms), median(beside_up));
  }
  return 0;
}
