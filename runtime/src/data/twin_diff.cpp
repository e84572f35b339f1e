#include "data/twin_diff.hpp"

#include <algorithm>
#include <cstring>

namespace hce {

size_t packed_bytes(const IntervalSet &elems, size_t elem_size) {
  return size_t(elems.total_length()) * elem_size;
}

void gather(const char *base, const IntervalSet &elems, size_t elem_size, char *packed) {
  for (const Interval &iv : elems) {
    size_t bytes = size_t(iv.length()) * elem_size;
    std::memcpy(packed, base + size_t(iv.lo) * elem_size, bytes);
    packed += bytes;
  }
}

IntervalSet changed_elements(const char *twin, const char *now, const IntervalSet &elems,
                             size_t elem_size) {
  IntervalSet out;
  size_t at = 0;
  for (const Interval &iv : elems) {
    // Whole runs compare equal most of the time: check them at once.
    size_t bytes = size_t(iv.length()) * elem_size;
    if (std::memcmp(twin + at, now + at, bytes) != 0) {
      for (int64_t e = iv.lo; e < iv.hi; ++e) {
        size_t off = at + size_t(e - iv.lo) * elem_size;
        if (std::memcmp(twin + off, now + off, elem_size) != 0)
          out.append(e, e + 1);
      }
    }
    at += bytes;
  }
  return out;
}

IntervalSet conflicting_elements(const char *base, const char *twin, const char *,
                                 const IntervalSet &elems, const IntervalSet &changed,
                                 size_t elem_size) {
  IntervalSet out;
  size_t at = 0;
  auto c = changed.begin();
  for (const Interval &iv : elems) {
    for (; c != changed.end() && c->lo < iv.hi; ++c) {
      for (int64_t e = std::max(c->lo, iv.lo); e < std::min(c->hi, iv.hi); ++e) {
        const char *host = base + size_t(e) * elem_size;
        size_t off = at + size_t(e - iv.lo) * elem_size;
        // Even where the host already holds this chunk's value: two
        // updates of the same size (+1 here and +1 there) look alike.
        if (std::memcmp(host, twin + off, elem_size) != 0)
          out.append(e, e + 1);
      }
      if (c->hi > iv.hi)
        break;
    }
    at += size_t(iv.length()) * elem_size;
  }
  return out;
}

void scatter(char *base, const char *packed, const IntervalSet &elems,
             const IntervalSet &which, size_t elem_size) {
  size_t at = 0;
  auto w = which.begin();
  for (const Interval &iv : elems) {
    for (; w != which.end() && w->lo < iv.hi; ++w) {
      int64_t lo = std::max(w->lo, iv.lo), hi = std::min(w->hi, iv.hi);
      if (hi > lo)
        std::memcpy(base + size_t(lo) * elem_size,
                    packed + at + size_t(lo - iv.lo) * elem_size,
                    size_t(hi - lo) * elem_size);
      if (w->hi > iv.hi)
        break; // the rest of *w lies in the next interval of elems
    }
    at += size_t(iv.length()) * elem_size;
  }
}

} // namespace hce
