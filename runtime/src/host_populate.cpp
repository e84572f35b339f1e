#include "host_populate.hpp"

#include "data/footprint.hpp"
#include "hce/hce.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14 (older headers lack it)
#endif

namespace hce {
namespace {

std::atomic<bool> refused{false}; // the kernel said EINVAL once

// Pieces a thread populates at a time: large enough that a madvise call is
// cheap beside its work, small enough that a team shares a 100 MB array.
constexpr uintptr_t kPiece = uintptr_t(4) << 20;

} // namespace

std::vector<HostRange> written_host_ranges(const hce_region &r, size_t min_bytes) {
  std::vector<HostRange> out;
  size_t total = 0;
  for (int m = 0; m < r.num_maps; ++m) {
    const hce_map &map = r.maps[m];
    if (!(map.kind & HCE_MAP_FROM) || (map.kind & HCE_MAP_ROWS) || !map.host ||
        map.elem_size == 0)
      continue;
    const Interval hull = clamped_hull(map, 0, r.iterations);
    if (hull.hi <= hull.lo)
      continue;
    const uintptr_t base = reinterpret_cast<uintptr_t>(map.host);
    out.push_back({base + uintptr_t(hull.lo) * map.elem_size,
                   base + uintptr_t(hull.hi) * map.elem_size});
    total += size_t(out.back().second - out.back().first);
  }
  if (total < min_bytes)
    out.clear();
  return out;
}

size_t populate_for_writing(const std::vector<HostRange> &ranges) {
  if (refused.load(std::memory_order_relaxed))
    return 0;
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  // Page-aligned pieces (a partial page at either end is populated whole:
  // madvise works on pages, and the contents do not change).
  std::vector<HostRange> pieces;
  for (auto [lo, hi] : ranges) {
    lo &= ~(page - 1);
    hi = (hi + page - 1) & ~(page - 1);
    for (uintptr_t at = lo; at < hi; at += kPiece)
      pieces.push_back({at, std::min(hi, at + kPiece)});
  }
  std::atomic<size_t> done{0};
  const long n = long(pieces.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (long k = 0; k < n; ++k) {
    if (refused.load(std::memory_order_relaxed))
      continue;
    auto [lo, hi] = pieces[size_t(k)];
    if (madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_POPULATE_WRITE) == 0)
      done.fetch_add(hi - lo, std::memory_order_relaxed);
    else if (errno == EINVAL)
      refused.store(true, std::memory_order_relaxed);
    // Other errors (a piece not mapped writable): that piece is left to
    // the copy, as before.
  }
  return done.load();
}

} // namespace hce
