#include "data/transfer_plan.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace hce {

IntervalSet incremental_download(const IntervalSet &written_now,
                                 const IntervalSet &written_next) {
  return written_now - written_next;
}

ArrayResidency::ArrayResidency(int num_devices, int64_t extent, bool host_valid)
    : extent_(extent < 0 ? -1 : extent) {
  if (num_devices < 0)
    throw std::invalid_argument("ArrayResidency: negative device count");
  valid_.resize(static_cast<size_t>(num_devices) + 1);
  arriving_.resize(valid_.size());
  if (host_valid)
    valid_[kHost] = universe();
}

IntervalSet ArrayResidency::universe() const {
  return IntervalSet(0, extent_ < 0 ? std::numeric_limits<int64_t>::max()
                                    : extent_);
}

void ArrayResidency::holder_out_of_range(int h) const {
  throw std::out_of_range("ArrayResidency: holder " + std::to_string(h) +
                          " out of range [0, " + std::to_string(num_holders()) + ")");
}

IntervalSet ArrayResidency::plan_upload(int dev,
                                        const IntervalSet &needed) const {
  return valid(dev).missing(needed);
}

std::vector<Transfer>
ArrayResidency::plan_fetch(int dst, const IntervalSet &needed,
                           std::span<const int> source_order,
                           IntervalSet *unsourced) const {
  IntervalSet left = plan_upload(dst, needed);
  std::vector<Transfer> out;
  for (int src : source_order) {
    if (left.empty())
      break;
    check_holder(src);
    if (src == dst)
      continue;
    IntervalSet part = left & valid_[static_cast<size_t>(src)];
    if (part.empty())
      continue;
    left.subtract(part);
    out.push_back(Transfer{src, dst, std::move(part)});
  }
  if (unsourced)
    *unsourced = std::move(left);
  return out;
}

IntervalSet ArrayResidency::plan_download(int dev,
                                          const IntervalSet &wanted) const {
  IntervalSet r = wanted & valid(dev);
  r.subtract(valid_[kHost]);
  return r;
}

std::vector<int> ArrayResidency::holders_of(const IntervalSet &elems) const {
  std::vector<int> out;
  for (int h = 0; h < num_holders(); ++h)
    if (valid_[static_cast<size_t>(h)].contains(elems))
      out.push_back(h);
  return out;
}

std::vector<IntervalSet>
ArrayResidency::coverage_of(const IntervalSet &elems) const {
  std::vector<IntervalSet> out;
  out.reserve(valid_.size());
  for (const IntervalSet &v : valid_)
    out.push_back(elems & v);
  return out;
}

IntervalSet ArrayResidency::unheld(const IntervalSet &elems) const {
  IntervalSet r = elems;
  for (const IntervalSet &v : valid_) {
    if (r.empty())
      break;
    r.subtract(v);
  }
  return r;
}

IntervalSet ArrayResidency::host_stale(const IntervalSet &elems) const {
  if (valid_[kHost].contains(elems)) // the usual case: no sets to build
    return {};
  IntervalSet r = elems - valid_[kHost];
  return r.subtract(unheld(r));
}

void ArrayResidency::mark_valid(int holder, const IntervalSet &elems) {
  check_holder(holder);
  valid_[static_cast<size_t>(holder)].unite(elems);
}

void ArrayResidency::mark_written(int holder, const IntervalSet &elems) {
  check_holder(holder);
  if (elems.empty())
    return;
  for (int h = 0; h < num_holders(); ++h) {
    IntervalSet &v = valid_[static_cast<size_t>(h)];
    if (h == holder)
      v.unite(elems);
    else if (v.overlaps(elems))
      v.subtract(elems);
    // A copy still on its way carries the values from before this write,
    // wherever it lands (the writer's own included).
    IntervalSet &a = arriving_[static_cast<size_t>(h)];
    if (a.overlaps(elems))
      a.subtract(elems);
  }
}

void ArrayResidency::invalidate(int holder, const IntervalSet &elems) {
  check_holder(holder);
  valid_[static_cast<size_t>(holder)].subtract(elems);
  arriving_[static_cast<size_t>(holder)].subtract(elems);
}

void ArrayResidency::release(int dev) {
  check_holder(dev);
  valid_[static_cast<size_t>(dev)].clear();
  arriving_[static_cast<size_t>(dev)].clear();
}

bool ArrayResidency::host_holds_alone() const {
  for (size_t h = 1; h < valid_.size(); ++h)
    if (!valid_[h].empty() || !arriving_[h].empty())
      return false;
  return true;
}

bool ArrayResidency::host_holds_all_alone() const {
  const IntervalSet &host = valid_[kHost];
  const int64_t end = extent_ < 0 ? std::numeric_limits<int64_t>::max() : extent_;
  return host.num_intervals() == 1 && host[0].lo <= 0 && host[0].hi >= end &&
         host_holds_alone();
}

void ArrayResidency::reset(int64_t extent) {
  extent_ = extent < 0 ? -1 : extent;
  for (IntervalSet &s : valid_)
    s.clear();
  for (IntervalSet &s : arriving_)
    s.clear();
  valid_[kHost].add(0, extent_ < 0 ? std::numeric_limits<int64_t>::max() : extent_);
}

void ArrayResidency::start_arriving(int holder, const IntervalSet &elems) {
  check_holder(holder);
  arriving_[static_cast<size_t>(holder)].unite(elems);
}

IntervalSet ArrayResidency::settle_arriving(int holder) {
  check_holder(holder);
  IntervalSet landed = std::move(arriving_[static_cast<size_t>(holder)]);
  arriving_[static_cast<size_t>(holder)].clear();
  valid_[static_cast<size_t>(holder)].unite(landed);
  return landed;
}

} // namespace hce
