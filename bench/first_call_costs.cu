// What a process's first CUDA calls cost, one at a time, in the order a
// cold HCE run makes them (issue 12: on the H100 the first execution of
// every region with a reduction paid 7-11 ms more than its later ones).
//   nvcc -O2 -arch=sm_90 bench/first_call_costs.cu -o first_call_costs
//   ./first_call_costs [mallocasync-first | pageable-first]
// Prints one line per call: its name and milliseconds.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void add_one(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] += 1;
}

__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= 2.0f;
}

__global__ void sum_to(unsigned long long *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, 1ULL);
}

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
      .count();
}
template <class F> void timed(const char *what, F f) {
  auto t0 = std::chrono::steady_clock::now();
  cudaError_t e = f();
  std::printf("%-34s %8.3f ms%s%s\n", what, ms_since(t0), e ? "  error: " : "",
              e ? cudaGetErrorString(e) : "");
}
} // namespace

int main(int argc, char **argv) {
  const bool async_first = argc > 1 && std::strcmp(argv[1], "mallocasync-first") == 0;
  const bool pageable_first = argc > 1 && std::strcmp(argv[1], "pageable-first") == 0;
  cudaStream_t s;
  int *d = nullptr;
  void *a = nullptr;
  unsigned long long *r = nullptr;
  timed("cudaFree(0) (context)", [] { return cudaFree(0); });
  timed("cudaStreamCreate", [&] { return cudaStreamCreate(&s); });
  timed("cudaMalloc 4 MB", [&] { return cudaMalloc(&d, 4 << 20); });
  // A generated reduction variant's first call uploads its 16-byte slots
  // from the stack (pageable): whether the driver's first pageable copy
  // costs more than later ones (cold mcpi's first GPU chunk, 0.27 ms).
  if (pageable_first) {
    unsigned long long slots[2] = {0, 0};
    timed("pageable H2D 16 B (1st)", [&] {
      cudaError_t e = cudaMemcpyAsync(d, slots, sizeof slots, cudaMemcpyHostToDevice, s);
      return e ? e : cudaStreamSynchronize(s);
    });
    timed("pageable H2D 16 B (2nd)", [&] {
      cudaError_t e = cudaMemcpyAsync(d, slots, sizeof slots, cudaMemcpyHostToDevice, s);
      return e ? e : cudaStreamSynchronize(s);
    });
  }
  auto async_pair = [&](const char *what) {
    timed(what, [&] {
      cudaError_t e = cudaMallocAsync(&a, 256, s);
      if (!e)
        e = cudaFreeAsync(a, s);
      return e ? e : cudaStreamSynchronize(s);
    });
  };
  if (async_first)
    async_pair("cudaMallocAsync+Free (1st)");
  timed("launch add_one (1st)", [&] {
    add_one<<<4096, 256, 0, s>>>(d, 1 << 20);
    return cudaStreamSynchronize(s);
  });
  timed("launch add_one (2nd)", [&] {
    add_one<<<4096, 256, 0, s>>>(d, 1 << 20);
    return cudaStreamSynchronize(s);
  });
  if (!async_first)
    async_pair("cudaMallocAsync+Free (1st)");
  async_pair("cudaMallocAsync+Free (2nd)");
  timed("cudaMalloc 8 B", [&] { return cudaMalloc(&r, 8); });
  timed("launch sum_to (1st)", [&] {
    sum_to<<<4096, 256, 0, s>>>(r, 1 << 20);
    return cudaStreamSynchronize(s);
  });
  timed("launch sum_to (2nd)", [&] {
    sum_to<<<4096, 256, 0, s>>>(r, 1 << 20);
    return cudaStreamSynchronize(s);
  });
  // Whether the occupancy query (hce_region::cuda_wave, asked before an
  // accelerator's first chunk) loads the kernel that CUDA's lazy loading
  // would otherwise load at its first launch.
  timed("occupancy query scale (1st)", [&] {
    int per_sm = 0;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scale, 256, 0);
  });
  timed("launch scale (1st, queried)", [&] {
    scale<<<4096, 256, 0, s>>>(reinterpret_cast<float *>(d), 1 << 20);
    return cudaStreamSynchronize(s);
  });
  timed("launch scale (2nd)", [&] {
    scale<<<4096, 256, 0, s>>>(reinterpret_cast<float *>(d), 1 << 20);
    return cudaStreamSynchronize(s);
  });
  timed("cudaMallocHost 4 MB", [&] {
    void *h = nullptr;
    cudaError_t e = cudaMallocHost(&h, 4 << 20);
    return e ? e : cudaFreeHost(h);
  });
  return 0;
}
