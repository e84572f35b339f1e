// Does cudaHostRegister on one thread hold up another thread's CUDA calls?
// The runtime registers a data region's host arrays while other devices
// copy (DataEnv::prepare); whether a registration could run on a thread of
// its own, off every copy's path, depends on whether the driver serialises
// it with the process's other calls.  Thread R registers (and afterwards
// unregisters) fresh pageable memory in pieces; thread C meanwhile times
// small operations against the same GPU:
//   copy    cudaMemcpyAsync of a 1 MiB pinned buffer + cudaStreamSynchronize
//   launch  an empty kernel + cudaStreamSynchronize
//   query   cudaPointerGetAttributes on a pageable address
// Each operation's latency (us): median and max over the registering
// window, against the same operations with no registration running.
//
//   nvcc -O2 -arch=sm_90 -std=c++17 bench/register_beside_copies.cu -o rbc
//   ./rbc [MiB to register] [piece MiB]
#include "bench_threads.hpp"
#include "cuda_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using hce_bench::now;

__global__ void empty_kernel() {}

struct Lat {
  std::vector<double> us;
  void add(double s) { us.push_back(s * 1e6); }
  double q(double f) {
    if (us.empty())
      return 0;
    std::sort(us.begin(), us.end());
    return us[std::min(us.size() - 1, size_t(f * double(us.size())))];
  }
};

// Runs the three operations in turn until `stop`, at most `max_rounds`.
void time_ops(std::atomic<bool> &stop, int max_rounds, char *pinned, char *dev,
              char *pageable, cudaStream_t s, Lat (&lat)[3]) {
  constexpr size_t kCopy = size_t(1) << 20;
  for (int r = 0; r < max_rounds && !stop.load(); ++r) {
    double t = now();
    CK(cudaMemcpyAsync(dev, pinned, kCopy, cudaMemcpyHostToDevice, s));
    CK(cudaStreamSynchronize(s));
    lat[0].add(now() - t);
    t = now();
    empty_kernel<<<1, 1, 0, s>>>();
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    lat[1].add(now() - t);
    t = now();
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, pageable + size_t(r % 64) * 4096) != cudaSuccess)
      cudaGetLastError();
    lat[2].add(now() - t);
  }
}

} // namespace

int main(int argc, char **argv) {
  const size_t mib = argc > 1 ? size_t(std::atoll(argv[1])) : 256;
  const size_t piece = (argc > 2 ? size_t(std::atoll(argv[2])) : 32) << 20;
  const size_t bytes = mib << 20;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  CK(cudaFree(nullptr));
  char *pinned = nullptr, *dev = nullptr;
  CK(cudaMallocHost(reinterpret_cast<void **>(&pinned), size_t(1) << 20));
  CK(cudaMalloc(reinterpret_cast<void **>(&dev), size_t(1) << 20));
  std::memset(pinned, 1, size_t(1) << 20);
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  char *host = static_cast<char *>(std::aligned_alloc(4096, bytes));
  std::memset(host, 3, bytes); // faulted in, as a program's input is

  std::printf("%s, %zu MiB registered in %zu MiB pieces\n", prop.name, mib, piece >> 20);
  Lat quiet[3];
  std::atomic<bool> stop{false};
  time_ops(stop, 2000, pinned, dev, host, s, quiet); // warm-up
  for (Lat &l : quiet)
    l.us.clear();
  time_ops(stop, 2000, pinned, dev, host, s, quiet);

  for (const char *phase : {"register", "unregister"}) {
    Lat busy[3];
    stop = false;
    double reg_s = 0;
    std::thread r([&] {
      double t = now();
      for (size_t at = 0; at < bytes; at += piece) {
        void *p = host + at;
        const size_t n = std::min(piece, bytes - at);
        if (phase[0] == 'r')
          CK(cudaHostRegister(p, n, cudaHostRegisterPortable));
        else
          CK(cudaHostUnregister(p));
      }
      reg_s = now() - t;
      stop = true;
    });
    time_ops(stop, 1 << 30, pinned, dev, host, s, busy);
    r.join();
    std::printf("%-10s took %.2f ms (%.1f ms/GiB)\n", phase, reg_s * 1e3,
                reg_s * 1e3 * 1024.0 / double(mib));
    std::printf("  %-7s %10s %10s %10s %10s %8s\n", "op", "quiet p50", "p50", "p90", "max",
                "count");
    const char *names[3] = {"copy", "launch", "query"};
    for (int k = 0; k < 3; ++k)
      std::printf("  %-7s %10.1f %10.1f %10.1f %10.1f %8zu\n", names[k], quiet[k].q(0.5),
                  busy[k].q(0.5), busy[k].q(0.9), busy[k].q(1.0), busy[k].us.size());
  }
  std::free(host);
  return 0;
}
