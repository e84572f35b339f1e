// Writing into host memory that no one has touched yet: what a download
// into a program's fresh output array (blackscholes' call/put, matadd's C,
// malloc'ed and first written by the copy) costs in page faults, and what
// faulting the pages in another way saves.  No GPU: the staging pool's
// drain is a memcpy from a pinned slot into the host array, done here from
// an ordinary buffer by T threads, each taking slots index, index + T, ...
// as StagingPool::work does.
//
//   hce_bench_host_faults [MiB] [threads] [reps] [slot KiB]
//
// Methods (GB/s of the array written, median of reps; a fresh mmap each):
//   touched     the array written once before (the pages exist): the bound
//   fault       memcpy into fresh pages (a fault per 4 KiB page)
//   populate    madvise(MADV_POPULATE_WRITE) of the slot's range, then memcpy
//   huge        madvise(MADV_HUGEPAGE) on the array first, then memcpy
#include "bench_threads.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {

using hce_bench::now;
using hce_bench::parallel;

char *fresh(size_t bytes) {
  void *p =
      mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  return static_cast<char *>(p);
}

// One rep of `method`: seconds to fill `bytes` of a fresh array from the
// per-thread slots.
double one(const std::string &method, size_t bytes, int threads, size_t slot,
           const std::vector<std::vector<char>> &src) {
  char *a = fresh(bytes);
  if (method == "touched")
    std::memset(a, 1, bytes);
  const double t0 = now();
  if (method == "huge" && madvise(a, bytes, MADV_HUGEPAGE) != 0)
    std::perror("madvise(MADV_HUGEPAGE)");
  parallel(threads, [&](int i) {
    for (size_t off = size_t(i) * slot; off < bytes; off += size_t(threads) * slot) {
      const size_t n = std::min(slot, bytes - off);
      if (method == "populate" && madvise(a + off, n, MADV_POPULATE_WRITE) != 0) {
        std::perror("madvise(MADV_POPULATE_WRITE)");
        std::exit(1);
      }
      std::memcpy(a + off, src[size_t(i)].data(), n);
    }
  });
  const double t = now() - t0;
  for (size_t off = 0; off < bytes; off += 4096)
    if (a[off] != src[0][0]) {
      std::fprintf(stderr, "wrong byte at %zu\n", off);
      std::exit(1);
    }
  munmap(a, bytes);
  return t;
}

} // namespace

int main(int argc, char **argv) {
  const size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 8;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
  const size_t slot = (argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 1024) << 10;
  if (mib == 0 || threads < 1 || reps < 1 || slot == 0) {
    std::fprintf(stderr,
                 "usage: hce_bench_host_faults [MiB] [threads] [reps] [slot KiB]\n");
    return 2;
  }
  const size_t bytes = mib << 20;
  std::vector<std::vector<char>> src(size_t(threads), std::vector<char>(slot, 7));
  std::string thp;
  std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), thp);
  std::printf("# %zu MiB, %d threads, %zu KiB slots, THP: %s\n", mib, threads, slot >> 10,
              thp.c_str());
  for (const char *m : {"touched", "fault", "populate", "huge"}) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r)
      t.push_back(one(m, bytes, threads, slot, src));
    std::sort(t.begin(), t.end());
    std::printf("%-9s %7.2f GB/s  (%.2f ms median)\n", m,
                double(bytes) / t[t.size() / 2] / 1e9, 1e3 * t[t.size() / 2]);
  }
  return 0;
}
