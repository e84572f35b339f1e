// One-shot transfers between pageable host memory and a GPU: which way to
// move data that crosses the link once (a co_exec outside a data region,
// issue 12's "deciding to pin, stage through pinned buffers or stay
// pageable from the cost model").  Each method moves the same bytes between
// a pageable host array and a device buffer, then the data is compared.
//
//   nvcc -O2 -arch=sm_90 -std=c++17 bench/host_transfer_bench.cu -o host_transfer_bench
//   ./host_transfer_bench [MiB] [reps] [busy-threads]
//
// Methods, H2D and D2H each (GB/s, median of `reps`; each rep uses arrays
// fresh from malloc, written once, as a program's input is):
//   pageable     cudaMemcpy from/to the pageable array (the driver stages)
//   register/T   cudaHostRegister in T page-aligned pieces by T threads, one
//                cudaMemcpyAsync per piece, cudaHostUnregister by T threads
//   stage/T      T threads, each with two 8 MiB pinned slots and a stream:
//                memcpy into a slot, cudaMemcpyAsync from it (H2D); the
//                reverse for D2H
// With busy-threads > 0, that many threads stream a triad over their own
// arrays meanwhile (a CPU team co-executing), and its GB/s is printed too.
#include "bench_threads.hpp"
#include "cuda_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>


