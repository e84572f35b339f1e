#include "data/footprint.hpp"

#include "hce/hce.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

namespace hce {

namespace {

using i128 = __int128;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t saturate(i128 v) {
  if (v < kMin)
    return kMin;
  if (v > kMax)
    return kMax;
  return static_cast<int64_t>(v);
}

int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

// The footprint as a lattice of intervals of length `len` starting at
//   base + i*S + j*T,  i in [0, n), j in [0, B),  S, T >= 0,
// i.e. with both axes sorted ascending, into `out` (emptied first).
void lattice(int64_t base, int64_t n, int64_t S, int64_t B, int64_t T, int64_t len,
             IntervalSet &out) {
  out.clear();
  // An axis whose step is 0 (or that has one point) collapses to one point.
  if (S == 0)
    n = 1;
  if (T == 0)
    B = 1;
  if (n == 1 && B > 1) { // make the iteration axis the non-trivial one
    std::swap(n, B);
    std::swap(S, T);
  }
  if (B == 1) {
    if (n == 1 || S <= len) {
      out.append(base, base + (n - 1) * S + len);
    } else {
      for (int64_t i = 0; i < n; ++i)
        out.append(base + i * S, base + i * S + len);
    }
    return;
  }
  // Two real axes.  Fold whichever axis is contiguous on its own.
  if (S <= len) { // iterations fold into one run per block
    int64_t run = (n - 1) * S + len;
    for (int64_t j = 0; j < B; ++j)
      out.append(base + j * T, base + j * T + run);
    return;
  }
  if (T <= len) { // blocks fold into one run per iteration
    int64_t run = (B - 1) * T + len;
    for (int64_t i = 0; i < n; ++i)
      out.append(base + i * S, base + i * S + run);
    return;
  }
  // Both have gaps.  If one axis's whole extent fits inside one step of the
  // other, the nested order is already ascending.
  if ((B - 1) * T + len <= S) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < B; ++j)
        out.append(base + i * S + j * T, base + i * S + j * T + len);
    return;
  }
  if ((n - 1) * S + len <= T) {
    for (int64_t j = 0; j < B; ++j)
      for (int64_t i = 0; i < n; ++i)
        out.append(base + i * S + j * T, base + i * S + j * T + len);
    return;
  }
  // Interleaved lattice: generate and sort.
  std::vector<Interval> ivs;
  ivs.reserve(static_cast<size_t>(n * B));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < B; ++j)
      ivs.push_back({base + i * S + j * T, base + i * S + j * T + len});
  out = IntervalSet::from_intervals(std::move(ivs));
}

std::string quoted(const char *name) {
  std::string s = "map '";
  s += (name && *name) ? name : "?";
  s += "'";
  return s;
}

// The start of a message about map `name`, made only when a check fails:
// maps are checked on every execution, and a stream costs a locale.
std::ostringstream complaint(const char *name) {
  std::ostringstream os;
  os << quoted(name) << ": ";
  return os;
}

// The elements iterations [lb, ub) touch, [lo, hi), exact in 128-bit
// arithmetic (ub > lb, a shape with len > 0 and blocks >= 1).
std::pair<i128, i128> exact_hull(const MapShape &sh, int64_t lb, int64_t ub) {
  const i128 s_first = static_cast<i128>(sh.scale) * lb;
  const i128 s_last = static_cast<i128>(sh.scale) * (ub - 1);
  const i128 b_last = sh.blocks > 1 ? static_cast<i128>(sh.stride) * (sh.blocks - 1)
                                    : static_cast<i128>(0);
  return {static_cast<i128>(sh.offset) + std::min(s_first, s_last) +
              std::min<i128>(0, b_last),
          static_cast<i128>(sh.offset) + std::max(s_first, s_last) +
              std::max<i128>(0, b_last) + sh.len};
}

} // namespace

MapShape shape_of(const hce_map &m) {
  if (m.kind & HCE_MAP_ROWS) {
    // An array of row pointers is tracked as the flattened array of its
    // rows' sections: element c of row r is r*row_len + (c - row_offset).
    const int64_t w = m.row_len;
    return MapShape{m.scale * w, m.offset * w, m.len * w, m.blocks, m.stride * w};
  }
  return MapShape{m.scale, m.offset, m.len, m.blocks, m.stride};
}

Interval footprint_hull(const MapShape &sh, int64_t lb, int64_t ub) {
  if (ub <= lb || sh.len <= 0 || sh.blocks <= 0)
    return {0, 0};
  const auto [lo, hi] = exact_hull(sh, lb, ub);
  return {saturate(lo), saturate(hi)};
}

