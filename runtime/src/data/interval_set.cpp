#include "data/interval_set.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>

namespace hce {

IntervalSet::IntervalSet(int64_t lo, int64_t hi) {
  if (lo < hi)
    ivs_.push_back({lo, hi});
}

IntervalSet::IntervalSet(std::initializer_list<Interval> ivs)
    : IntervalSet(from_intervals(std::vector<Interval>(ivs))) {}

IntervalSet IntervalSet::from_intervals(std::vector<Interval> ivs) {
  std::erase_if(ivs, [](const Interval &iv) { return iv.empty(); });
  std::sort(ivs.begin(), ivs.end(),
            [](const Interval &x, const Interval &y) { return x.lo < y.lo; });
  IntervalSet s;
  s.ivs_.reserve(ivs.size());
  for (const Interval &iv : ivs)
    s.append(iv.lo, iv.hi);
  return s;
}

size_t IntervalSet::first_touching(int64_t a) const {
  auto it = std::partition_point(ivs_.begin(), ivs_.end(),
                                 [a](const Interval &iv) { return iv.hi < a; });
  return static_cast<size_t>(it - ivs_.begin());
}

void IntervalSet::add(int64_t a, int64_t b) {
  if (b <= a)
    return;
  // [i, j): the intervals that overlap or touch [a, b).
  size_t i = first_touching(a);
  auto jt =
      std::partition_point(ivs_.begin() + static_cast<ptrdiff_t>(i), ivs_.end(),
                           [b](const Interval &iv) { return iv.lo <= b; });
  size_t j = static_cast<size_t>(jt - ivs_.begin());
  if (i == j) {
    ivs_.insert(ivs_.begin() + static_cast<ptrdiff_t>(i), Interval{a, b});
    return;
  }
  Interval merged{std::min(a, ivs_[i].lo), std::max(b, ivs_[j - 1].hi)};
  ivs_[i] = merged;
  ivs_.erase(ivs_.begin() + static_cast<ptrdiff_t>(i + 1),
             ivs_.begin() + static_cast<ptrdiff_t>(j));
}

void IntervalSet::remove(int64_t a, int64_t b) {
  if (b <= a)
    return;
  // [i, j): the intervals that really overlap [a, b).
  auto it = std::partition_point(
      ivs_.begin(), ivs_.end(), [a](const Interval &iv) { return iv.hi <= a; });
  auto jt = std::partition_point(it, ivs_.end(),
                                 [b](const Interval &iv) { return iv.lo < b; });
  if (it == jt)
    return;
  Interval pieces[2];
  int n = 0;
  if (it->lo < a)
    pieces[n++] = {it->lo, a};
  if ((jt - 1)->hi > b)
    pieces[n++] = {b, (jt - 1)->hi};
  ptrdiff_t i = it - ivs_.begin();
  ptrdiff_t count = jt - it;
  // Reuse the first slots, erase the rest (or insert when one interval
  // splits in two).
  if (count >= n) {
    for (int k = 0; k < n; ++k)
      ivs_[static_cast<size_t>(i + k)] = pieces[k];
    ivs_.erase(ivs_.begin() + i + n, ivs_.begin() + i + count);
  } else { // count == 1, n == 2
    ivs_[static_cast<size_t>(i)] = pieces[0];
    ivs_.insert(ivs_.begin() + i + 1, pieces[1]);
  }
}

void IntervalSet::append(int64_t a, int64_t b) {
  if (b <= a)
    return;
  if (ivs_.empty()) {
    ivs_.push_back({a, b});
    return;
  }
  Interval &last = ivs_.back();
  if (a < last.lo) {
    add(a, b);
    return;
  }
  if (a <= last.hi)
    last.hi = std::max(last.hi, b);
  else
    ivs_.push_back({a, b});
}

bool IntervalSet::contains(int64_t a, int64_t b) const {
  if (b <= a)
    return true;
  auto it = std::partition_point(
      ivs_.begin(), ivs_.end(), [a](const Interval &iv) { return iv.hi <= a; });
  return it != ivs_.end() && it->lo <= a && it->hi >= b;
}

bool IntervalSet::contains(const IntervalSet &other) const {
  size_t i = 0;
  for (const Interval &o : other.ivs_) {
    while (i < ivs_.size() && ivs_[i].hi <= o.lo)
      ++i;
    if (i == ivs_.size() || ivs_[i].lo > o.lo || ivs_[i].hi < o.hi)
      return false;
  }
  return true;
}

bool IntervalSet::overlaps(int64_t a, int64_t b) const {
  if (b <= a)
    return false;
  auto it = std::partition_point(
      ivs_.begin(), ivs_.end(), [a](const Interval &iv) { return iv.hi <= a; });
  return it != ivs_.end() && it->lo < b;
}

bool IntervalSet::overlaps(const IntervalSet &other) const {
  size_t i = 0, j = 0;
  while (i < ivs_.size() && j < other.ivs_.size()) {
    const Interval &x = ivs_[i];
    const Interval &y = other.ivs_[j];
    if (x.lo < y.hi && y.lo < x.hi)
      return true;
    if (x.hi <= y.hi)
      ++i;
    else
      ++j;
  }
  return false;
}

IntervalSet &IntervalSet::unite(const IntervalSet &other) {
  if (other.ivs_.empty())
    return *this;
  if (ivs_.empty()) {
    ivs_ = other.ivs_;
    return *this;
  }
  // In place where that is cheap: the data layer unites sets that are
  // mostly one interval, or already held, on every chunk (a merge into a
  // new vector allocated each time).
  if (other.ivs_.size() == 1) {
    add(other.ivs_[0]);
    return *this;
  }
  if (contains(other))
    return *this;
  std::vector<Interval> out;
  out.reserve(ivs_.size() + other.ivs_.size());
  size_t i = 0, j = 0;
  auto push = [&out](const Interval &iv) {
    if (!out.empty() && iv.lo <= out.back().hi)
      out.back().hi = std::max(out.back().hi, iv.hi);
    else
      out.push_back(iv);
  };
  while (i < ivs_.size() || j < other.ivs_.size()) {
    if (j == other.ivs_.size() ||
        (i < ivs_.size() && ivs_[i].lo <= other.ivs_[j].lo))
      push(ivs_[i++]);
    else
      push(other.ivs_[j++]);
  }
  ivs_ = std::move(out);
  return *this;
}

IntervalSet &IntervalSet::subtract(const IntervalSet &other) {
  if (ivs_.empty() || other.ivs_.empty())
    return *this;
  // In place where that is cheap (see unite()).
  if (other.ivs_.size() == 1) {
    remove(other.ivs_[0]);
    return *this;
  }
  if (!overlaps(other))
    return *this;
  std::vector<Interval> out;
  out.reserve(ivs_.size() + other.ivs_.size());
  size_t j = 0;
  for (const Interval &x : ivs_) {
    int64_t lo = x.lo;
    // Skip the holes that end before this interval starts.
    while (j < other.ivs_.size() && other.ivs_[j].hi <= lo)
      ++j;
    size_t k = j;
    while (k < other.ivs_.size() && other.ivs_[k].lo < x.hi) {
      const Interval &h = other.ivs_[k];
      if (h.lo > lo)
        out.push_back({lo, h.lo});
      lo = std::max(lo, h.hi);
      if (h.hi > x.hi)
        break; // this hole also cuts into the next interval
      ++k;
    }
    j = k;
    if (lo < x.hi)
      out.push_back({lo, x.hi});
  }
  ivs_ = std::move(out);
  return *this;
}

IntervalSet &IntervalSet::intersect(const IntervalSet &other) {
  std::vector<Interval> out;
  size_t i = 0, j = 0;
  while (i < ivs_.size() && j < other.ivs_.size()) {
    const Interval &x = ivs_[i];
    const Interval &y = other.ivs_[j];
    int64_t lo = std::max(x.lo, y.lo);
    int64_t hi = std::min(x.hi, y.hi);
    if (lo < hi)
      out.push_back({lo, hi});
    if (x.hi <= y.hi)
      ++i;
    else
      ++j;
  }
  ivs_ = std::move(out);
  return *this;
}

IntervalSet &IntervalSet::clip(int64_t a, int64_t b) {
  if (b <= a) {
    ivs_.clear();
    return *this;
  }
  auto first = std::partition_point(
      ivs_.begin(), ivs_.end(), [a](const Interval &iv) { return iv.hi <= a; });
  ivs_.erase(ivs_.begin(), first);
  auto last = std::partition_point(
      ivs_.begin(), ivs_.end(), [b](const Interval &iv) { return iv.lo < b; });
  ivs_.erase(last, ivs_.end());
  if (!ivs_.empty()) {
    ivs_.front().lo = std::max(ivs_.front().lo, a);
    ivs_.back().hi = std::min(ivs_.back().hi, b);
  }
  return *this;
}

IntervalSet IntervalSet::missing(const IntervalSet &wanted) const {
  if (contains(wanted)) // the usual case: nothing (and no copy to make)
    return {};
  IntervalSet r = wanted;
  r.subtract(*this);
  return r;
}

int64_t IntervalSet::total_length() const {
  int64_t n = 0;
  for (const Interval &iv : ivs_)
    n += iv.hi - iv.lo;
  return n;
}

Interval IntervalSet::hull() const {
  if (ivs_.empty())
    return {0, 0};
  return {ivs_.front().lo, ivs_.back().hi};
}

std::string IntervalSet::to_string() const {
  std::ostringstream os;
  os << *this;
  return os.str();
}

bool IntervalSet::valid() const {
  for (size_t i = 0; i < ivs_.size(); ++i) {
    if (ivs_[i].lo >= ivs_[i].hi)
      return false;
    if (i > 0 && ivs_[i - 1].hi >= ivs_[i].lo)
      return false;
  }
  return true;
}

std::ostream &operator<<(std::ostream &os, const Interval &iv) {
  return os << '[' << iv.lo << ',' << iv.hi << ')';
}

std::ostream &operator<<(std::ostream &os, const IntervalSet &s) {
  os << '{';
  bool first = true;
  for (const Interval &iv : s) {
    if (!first)
      os << ' ';
    os << iv;
    first = false;
  }
  return os << '}';
}

std::vector<StridedRun> strided_runs(const IntervalSet &s) {
  std::vector<StridedRun> runs;
  for (const Interval &iv : s) {
    if (!runs.empty()) {
      StridedRun &r = runs.back();
      const int64_t pitch = iv.lo - r.lo - (r.count - 1) * r.pitch;
      if (iv.length() == r.length && (r.count == 1 || pitch == r.pitch)) {
        r.pitch = pitch;
        ++r.count;
        continue;
      }
    }
    runs.push_back({iv.lo, iv.length(), 0, 1});
  }
  return runs;
}

} // namespace hce