namespace {

using hce_bench::now;
using hce_bench::parallel;

constexpr size_t kSlot = size_t(8) << 20;

// Pieces of [0, bytes) for T threads, page-aligned.
std::pair<size_t, size_t> piece(size_t bytes, int t, int i) {
  const size_t pg = 4096;
  size_t per = (bytes / t + pg - 1) / pg * pg;
  size_t lo = std::min(bytes, per * size_t(i)), hi = std::min(bytes, lo + per);
  return {lo, hi};
}

struct Stager {
  char *slot[2] = {nullptr, nullptr};
  cudaEvent_t done[2];
  cudaStream_t s;
  Stager() {
    for (int k = 0; k < 2; ++k) {
      CK(cudaMallocHost(reinterpret_cast<void **>(&slot[k]), kSlot));
      CK(cudaEventCreateWithFlags(&done[k], cudaEventDisableTiming));
    }
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
};

std::vector<Stager> *stagers;

void h2d(const std::string &m, int t, char *dev, const char *host, size_t bytes) {
  if (m == "pageable") {
    CK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
  } else if (m == "register") {
    parallel(t, [&](int i) {
      auto [lo, hi] = piece(bytes, t, i);
      if (hi > lo)
        CK(cudaHostRegister(const_cast<char *>(host) + lo, hi - lo,
                            cudaHostRegisterPortable));
    });
    for (int i = 0; i < t; ++i) { // a copy may not span two registrations
      auto [lo, hi] = piece(bytes, t, i);
      if (hi > lo)
        CK(cudaMemcpyAsync(dev + lo, host + lo, hi - lo, cudaMemcpyHostToDevice, 0));
    }
    CK(cudaStreamSynchronize(0));
    parallel(t, [&](int i) {
      auto [lo, hi] = piece(bytes, t, i);
      if (hi > lo)
        CK(cudaHostUnregister(const_cast<char *>(host) + lo));
    });
  } else { // stage
    parallel(t, [&](int i) {
      Stager &g = (*stagers)[size_t(i)];
      int k = 0;
      for (size_t off = size_t(i) * kSlot; off < bytes;
           off += size_t(t) * kSlot, k ^= 1) {
        size_t n = std::min(kSlot, bytes - off);
        CK(cudaEventSynchronize(g.done[k]));
        std::memcpy(g.slot[k], host + off, n);
        CK(cudaMemcpyAsync(dev + off, g.slot[k], n, cudaMemcpyHostToDevice, g.s));
        CK(cudaEventRecord(g.done[k], g.s));
      }
      CK(cudaStreamSynchronize(g.s));
    });
  }
}

void d2h(const std::string &m, int t, char *host, const char *dev, size_t bytes) {
  if (m == "pageable") {
    CK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
  } else if (m == "register") {
    parallel(t, [&](int i) {
      auto [lo, hi] = piece(bytes, t, i);
      if (hi > lo)
        CK(cudaHostRegister(host + lo, hi - lo, cudaHostRegisterPortable));
    });
    for (int i = 0; i < t; ++i) {
      auto [lo, hi] = piece(bytes, t, i);
      if (hi > lo)
        CK(cudaMemcpyAsync(host + lo, dev + lo, hi - lo, cudaMemcpyDeviceToHost, 0));
    }
    CK(cudaStreamSynchronize(0));
    parallel(t, [&](int i) {
      auto [lo, hi] = piece(bytes, t, i);
      if (hi > lo)
        CK(cudaHostUnregister(host + lo));
    });
  } else { // stage: D2H into slot k while slot k^1 is copied out
    parallel(t, [&](int i) {
      Stager &g = (*stagers)[size_t(i)];
      size_t prev_off = 0, prev_n = 0;
      int k = 0;
      for (size_t off = size_t(i) * kSlot; off < bytes;
           off += size_t(t) * kSlot, k ^= 1) {
        size_t n = std::min(kSlot, bytes - off);
        CK(cudaMemcpyAsync(g.slot[k], dev + off, n, cudaMemcpyDeviceToHost, g.s));
        CK(cudaEventRecord(g.done[k], g.s));
        if (prev_n) {
          CK(cudaEventSynchronize(g.done[k ^ 1]));
          std::memcpy(host + prev_off, g.slot[k ^ 1], prev_n);
        }
        prev_off = off;
        prev_n = n;
      }
      if (prev_n) {
        CK(cudaEventSynchronize(g.done[k ^ 1]));
        std::memcpy(host + prev_off, g.slot[k ^ 1], prev_n);
      }
    });
  }
}

// A CPU team streaming a triad while the copies run.  Its arrays are made
// before the copies start (the results of 2026-11-27 came from a version that
// made them inside the timed window: their busy column is not reliable).
struct Busy {
  static constexpr size_t N = size_t(4) << 20; // 3 x 32 MiB of doubles per thread
  std::atomic<bool> stop{false};
  std::atomic<long> bytes{0};
  std::vector<std::vector<double>> arrays;
  std::vector<std::thread> th;
  double t0 = 0;
  void start(int n) {
    arrays.assign(size_t(3 * n), std::vector<double>(N, 1.0));
    t0 = now();
    for (int i = 0; i < n; ++i)
      th.emplace_back([this, i] {
        double *a = arrays[size_t(3 * i)].data(), *b = arrays[size_t(3 * i + 1)].data(),
               *c = arrays[size_t(3 * i + 2)].data();
        while (!stop.load(std::memory_order_relaxed)) {
          for (size_t j = 0; j < N; ++j)
            c[j] = a[j] + 0.5 * b[j];
          bytes += long(3 * N * sizeof(double));
          std::swap(a, c);
        }
      });
  }
  double finish() {
    stop = true;
    for (auto &x : th)
      x.join();
    return double(bytes) / (now() - t0) / 1e9;
  }
};

} // namespace

int main(int argc, char **argv) {
  const size_t mib = argc > 1 ? size_t(std::atol(argv[1])) : 512;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  const int busy = argc > 3 ? std::atoi(argv[3]) : 0;
  const size_t bytes = mib << 20;
  CK(cudaSetDevice(0));
  CK(cudaFree(nullptr));
  char *dev = nullptr;
  CK(cudaMalloc(&dev, bytes));
  std::vector<Stager> st(8);
  stagers = &st;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %zu MiB, %d reps, %d busy threads\n", prop.name, mib, reps, busy);
  std::printf("%-12s %10s %10s %10s\n", "method", "H2D GB/s", "D2H GB/s", "busy GB/s");
  struct M {
    const char *name;
    int t;
  };
  const M methods[] = {{"pageable", 1}, {"register", 1}, {"register", 4}, {"register", 8},
                       {"stage", 1},    {"stage", 2},    {"stage", 4},    {"stage", 8}};
  unsigned seed = 12345;
  for (const M &m : methods) {
    std::vector<double> up, down;
    double busy_gbs = 0;
    for (int r = 0; r < reps; ++r) {
      // Fresh arrays each rep: a one-shot region sees memory it never
      // registered.  The source is written (faulted in) as input is; the
      // destination of the download too (a `from` array the program
      // allocated and initialised).
      char *src = static_cast<char *>(std::malloc(bytes));
      char *dst = static_cast<char *>(std::malloc(bytes));
      for (size_t i = 0; i < bytes; i += 64) {
        seed = seed * 1103515245u + 12345u;
        src[i] = char(seed >> 16);
        std::memset(src + i + 1, int(seed >> 8), 63);
      }
      std::memset(dst, 0x5a, bytes);
      Busy b;
      if (busy)
        b.start(busy);
      double t0 = now();
      h2d(m.name, m.t, dev, src, bytes);
      double t1 = now();
      d2h(m.name, m.t, dst, dev, bytes);
      double t2 = now();
      if (busy)
        busy_gbs += b.finish() / reps;
      if (std::memcmp(src, dst, bytes) != 0) {
        std::fprintf(stderr, "%s/%d: data differs after the round trip\n", m.name, m.t);
        return 1;
      }
      up.push_back(double(bytes) / (t1 - t0) / 1e9);
      down.push_back(double(bytes) / (t2 - t1) / 1e9);
      std::free(src);
      std::free(dst);
    }
    std::sort(up.begin(), up.end());
    std::sort(down.begin(), down.end());
    std::printf("%-12s %10.1f %10.1f %10.1f\n",
                (std::string(m.name) + "/" + std::to_string(m.t)).c_str(),
                up[up.size() / 2], down[down.size() / 2], busy_gbs);
  }
  return 0;
}
