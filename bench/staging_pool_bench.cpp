// The runtime's staging pool (runtime/src/cuda/staging_pool.cpp) by slot
// size and worker count: what one GPU-alone first execution of a data region
// pays to move its arrays from pageable memory (issue 12, session 23's
// finding that the pool staged at a third to a half of what eight threads
// with 8 MiB slots reach on the H200 machine, call NH).
//
//   hce_bench_staging_pool [MiB,MiB,...] [reps] [slot-KiB,...] [threads,...]
//
// For every size, slot size and worker count: the pool is made (its time,
// ms), then `reps` uploads and downloads of a pageable array written just
// before each copy, as a program's input is.  Printed: the first upload's
// and the median upload's and download's GB/s, each copy timed from the call
// to the stream's synchronisation; and `both`: an upload and a download of
// as many bytes at once, from two threads on two streams (a pipelined GPU's
// chunk k+1 going up while chunk k comes home), both directions' bytes over
// the wall.  Every copy is checked: the bytes that come back must be the
// bytes that went.
#include "cuda/staging_pool.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void fail(const std::string &why) {
  std::fprintf(stderr, "hce_bench_staging_pool: error: %s\n", why.c_str());
  std::exit(1);
}

void check(cudaError_t rc, const char *what) {
  if (rc != cudaSuccess)
    fail(std::string(what) + ": " + cudaGetErrorString(rc));
}

std::vector<size_t> list(const char *arg, std::vector<size_t> fallback) {
  if (!arg)
    return fallback;
  std::vector<size_t> out;
  std::stringstream ss(arg);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char *end = nullptr;
    const unsigned long long v = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || *end || v == 0)
      fail("bad list '" + std::string(arg) + "'");
    out.push_back(size_t(v));
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A pattern that differs per rep, so a copy that moved nothing is caught.
void fill(char *p, size_t bytes, unsigned rep) {
  auto *w = reinterpret_cast<unsigned *>(p);
  for (size_t i = 0; i < bytes / sizeof(unsigned); ++i)
    w[i] = unsigned(i) * 2654435761u + rep;
}

} // namespace

int main(int argc, char **argv) {
  const std::vector<size_t> mibs = list(argc > 1 ? argv[1] : nullptr, {72, 128, 512});
  const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const std::vector<size_t> slots_kib =
      list(argc > 3 ? argv[3] : nullptr, {512, 1024, 2048, 4096, 8192});
  const std::vector<size_t> threads = list(argc > 4 ? argv[4] : nullptr, {4, 8, 12});

  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "cudaFree (context)");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  cudaStream_t stream = nullptr, stream2 = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaStreamCreateWithFlags(&stream2, cudaStreamNonBlocking), "cudaStreamCreate");
  std::printf("%s, %d reps\n", prop.name, reps);
  std::printf("%8s %8s %7s %9s %9s %9s %9s %9s\n", "MiB", "slotKiB", "threads", "make_ms",
              "up1_GBs", "up_GBs", "down_GBs", "both_GBs");

  for (size_t mib : mibs) {
    const size_t bytes = mib << 20;
    char *host = static_cast<char *>(std::malloc(bytes));
    char *back = static_cast<char *>(std::malloc(bytes));
    char *host2 = static_cast<char *>(std::malloc(bytes));
    char *back2 = static_cast<char *>(std::malloc(bytes));
    char *dev = nullptr, *dev2 = nullptr;
    if (!host || !back || !host2 || !back2)
      fail("no host memory for " + std::to_string(mib) + " MiB");
    check(cudaMalloc(reinterpret_cast<void **>(&dev), bytes), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void **>(&dev2), bytes), "cudaMalloc");
    std::memset(back, 0, bytes);
    for (size_t kib : slots_kib) {
      for (size_t t : threads) {
        std::string why;
        const double t0 = now();
        auto pool = hce::StagingPool::create(0, int(t), why, kib << 10);
        const double made = now() - t0;
        if (!pool)
          fail(why);
        std::vector<double> up, down, both;
        for (int r = 0; r < reps; ++r) {
          fill(host, bytes, unsigned(r));
          double s = now();
          if (!pool->upload(dev, host, bytes, int(t), stream, why))
            fail(why);
          check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
          up.push_back(double(bytes) / (now() - s) / 1e9);
          std::memset(back, 0xff, bytes); // written, as a program's output is
          s = now();
          if (!pool->download(back, dev, bytes, int(t), stream, why))
            fail(why);
          check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
          down.push_back(double(bytes) / (now() - s) / 1e9);
          if (std::memcmp(host, back, bytes) != 0)
            fail("the bytes that came back differ (" + std::to_string(mib) + " MiB, " +
                 std::to_string(kib) + " KiB slots)");
          // Both ways at once: dev's bytes (host's) come home from dev2 while
          // host2's go up into dev.
          check(cudaMemcpy(dev2, dev, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
          fill(host2, bytes, unsigned(r) + 1000);
          std::memset(back2, 0xff, bytes);
          std::string why2;
          bool down_ok = true;
          s = now();
          std::thread home([&] {
            check(cudaSetDevice(0), "cudaSetDevice");
            down_ok = pool->download(back2, dev2, bytes, int(t), stream2, why2) &&
                      cudaStreamSynchronize(stream2) == cudaSuccess;
          });
          if (!pool->upload(dev, host2, bytes, int(t), stream, why))
            fail(why);
          check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
          home.join();
          both.push_back(2 * double(bytes) / (now() - s) / 1e9);
          if (!down_ok)
            fail("download beside an upload: " + why2);
          if (std::memcmp(host, back2, bytes) != 0)
            fail("a download beside an upload brought other bytes");
          check(cudaMemcpy(back, dev, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
          if (std::memcmp(host2, back, bytes) != 0)
            fail("an upload beside a download sent other bytes");
        }
        std::printf("%8zu %8zu %7zu %9.2f %9.1f %9.1f %9.1f %9.1f\n", mib, kib, t,
                    made * 1e3, up[0], median(up), median(down), median(both));
        std::fflush(stdout);
      }
    }
    check(cudaFree(dev), "cudaFree");
    check(cudaFree(dev2), "cudaFree");
    std::free(host);
    std::free(back);
    std::free(host2);
    std::free(back2);
  }
  return 0;
}
