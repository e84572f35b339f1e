#include "host_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace hce {

bool advise_huge_pages(void *p, size_t bytes) {
  if (bytes < kHugeAdviceMinBytes)
    return false;
  const uintptr_t lo = (uintptr_t(p) + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const uintptr_t hi = (uintptr_t(p) + bytes) & ~(kHugePageBytes - 1);
  const long page = sysconf(_SC_PAGESIZE);
  if (hi <= lo || page <= 0 || kHugePageBytes % size_t(page) != 0)
    return false;
  // Only 2 MiB blocks none of whose pages exist: on an array the program
  // already wrote, the advice lets khugepaged collapse its pages while the
  // loop runs (the H200's jacobi2d on the CPU alone, call PB: 0.15 -> 0.22 s
  // in one round), for nothing -- its faults are behind it.
  const size_t per_block = kHugePageBytes / size_t(page);
  std::vector<unsigned char> resident((hi - lo) / size_t(page));
  if (mincore(reinterpret_cast<void *>(lo), hi - lo, resident.data()) != 0)
    return false;
  bool advised = false;
  uintptr_t run = 0; // start of the current run of untouched blocks (0: none)
  for (uintptr_t b = lo;; b += kHugePageBytes) {
    bool untouched = b < hi;
    for (size_t k = 0; untouched && k < per_block; ++k)
      untouched = (resident[(b - lo) / size_t(page) + k] & 1) == 0;
    if (untouched && run == 0)
      run = b;
    if (!untouched && run != 0) {
      advised =
          madvise(reinterpret_cast<void *>(run), b - run, MADV_HUGEPAGE) == 0 || advised;
      run = 0;
    }
    if (b >= hi)
      break;
  }
  return advised;
}

} // namespace hce
