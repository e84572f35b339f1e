// Residency tracking and transfer planning for one mapped array: the HCE
// paper's Algorithms 1 and 2 (incremental upload/download between the
// previous, current and next range of a device), generalised from one
// interval per device to arbitrary element sets, halos and any number of
// holders.
//
// Holders: 0 is the host, 1..num_devices are devices.  For each holder we
// keep the set of elements whose copy there is valid (up to date).  The
// protocol the runtime follows, per chunk [lb, ub) on device d:
//
//   up   = res.plan_upload(d, footprint(read maps, [lb, ub)))   // Alg. 1
//   for (auto &t : res.plan_fetch(d, needed, order)) copy t ...; then
//   res.mark_valid(d, up);                           // after the copy lands
//   ... run the chunk ...
//   res.mark_written(d, footprint(written maps, [lb, ub)));  // invalidates
//   down = res.plan_download(d, wanted);                    // Alg. 2
//   ... copy down to the host ...; res.mark_valid(kHost, down);
//
// `wanted` is the written footprint (eager mode) or, in incremental mode,
// incremental_download(written_now, written_next): only what the device's
// next assignment will not overwrite anyway (Alg. 2's curr − next).  At the
// end of a data region the runtime asks for everything:
// plan_download(d, res.valid(d)).
//
// Thread-compatible: no internal locking; the runtime serialises calls on
// one ArrayResidency.
#pragma once

#include "data/interval_set.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace hce {

constexpr int kHost = 0;

// One copy between holders: elements `elems` from holder `src` to `dst`.
struct Transfer {
  int src = kHost;
  int dst = kHost;
  IntervalSet elems;
  friend bool operator==(const Transfer &, const Transfer &) = default;
};

// The part of what a device writes now that the host should get back now
// when the device's next assignment is known: written_now − written_next
// (Alg. 2: Down = R_curr − R_next, as element sets).
IntervalSet incremental_download(const IntervalSet &written_now,
                                 const IntervalSet &written_next);

class ArrayResidency {
public:
  // extent: number of elements of the array, or -1 when unknown.  The host
  // starts valid over [0, extent) (over [0, INT64_MAX) when unknown) unless
  // host_valid is false (e.g. a map(alloc:) temporary nobody initialised).
  explicit ArrayResidency(int num_devices, int64_t extent = -1,
                          bool host_valid = true);

  int num_devices() const { return static_cast<int>(valid_.size()) - 1; }
  int num_holders() const { return static_cast<int>(valid_.size()); }
  int64_t extent() const { return extent_; }
  // [0, extent), or [0, INT64_MAX) when the extent is unknown.
  IntervalSet universe() const;

  // The elements holder h holds a valid copy of.  (Inline, as arriving():
  // a CPU chunk's check that the host holds its rows alone reads both for
  // every device, twice a chunk.)
  const IntervalSet &valid(int holder) const {
    check_holder(holder);
    return valid_[static_cast<size_t>(holder)];
  }

  // ---- planning (const) ---------------------------------------------------
  // What device `dev` must receive before it can use `needed`:
  // needed − valid(dev).  (Alg. 1 generalised.)
  IntervalSet plan_upload(int dev, const IntervalSet &needed) const;

  // Splits plan_upload(dst, needed) by source: for each holder in
  // `source_order` (e.g. {kHost} or {kHost, peer...}), the part still
  // unassigned that this holder holds valid.  Transfers come back in that
  // order, non-empty and disjoint.  Whatever no listed holder has valid is
  // put in *unsourced (when given): never-initialised data, or stale host
  // data that a device holding it must first send back.
  std::vector<Transfer> plan_fetch(int dst, const IntervalSet &needed,
                                   std::span<const int> source_order,
                                   IntervalSet *unsourced = nullptr) const;

  // The part of `wanted` where the host is stale and device `dev` holds the
  // valid copy: (wanted ∩ valid(dev)) − valid(host).  (Alg. 2 generalised.)
  IntervalSet plan_download(int dev, const IntervalSet &wanted) const;

  // Holders whose valid set contains all of `elems` (ascending; host first).
  std::vector<int> holders_of(const IntervalSet &elems) const;
  // For each holder, the part of `elems` it holds valid (empty sets kept, so
  // the result is indexed by holder).
  std::vector<IntervalSet> coverage_of(const IntervalSet &elems) const;
  // The part of `elems` that no holder has valid.
  IntervalSet unheld(const IntervalSet &elems) const;
  // The part of `elems` whose only valid copies are on devices (the host is
  // stale there): what a full synchronisation would have to download.
  IntervalSet host_stale(const IntervalSet &elems) const;
  // Whether no device holds (or has on its way) any element: the host's
  // copy is the only one.
  bool host_holds_alone() const;
  // ... and the host holds every element: no footprint can need a copy.
  bool host_holds_all_alone() const;

  // ---- updates --------------------------------------------------------------
  // A copy of `elems` landed on `holder` (an upload, download or peer copy).
  // The caller guarantees the source was valid; nothing is invalidated.
  void mark_valid(int holder, const IntervalSet &elems);
  // Holder `holder` (device or host) wrote `elems`: it now holds the only
  // valid copy; every other holder (host included) loses them.
  void mark_written(int holder, const IntervalSet &elems);
  // `holder`'s copy of `elems` is gone or no longer trusted (buffer freed,
  // window moved).  Dropping the last valid copy of something is the
  // caller's responsibility to avoid (see host_stale/unheld).
  void invalidate(int holder, const IntervalSet &elems);
  // Drops everything a device holds (end of a data region, after the
  // downloads it needed).
  void release(int dev);
  // Back to the state the constructor gives (the host valid over [0,
  // extent), nothing elsewhere, nothing arriving), keeping the sets'
  // storage: a record reused for another array (DataEnv::recycle).
  void reset(int64_t extent = -1);

  // ---- copies in the background (DataEnv::prefetch) -------------------------
  // A copy of `elems` into `holder` was started and lands later: they are
  // not valid there until settle_arriving().  Any write to them meanwhile,
  // by any holder (mark_written), or their invalidation or release there,
  // takes them out, so that a copy of values the program has since changed
  // is never marked valid.
  void start_arriving(int holder, const IntervalSet &elems);
  // The copy has landed: what is still arriving on `holder` becomes valid
  // there (returned), and nothing is arriving any more.
  IntervalSet settle_arriving(int holder);
  // What is arriving on `holder` and has not been written since it started.
  const IntervalSet &arriving(int holder) const {
    check_holder(holder);
    return arriving_[static_cast<size_t>(holder)];
  }

private:
  void check_holder(int h) const {
    if (h < 0 || h >= num_holders()) [[unlikely]]
      holder_out_of_range(h);
  }
  [[noreturn]] void holder_out_of_range(int h) const;

  int64_t extent_;
  std::vector<IntervalSet> valid_;    // index: holder
  std::vector<IntervalSet> arriving_; // index: holder (start_arriving)
};

} // namespace hce