IntervalSet footprint(const MapShape &sh, int64_t lb, int64_t ub,
                      int64_t extent) {
  IntervalSet out;
  footprint(sh, lb, ub, extent, out);
  return out;
}

void footprint(const MapShape &sh, int64_t lb, int64_t ub, int64_t extent,
               IntervalSet &out) {
  if (ub <= lb || sh.len <= 0 || sh.blocks <= 0 || extent == 0) {
    out.clear();
    return;
  }
  int64_t n = ub - lb;
  int64_t B = sh.blocks;
  int64_t T = B > 1 ? abs64(sh.stride) : 0;
  int64_t S = abs64(sh.scale);
  // Lowest start: the iteration and block at the low end of each axis.
  int64_t base = sh.offset + std::min(sh.scale * lb, sh.scale * (ub - 1)) +
                 (B > 1 ? std::min<int64_t>(0, sh.stride * (B - 1)) : 0);
  if (extent > 0) {
    Interval h = footprint_hull(sh, lb, ub);
    if (h.hi <= 0 || h.lo >= extent) {
      out.clear();
      return;
    }
  }
  lattice(base, n, S, B, T, sh.len, out);
  if (extent > 0)
    out.clip(0, extent);
}

namespace {
int64_t clamp_extent(const hce_map &m) {
  if (m.extent <= 0)
    return kMax;
  return (m.kind & HCE_MAP_ROWS) ? m.extent * m.row_len : m.extent;
}
} // namespace

IntervalSet footprint(const hce_map &m, int64_t lb, int64_t ub,
                      int64_t extent) {
  return footprint(shape_of(m), lb, ub, extent < 0 ? clamp_extent(m) : extent);
}

void footprint(const hce_map &m, int64_t lb, int64_t ub, IntervalSet &out) {
  footprint(shape_of(m), lb, ub, clamp_extent(m), out);
}

Interval clamped_hull(const hce_map &m, int64_t lb, int64_t ub) {
  Interval h = footprint_hull(shape_of(m), lb, ub);
  h.lo = std::max<int64_t>(h.lo, 0);
  h.hi = std::min(h.hi, clamp_extent(m));
  return h.hi > h.lo ? h : Interval{0, 0};
}

namespace {

// A row-pointer map is checked in rows (the section of the table), then
// its flattened form must stay within 64 bits.
std::string check_row_map(const hce_map &m, int64_t iterations) {
  if (m.row_len <= 0 || m.row_offset < 0)
    return quoted(m.name) + ": the section of each row (" +
           std::to_string(m.row_offset) + ", " + std::to_string(m.row_len) +
           " elements) is empty or starts before the row";
  hce_map rows = m;
  rows.kind &= ~HCE_MAP_ROWS;
  if (std::string err = check_map(rows, iterations); !err.empty())
    return err + " (counting rows)";
  const int64_t limit = kMax / 4 / m.row_len;
  Interval h = footprint_hull(shape_of(rows), 0, std::max<int64_t>(iterations, 1));
  for (int64_t v : {m.scale, m.offset, m.len, m.stride, m.extent, h.lo, h.hi})
    if (v > limit || v < -limit)
      return quoted(m.name) + ": " + std::to_string(v) + " rows of " +
             std::to_string(m.row_len) + " elements overflow a 64-bit index";
  return "";
}

} // namespace

std::string check_map(const hce_map &m, int64_t iterations) {
  if (m.kind & HCE_MAP_ROWS)
    return check_row_map(m, iterations);
  const MapShape sh = shape_of(m);
  // Well-formedness and overflow: the unclamped check with no extent,
  // whose only bounds complaint is the lower end, handled below.
  MapShape moved = sh;
  Interval all = footprint_hull(sh, 0, iterations);
  if (all.lo < 0 && all.lo > kMin / 2)
    moved.offset = sh.offset - all.lo; // shift above 0 for the shape checks
  if (std::string err = check_footprint(moved, iterations, -1, m.name); !err.empty())
    return err;
  if (iterations == 0 || sh.len == 0)
    return "";
  const int64_t ext = clamp_extent(m);
  if (sh.scale == 0 || iterations == 1) {
    if (all.lo < 0 || all.hi > ext) {
      std::ostringstream os = complaint(m.name);
      os << "the section covers elements [" << all.lo << ", " << all.hi
         << "), outside the array";
      if (m.extent > 0)
        os << " (" << m.extent << " elements)";
      return os.str();
    }
    return "";
  }
  for (int64_t k : {int64_t(0), iterations - 1}) {
    Interval h = footprint_hull(sh, k, k + 1);
    if (h.hi <= 0 || h.lo >= ext) {
      std::ostringstream os = complaint(m.name);
      os << "iteration " << k << " touches only elements [" << h.lo << ", " << h.hi
         << "), all outside the array";
      if (m.extent > 0)
        os << " (" << m.extent << " elements)";
      return os.str();
    }
  }
  return "";
}

