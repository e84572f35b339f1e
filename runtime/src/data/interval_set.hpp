// A set of int64 element indices, stored as sorted, disjoint, coalesced
// half-open intervals [lo, hi).
//
// This is the currency of HCE's data layer: what a holder (host or device)
// has valid, what a range of iterations touches, what must be uploaded or
// downloaded.  Typical sets hold a handful of intervals (one per device range,
// plus halos), so the representation is a sorted std::vector:
//
//   - point queries (contains, overlaps) are O(log n);
//   - add/remove of one interval are O(log n + k) to find and rewrite the k
//     intervals they touch, plus one vector insert/erase (a memmove of the
//     tail, cheap for the sizes we see);
//   - set algebra with another set (unite, subtract, intersect, missing) is a
//     linear merge, O(n + m);
//   - append() builds a set from intervals given in ascending order in O(1)
//     amortised each (used by footprint generation).
//
// Invariant: for consecutive intervals x, y:  x.lo < x.hi < y.lo < y.hi
// (non-empty, sorted, disjoint, and not even touching: [0,2) and [2,4) are
// stored as [0,4)).
//
// Thread-compatible: const methods may run concurrently; anything else needs
// external locking.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <vector>

namespace hce {

struct Interval {
  int64_t lo = 0; // first element
  int64_t hi = 0; // one past the last element
  int64_t length() const { return hi - lo; }
  bool empty() const { return hi <= lo; }
  friend bool operator==(const Interval &, const Interval &) = default;
};

class IntervalSet {
public:
  using const_iterator = std::vector<Interval>::const_iterator;

  IntervalSet() = default;
  // The set [lo, hi) (empty when hi <= lo).
  IntervalSet(int64_t lo, int64_t hi);
  // Any intervals, in any order, possibly overlapping or empty.
  IntervalSet(std::initializer_list<Interval> ivs);
  static IntervalSet from_intervals(std::vector<Interval> ivs);

  // ---- single-interval updates -----------------------------------------
  // this ∪= [a, b); no-op when b <= a.
  void add(int64_t a, int64_t b);
  void add(Interval iv) { add(iv.lo, iv.hi); }
  // this −= [a, b); no-op when b <= a.
  void remove(int64_t a, int64_t b);
  void remove(Interval iv) { remove(iv.lo, iv.hi); }
  // Adds [a, b) where a >= lo of the last interval (ascending construction);
  // merges with the last interval when they overlap or touch.  O(1).
  // Falls back to add() when the precondition does not hold.
  void append(int64_t a, int64_t b);

  // ---- queries ------------------------------------------------------------
  // True when every element of [a, b) is in the set (true for empty [a, b)).
  bool contains(int64_t a, int64_t b) const;
  bool contains(int64_t x) const { return contains(x, x + 1); }
  bool contains(const IntervalSet &other) const;
  // True when some element of [a, b) is in the set.
  bool overlaps(int64_t a, int64_t b) const;
  bool overlaps(const IntervalSet &other) const;

  // ---- set algebra (in place, returning *this) ----------------------------
  IntervalSet &unite(const IntervalSet &other);     // this ∪= other
  IntervalSet &subtract(const IntervalSet &other);  // this −= other
  IntervalSet &intersect(const IntervalSet &other); // this ∩= other
  // this ∩= [a, b)
  IntervalSet &clip(int64_t a, int64_t b);

  // What of `wanted` is missing here: wanted − this.
  IntervalSet missing(const IntervalSet &wanted) const;

  friend IntervalSet operator|(IntervalSet a, const IntervalSet &b) {
    return a.unite(b);
  }
  friend IntervalSet operator-(IntervalSet a, const IntervalSet &b) {
    return a.subtract(b);
  }
  friend IntervalSet operator&(IntervalSet a, const IntervalSet &b) {
    return a.intersect(b);
  }

  // ---- size and iteration -------------------------------------------------
  // Number of elements (sum of interval lengths).
  int64_t total_length() const;
  size_t num_intervals() const { return ivs_.size(); }
  bool empty() const { return ivs_.empty(); }
  void clear() { ivs_.clear(); }
  // Smallest interval containing the set ({0,0} when empty).
  Interval hull() const;

  const_iterator begin() const { return ivs_.begin(); }
  const_iterator end() const { return ivs_.end(); }
  const std::vector<Interval> &intervals() const { return ivs_; }
  const Interval &operator[](size_t i) const { return ivs_[i]; }

  friend bool operator==(const IntervalSet &, const IntervalSet &) = default;

  // "{}" or "{[0,4) [6,8)}".
  std::string to_string() const;

  // Checks the representation invariant (for tests and assertions).
  bool valid() const;

private:
  // Index of the first interval whose hi >= a (the first that overlaps or
  // touches [a, ...)).
  size_t first_touching(int64_t a) const;

  std::vector<Interval> ivs_;
};

// `count` intervals of `length` elements whose starts are `pitch` apart,
// the first at `lo`: the rows of a 2-D section (lud's trailing rows), which a
// device copies in one strided (2-D) transfer instead of one per row.
struct StridedRun {
  int64_t lo = 0, length = 0, pitch = 0, count = 0;
  friend bool operator==(const StridedRun &, const StridedRun &) = default;
};

// The set's intervals, in order, grouped greedily into runs of equal length
// and equal pitch (a run of one interval has pitch 0).
std::vector<StridedRun> strided_runs(const IntervalSet &s);

std::ostream &operator<<(std::ostream &os, const IntervalSet &s);
std::ostream &operator<<(std::ostream &os, const Interval &iv);

} // namespace hce
