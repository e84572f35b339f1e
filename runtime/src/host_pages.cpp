#include "host_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <vector>

namespace hce {
namespace {

// The kernel's transparent huge page (2 MiB with 4 KiB pages on x86-64;
// 512 MiB with 64 KiB pages on some aarch64 kernels).
size_t huge_page_bytes() {
  static const size_t bytes = [] {
    size_t b = 0;
    std::ifstream("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") >> b;
    return b > 0 && (b & (b - 1)) == 0 ? b : kHugePageBytes;
  }();
  return bytes;
}

} // namespace

size_t host_page_size() {
  static const size_t page = [] {
    const long v = sysconf(_SC_PAGESIZE);
    return v > 0 ? size_t(v) : size_t(4096);
  }();
  return page;
}

void untouched_blocks(void *p, size_t bytes, std::vector<HostRange> &out) {
  out.clear();
  const size_t huge = huge_page_bytes();
  const long page_l = sysconf(_SC_PAGESIZE);
  if (page_l <= 0 || huge % size_t(page_l) != 0)
    return;
  const size_t page = size_t(page_l);
  const uintptr_t lo = (uintptr_t(p) + huge - 1) & ~(huge - 1);
  const uintptr_t hi = (uintptr_t(p) + bytes) & ~(huge - 1);
  if (hi <= lo)
    return;
  // mincore over at most kWindow bytes at a time (one byte per page).
  constexpr size_t kWindow = size_t(1) << 30;
  const size_t step = std::max(huge, kWindow / huge * huge);
  std::vector<unsigned char> resident(step / page);
  uintptr_t run = 0; // start of the current run of untouched blocks (0: none)
  auto flush = [&](uintptr_t end) {
    if (run != 0)
      out.push_back({reinterpret_cast<char *>(run), size_t(end - run)});
    run = 0;
  };
  for (uintptr_t w = lo; w < hi; w += step) {
    const size_t len = std::min<uintptr_t>(step, hi - w);
    if (mincore(reinterpret_cast<void *>(w), len, resident.data()) != 0) {
      flush(w);
      return; // not all mapped: leave the rest alone
    }
    for (uintptr_t b = w; b < w + len; b += huge) {
      bool untouched = true;
      for (size_t k = (b - w) / page, e = k + huge / page; untouched && k < e; ++k)
        untouched = (resident[k] & 1) == 0;
      if (untouched && run == 0)
        run = b;
      else if (!untouched)
        flush(b);
    }
  }
  flush(hi);
}

// Only huge blocks none of whose pages exist: on an array the program
// already wrote, the advice lets khugepaged collapse its pages while the
// loop runs (the H200's jacobi2d on the CPU alone, call PB: 0.15 -> 0.22 s
// in one round), for nothing -- its faults are behind it.
bool advise_huge_pages(const std::vector<HostRange> &untouched) {
  bool advised = false;
  for (const HostRange &r : untouched)
    advised = madvise(r.p, r.bytes, MADV_HUGEPAGE) == 0 || advised;
  return advised;
}

bool advise_huge_pages(void *p, size_t bytes) {
  if (bytes < kHugeAdviceMinBytes)
    return false;
  std::vector<HostRange> untouched;
  untouched_blocks(p, bytes, untouched);
  return advise_huge_pages(untouched);
}

char *alloc_on_huge_pages(size_t &bytes) {
  const size_t huge = huge_page_bytes();
  bytes = (std::max<size_t>(bytes, 1) + huge - 1) / huge * huge;
  char *p = static_cast<char *>(std::aligned_alloc(huge, bytes));
  if (p)
    madvise(p, bytes, MADV_HUGEPAGE); // advice: no THP, 4 KiB pages as before
  return p;
}

} // namespace hce