bool iterations_share_elements(const MapShape &sh, int64_t iterations) {
  if (sh.len <= 0 || sh.blocks <= 0)
    return false;
  const i128 len = sh.len;
  // Blocks of one iteration overlapping each other.
  if (sh.blocks > 1 && abs64(sh.stride) < sh.len)
    return true;
  if (iterations <= 1)
    return false;
  if (sh.scale == 0)
    return true; // every iteration the same section
  // Iterations k and k+dk (1 <= dk < iterations) overlap when, for some
  // block difference db, |scale*dk + stride*db| < len.  For each db the
  // closest dk to -stride*db/scale is one of two integers.
  const i128 S = sh.scale, T = sh.blocks > 1 ? sh.stride : 0;
  const int64_t B = sh.blocks > 1 ? sh.blocks : 1;
  // One block: neighbouring iterations are the closest (the search below
  // with db = 0 only, less its 128-bit divisions: ~150 instructions of each
  // execution of a region whose maps move, lud's 511).
  if (B == 1)
    return (S < 0 ? -S : S) < len;
  auto near_zero = [&](i128 dk, i128 db) {
    if (dk < 1 || dk > iterations - 1)
      return false;
    i128 v = S * dk + T * db;
    return (v < 0 ? -v : v) < len;
  };
  for (int64_t db = -(B - 1); db <= B - 1; ++db) {
    i128 target = -(T * db);
    // dk ~ target / S, both floor and ceil, clamped to [1, iterations-1].
    i128 q = target / S;
    for (i128 dk : {q - 1, q, q + 1}) {
      i128 c = std::clamp<i128>(dk, 1, iterations - 1);
      if (near_zero(c, db))
        return true;
    }
  }
  return false;
}

std::string check_footprint(const MapShape &sh, int64_t iterations, int64_t extent,
                            const char *name) {
  if (iterations < 0) {
    std::ostringstream os = complaint(name);
    os << "negative iteration count " << iterations;
    return os.str();
  }
  if (sh.len < 0) {
    std::ostringstream os = complaint(name);
    os << "negative section length " << sh.len;
    return os.str();
  }
  if (sh.blocks < 1) {
    std::ostringstream os = complaint(name);
    os << "block count must be at least 1 (got " << sh.blocks << ")";
    return os.str();
  }
  if (iterations == 0 || sh.len == 0)
    return "";
  const auto [lo, hi] = exact_hull(sh, 0, iterations);
  if (lo < kMin || hi > kMax) {
    std::ostringstream os = complaint(name);
    os << "element indices overflow 64 bits (scale " << sh.scale << ", offset "
       << sh.offset << ", " << iterations << " iterations)";
    return os.str();
  }
  auto where = [&](std::ostringstream &os, bool low_end) {
    // The iteration and block that reach the low (or high) end.
    int64_t k = ((sh.scale >= 0) == low_end) ? 0 : iterations - 1;
    int64_t b =
        (sh.blocks > 1 && ((sh.stride >= 0) != low_end)) ? sh.blocks - 1 : 0;
    os << "iteration " << k;
    if (sh.blocks > 1)
      os << " (block " << b << ")";
  };
  if (lo < 0) {
    std::ostringstream os = complaint(name);
    where(os, true);
    os << " touches element " << static_cast<int64_t>(lo)
       << ", below the start of the array";
    return os.str();
  }
  if (extent >= 0 && hi > extent) {
    std::ostringstream os = complaint(name);
    where(os, false);
    os << " touches element " << static_cast<int64_t>(hi - 1)
       << ", beyond the end of the array (" << extent << " elements)";
    return os.str();
  }
  return "";
}

std::string check_footprint(const hce_map &m, int64_t iterations,
                            int64_t extent) {
  return check_footprint(shape_of(m), iterations, extent, m.name);
}

} // namespace hce
