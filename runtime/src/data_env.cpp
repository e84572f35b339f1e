#include "data_env.hpp"

#include "clock.hpp"
#include "data/footprint.hpp"
#include "data/twin_diff.hpp"
#include "host_pages.hpp"
#include "log.hpp"
#include "stats.hpp"
#include "trace.hpp"

#include <algorithm>
#include <set>

namespace hce {
namespace {

bool reads(int kind) { return (kind & HCE_MAP_TO) != 0; }
bool writes(int kind) { return (kind & HCE_MAP_FROM) != 0; }

// A written map whose per-iteration footprints overlap (scale 0, halos):
// a chunk's footprint says nothing about what it wrote, so its writes are
// merged by twin and diff instead of taken as the footprint.
bool merged_by_diff(const hce_map &map, int64_t iterations) {
  return writes(map.kind) && iterations_share_elements(shape_of(map), iterations);
}

} // namespace

bool region_merges_by_diff(const hce_region &region) {
  for (int m = 0; m < region.num_maps; ++m)
    if (region.maps[m].host && merged_by_diff(region.maps[m], region.iterations))
      return true;
  return false;
}

namespace {

// Whether a device needs the current values of the footprint before the
// chunk: it reads them, or it may leave some of them unwritten (a `from`
// map not known to be written in full keeps the values it had, as OpenMP
// keeps the host's or the present copy's).
// `diff`: merged_by_diff(map, iterations).
bool needs_current_values(const hce_map &map, bool diff) {
  return reads(map.kind) || (writes(map.kind) && !(map.kind & HCE_MAP_WRITES_ALL)) ||
         diff;
}

// One copy, tried twice: a transient fault (a failed DMA, an injected
// HCE_SIM fault) costs a retry, not the device.  On a second failure `why`
// names the device, the array and what failed, so the error is never
// blamed on the device that asked for the data.
template <typename Copy>
bool with_retry(const Device &dev, const std::string &what, const std::string &array,
                Copy &&copy, std::string &why) {
  std::string first;
  if (copy(first))
    return true;
  std::string second;
  if (copy(second)) {
    warning(what + " of '" + array + "' on " + dev.name() + " failed (" + first +
            "); retried, and the retry succeeded");
    return true;
  }
  why = what + " of '" + array + "' on " + dev.name() + " failed twice: " + second;
  return false;
}

} // namespace

DataEnv::DataEnv(const std::vector<std::unique_ptr<Device>> &devices, bool huge_pages,
                 bool untouched)
    : devices_(devices), huge_pages_(huge_pages), report_untouched_(untouched) {}

DataEnv::~DataEnv() {
  for (auto &[key, a] : arrays_)
    drop_device_copies(a);
}

void DataEnv::Array::reset() {
  name.clear();
  host = nullptr;
  elem_size = 0;
  rows.reset();
  res.reset();
  for (Window &w : windows)
    w = Window(); // (already: free_window)
  to_host.clear();
  lost.clear();
  region_refs = data_refs = 0;
  data_from = host_wrote = false;
  data_lo = data_hi = nullptr;
}

void DataEnv::recycle(std::map<const void *, Array>::iterator it) {
  if (spare_arrays_.size() >= kSpareArrays) {
    arrays_.erase(it);
    return;
  }
  spare_arrays_.push_back(arrays_.extract(it));
  spare_arrays_.back().mapped().reset();
}

DataEnv::Array &DataEnv::array_for(const hce_map &map, int64_t iterations,
                                   std::vector<HostRange> *untouched) {
  auto it = arrays_.find(map.host);
  const bool fresh = it == arrays_.end();
  if (fresh && !spare_arrays_.empty()) {
    auto node = std::move(spare_arrays_.back());
    spare_arrays_.pop_back();
    node.key() = map.host;
    it = arrays_.insert(std::move(node)).position;
  } else if (fresh) {
    it = arrays_.try_emplace(map.host, int(devices_.size())).first;
  }
  Array &a = it->second;
  if (fresh) {
    a.name = map.name ? map.name : "?";
    a.host = static_cast<char *>(map.host);
    a.elem_size = map.elem_size;
    a.rows = row_layout(map);
    a.windows.resize(devices_.size()); // (in place: no Window copied)
    if (writes(map.kind) && !a.rows && iterations > 0)
      advise_written(a, map, iterations, untouched);
  }
  return a;
}

// The first region to write an array asks for huge pages on what it
// writes (advise_huge_pages): pages the program never touched are then
// faulted in 2 MiB at a time by the CPU's chunks and the downloads alike.
// The same blocks, within the map's footprint (not its hull: a strided map
// must not make pages the program never uses), go to `untouched` for the
// page prefaulter.
void DataEnv::advise_written(const Array &a, const hce_map &map, int64_t iterations,
                             std::vector<HostRange> *untouched) {
  if (!untouched || !report_untouched_)
    untouched = nullptr;
  if (!huge_pages_ && !untouched)
    return;
  // Remembered by the hull of the footprint (a superset of its exact
  // hull), so that the footprint itself, lud's 511 rows, is built only for
  // a range not seen before.
  const Interval hull = clamped_hull(map, 0, iterations);
  char *const key = a.host + hull.lo * int64_t(a.elem_size);
  const size_t key_bytes = size_t(hull.hi - hull.lo) * a.elem_size;
  if (key_bytes < kHugeAdviceMinBytes)
    return;
  // A loop outside a data region makes its arrays anew at each execution:
  // the range is looked at once (mincore walks its pages), not each time.
  // A new array at a freed one's address is not advised: a missed gain.
  constexpr size_t kRemembered = 256;
  auto seen = advised_.find(key);
  if (seen != advised_.end() && seen->second >= key_bytes)
    return;
  if (advised_.size() >= kRemembered)
    advised_.clear();
  advised_[key] = key_bytes;
  footprint(map, 0, iterations, advise_scratch_);
  if (advise_scratch_.empty())
    return;
  const int64_t lo = advise_scratch_.intervals().front().lo,
                hi = advise_scratch_.intervals().back().hi;
  char *start = a.host + lo * int64_t(a.elem_size);
  const size_t bytes = size_t(hi - lo) * a.elem_size;
  if (bytes < kHugeAdviceMinBytes)
    return;
  untouched_blocks(start, bytes, untouched_scratch_);
  if (huge_pages_)
    advise_huge_pages(untouched_scratch_);
  if (!untouched)
    return;
  // The runs clipped to the footprint's intervals (both in address order).
  auto run = untouched_scratch_.begin();
  for (const Interval &iv : advise_scratch_.intervals()) {
    const char *ilo = a.host + iv.lo * int64_t(a.elem_size),
               *ihi = a.host + iv.hi * int64_t(a.elem_size);
    while (run != untouched_scratch_.end() && run->p + run->bytes <= ilo)
      ++run;
    for (auto r = run; r != untouched_scratch_.end() && r->p < ihi; ++r) {
      char *clo = std::max(r->p, const_cast<char *>(ilo));
      char *chi = std::min(r->p + r->bytes, const_cast<char *>(ihi));
      if (chi > clo)
        untouched->push_back({clo, size_t(chi - clo)});
    }
  }
}

bool DataEnv::begin_region(const hce_region &region, std::string &why,
                           std::vector<HostRange> *untouched) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int m = 0; m < region.num_maps; ++m) {
    const hce_map &map = region.maps[m];
    if (map.elem_size == 0 ||
        (map.host == nullptr && !footprint(map, 0, region.iterations).empty())) {
      why = "map '" + std::string(map.name ? map.name : "?") +
            "' has no storage (null pointer or zero element size)";
      return false;
    }
    if (std::string err = check_map(map, region.iterations); !err.empty()) {
      why = err;
      return false;
    }
    if (map.len == 0 && region.iterations > 0)
      notice_once("empty/" + std::string(region.name ? region.name : "") + "/" +
                      (map.name ? map.name : "?"),
                  "map '" + std::string(map.name ? map.name : "?") +
                      "' is an empty section: accelerators get a null pointer for it");
  }
  for (int m = 0; m < region.num_maps; ++m) {
    if (!region.maps[m].host)
      continue; // nothing to touch (checked above)
    if (!arrays_.count(region.maps[m].host) &&
        !reconcile_alias(region, region.maps[m], /*in_data_begin=*/false, why))
      return false;
    Array &a = array_for(region.maps[m], region.iterations, untouched);
    if (a.elem_size != region.maps[m].elem_size) {
      why = "array '" + a.name + "' is mapped with two element sizes";
      return false;
    }
    if (a.rows != row_layout(region.maps[m])) {
      why = "array '" + a.name +
            "' is mapped with two different row sections (or as rows and as a flat "
            "array)";
      return false;
    }
    if (a.rows && merged_by_diff(region.maps[m], region.iterations)) {
      why = "map '" + a.name +
            "': a written array of row pointers must give each iteration rows of "
            "its own (rows[i][...]); iterations here share rows";
      return false;
    }
    // `always to`: the host copy is authoritative again.
    if ((region.maps[m].kind & HCE_MAP_ALWAYS) && reads(region.maps[m].kind))
      for (int h = 1; h < a.res.num_holders(); ++h)
        a.res.release(h);
    ++a.region_refs;
  }
  return true;
}

bool DataEnv::end_region(const hce_region &region, std::string &why) {
  std::lock_guard<std::mutex> lock(mutex_);
  bool ok = true;
  for (int m = 0; m < region.num_maps; ++m) {
    auto it = arrays_.find(region.maps[m].host);
    if (it == arrays_.end())
      continue;
    Array &a = it->second;
    if (--a.region_refs > 0 || a.data_refs > 0)
      continue;
    // Not inside a data region: results come home, device copies go.
    ok = flush_and_drop(a, true, why) && ok;
    recycle(it);
  }
  return ok;
}

template <class F>
void DataEnv::for_each_overlap(const hce_map &map, Interval hull, F &&fn) {
  if (hull.hi <= hull.lo)
    return;
  const char *lo = static_cast<const char *>(map.host) + hull.lo * int64_t(map.elem_size);
  const char *hi = static_cast<const char *>(map.host) + hull.hi * int64_t(map.elem_size);
  for (auto &[key, o] : arrays_) {
    if (key == map.host || o.rows || o.res.host_holds_alone())
      continue; // (row tables: their rows are apart; host alone: nothing to reconcile)
    // The part of o's memory devices hold, in bytes, against the map's.
    IntervalSet held;
    for (int h = 1; h < o.res.num_holders(); ++h)
      held.unite(o.res.valid(h));
    const Interval dh = held.hull();
    const int64_t es = int64_t(o.elem_size);
    const char *base = o.host;
    const char *olo = std::max(lo, base + dh.lo * es);
    const char *ohi = std::min(hi, base + dh.hi * es);
    if (olo >= ohi)
      continue;
    IntervalSet part = IntervalSet((olo - base) / es, (ohi - base + es - 1) / es) & held;
    if (!part.empty() && !fn(key, o, part))
      return;
  }
}

bool DataEnv::reconcile_alias(const hce_region &region, const hce_map &map,
                              bool in_data_begin, std::string &why) {
  const Interval hull =
      in_data_begin ? clamped_hull(map, 0, 1) : clamped_hull(map, 0, region.iterations);
  bool ok = true;
  for_each_overlap(map, hull, [&](const void *, Array &o, const IntervalSet &part) {
    const std::string name = map.name ? map.name : "?";
    const IntervalSet stale = o.res.host_stale(part);
    if (in_data_begin || (o.data_refs == 0 && (!stale.empty() || writes(map.kind)))) {
      // Two records of one memory that both stay: no way to keep them in
      // step.  (o outside a data region is another execution's, running:
      // only reading what the host holds too is safe beside it.)
      why = "'" + name + "' lies in the memory of '" + o.name + "', which " +
            (in_data_begin ? "devices hold" : "another region is using") +
            ": map the array '" + o.name +
            "' itself (with an offset), not a pointer into it";
      return ok = false;
    }
    TransferCounts ignored;
    if (!fetch_to_host(o, stale, -1, ignored, why))
      return ok = false;
    // Written through the pointer: from now on the host's (its record is
    // flushed home at the region's end), the devices' copies stale.
    if (writes(map.kind))
      o.res.mark_written(kHost, part);
    return true;
  });
  return ok;
}

bool DataEnv::ensure_window(std::unique_lock<std::mutex> &lock, Array &a, int device,
                            Interval need, Interval limit, std::string &why) {
  Window &w = a.windows[device];
  if (w.buffer && need.lo >= w.lo && need.hi <= w.hi)
    return true;
  // Chunks in flight use the window: it moves only when they are done; so
  // do copies in the background into it.
  if (std::string e; !quiesce_window(lock, a, device, e))
    warning("copies in the background into '" + a.name + "' on " +
            devices_[size_t(device)]->name() + " failed: " + e);
  if (w.buffer && need.lo >= w.lo && need.hi <= w.hi)
    return true;
  Device &dev = *devices_[device];
  Interval want = need;
  if (w.buffer) {
    want.lo = std::min(want.lo, w.lo);
    want.hi = std::max(want.hi, w.hi);
  }
  // First try everything the region can touch: a window that never moves
  // never stalls the pipeline.  Otherwise grow geometrically (by half the
  // size on each side) within that, so a device walking the array chunk by
  // chunk does not reallocate and copy its window on every chunk.
  Interval grown = {std::min(limit.lo, want.lo), std::max(limit.hi, want.hi)};
  if (w.buffer) {
    int64_t half = (want.hi - want.lo) / 2;
    grown.lo = std::max(want.lo - half, grown.lo);
    grown.hi = std::min(want.hi + half, grown.hi);
  }
  void *buf = dev.allocate(size_t(grown.hi - grown.lo) * a.elem_size);
  if (buf)
    want = grown;
  else if (grown.lo != want.lo || grown.hi != want.hi)
    buf = dev.allocate(size_t(want.hi - want.lo) * a.elem_size);
  size_t bytes = size_t(want.hi - want.lo) * a.elem_size;
  if (!buf && w.buffer) {
    // Out of memory for the grown window: give up the old one (its valid
    // data that lives nowhere else goes home first) and hold only `need`.
    TransferCounts ignored;
    IntervalSet only_here = a.res.plan_download(device + 1, a.res.valid(device + 1));
    if (!only_here.empty() && !download(a, device, only_here, ignored, why))
      return false;
    free_window(a, device);
    a.res.release(device + 1);
    want = need;
    bytes = size_t(want.hi - want.lo) * a.elem_size;
    buf = dev.allocate(bytes);
  }
  if (!buf) {
    why = "out of memory on " + dev.name() + " for " + std::to_string(bytes) +
          " bytes of '" + a.name + "'";
    return false;
  }
  if (w.buffer) {
    // Keep what the old window held valid: copy it over inside the device.
    IntervalSet keep = a.res.valid(device + 1);
    keep.clip(w.lo, w.hi);
    for (const Interval &iv : keep) {
      char *dst = static_cast<char *>(buf) + size_t(iv.lo - want.lo) * a.elem_size;
      char *src = static_cast<char *>(w.buffer) + size_t(iv.lo - w.lo) * a.elem_size;
      if (!with_retry(
              dev, "copy inside the device", a.name,
              [&](std::string &e) {
                return dev.copy_device(dst, src, size_t(iv.length()) * a.elem_size, e);
              },
              why)) {
        dev.release(buf);
        return false;
      }
    }
    dev.release(w.buffer);
  }
  w.buffer = buf;
  w.lo = want.lo;
  w.hi = want.hi;
  return true;
}

bool DataEnv::host_copy(const Array &a, Device &dev, char *dev_ptr, Interval iv,
                        bool to_device, std::string &why) {
  if (a.rows)
    return copy_rows(dev, *a.rows, dev_ptr, iv, to_device, a.name, why);
  const size_t bytes = size_t(iv.length()) * a.elem_size;
  char *host_ptr = a.host + iv.lo * int64_t(a.elem_size);
  return to_device ? dev.upload(dev_ptr, host_ptr, bytes, why)
                   : dev.download(host_ptr, dev_ptr, bytes, why);
}

void DataEnv::free_window(Array &a, int device) {
  Window &w = a.windows[size_t(device)];
  // A device that held nothing of the array (idle in the execution, as the
  // GPU beside lud's CPU alone at each of its 511 executions): no work.
  if (w.unused())
    return;
  Device &dev = *devices_[size_t(device)];
  if (w.background) {
    // (No chunk of this device is in flight here -- its windows are
    // freed between executions, by its own controller or after a failure
    // -- so nobody is settling the copies meanwhile.)
    std::string ignored;
    dev.wait_background(w.background, ignored);
    a.res.invalidate(device + 1, a.res.arriving(device + 1));
  }
  w.table.release(dev);
  if (w.buffer)
    dev.release(w.buffer);
  w = Window();
}

bool DataEnv::quiesce_window(std::unique_lock<std::mutex> &lock, Array &a, int device,
                             std::string &why) {
  Window &w = a.windows[size_t(device)];
  bool ok = true;
  for (;;) {
    cv_.wait(lock, [&] { return w.pins == 0 && !w.settling; });
    if (!w.background)
      return ok; // (still under the hold that saw no pins)
    std::string err;
    if (!settle(lock, a, device, err)) { // lets go of the lock: look again
      ok = false;
      why = std::move(err);
    }
  }
}

bool DataEnv::settle(std::unique_lock<std::mutex> &lock, Array &a, int device,
                     std::string &why, const IntervalSet *touching) {
  Window &w = a.windows[size_t(device)];
  cv_.wait(lock, [&] { return !w.settling; });
  if (!w.background || (touching && !touching->overlaps(w.background_elems)))
    return true;
  const uint64_t ticket = w.background;
  w.settling = true;
  lock.unlock();
  std::string err;
  const bool ok = devices_[size_t(device)]->wait_background(ticket, err);
  lock.lock();
  w.settling = false;
  w.background = 0;
  w.background_elems.clear();
  if (ok) {
    a.res.settle_arriving(device + 1);
  } else {
    a.res.invalidate(device + 1, a.res.arriving(device + 1));
    why = std::move(err);
  }
  cv_.notify_all();
  return ok;
}

size_t DataEnv::prefetch(int device, const hce_region &region, TransferCounts &counts) {
  Device &dev = *devices_[size_t(device)];
  if (dev.uses_host_memory() || region.iterations <= 0)
    return 0;
  std::unique_lock<std::mutex> lock(mutex_);
  thread_local std::vector<ArrayUse> uses; // (storage kept: array_uses)
  array_uses(region, Range{0, region.iterations}, uses);
  size_t queued = 0;
  std::vector<std::pair<size_t, size_t>> pieces; // Device::background_pieces
  for (const ArrayUse &u : uses) {
    Array &a = *u.a;
    // Not a private copy's array, a row table's, or one the region's end
    // drops; and only what the loop reads.
    if (u.diff || a.rows || a.data_refs == 0 || u.current.empty())
      continue;
    Window &w = a.windows[size_t(device)];
    if (w.settling)
      continue;
    if (w.background) {
      // One batch at a time per window: the last one first, if it landed.
      std::string ignored;
      if (!dev.background_landed(w.background) || !settle(lock, a, device, ignored))
        continue;
    }
    IntervalSet want = u.current;
    if (w.buffer)
      want.clip(w.lo, w.hi);
    want.intersect(a.res.valid(kHost));
    want.subtract(a.res.valid(device + 1));
    want.subtract(w.received);
    want.subtract(a.to_host);
    if (want.empty())
      continue;
    // Only what the device can copy in the background now (a GPU: what is
    // registered -- cg's matrix was, but for its last piece, when the
    // first spmv ended).
    const size_t es = a.elem_size;
    IntervalSet can;
    pieces.clear();
    for (const Interval &iv : want) {
      const size_t at = pieces.size();
      dev.background_pieces(a.host + iv.lo * int64_t(es), size_t(iv.length()) * es, pieces);
      for (size_t k = at; k < pieces.size(); ++k) {
        const auto [off, len] = pieces[k]; // whole elements only
        const int64_t lo = iv.lo + int64_t((off + es - 1) / es);
        const int64_t hi = iv.lo + int64_t((off + len) / es);
        if (lo < hi)
          can.add(lo, hi);
      }
    }
    want = std::move(can);
    if (want.empty())
      continue;
    // A first window only, as prepare() makes one: growing one could evict
    // what the device holds when memory is short.
    std::string ignored;
    if (!w.buffer && !ensure_window(lock, a, device, u.limit, u.limit, ignored))
      continue;
    want.clip(w.lo, w.hi);
    if (want.empty())
      continue;
    bool ok = true;
    std::string why;
    for (const Interval &iv : want) {
      char *dst = static_cast<char *>(w.buffer) + size_t(iv.lo - w.lo) * es;
      if (!(ok = dev.upload_in_background(dst, a.host + iv.lo * int64_t(es),
                                          size_t(iv.length()) * es, why)))
        break;
    }
    // The ticket covers whatever was queued, a failed batch included: it is
    // waited for before the window is used, and marks nothing valid.
    const uint64_t ticket = dev.background_ticket(why);
    if (!ticket) {
      warning("copies in the background into '" + a.name + "' on " + dev.name() +
              " failed: " + why);
      return queued;
    }
    w.background = ticket;
    w.background_elems = want; // (all of it, what failed included)
    if (!ok) {
      warning("a copy in the background into '" + a.name + "' on " + dev.name() +
              " failed: " + why);
      continue;
    }
    const size_t bytes = size_t(want.total_length()) * es;
    a.res.start_arriving(device + 1, want);
    w.received.unite(want);
    counts.prefetched += bytes;
    queued += bytes;
  }
  return queued;
}

bool DataEnv::host_copies(Array &a, int device, const IntervalSet &what, bool to_device,
                          TransferCounts &counts, std::string &why) {
  const Window &w = a.windows[size_t(device)];
  Device &dev = *devices_[size_t(device)];
  const size_t es = a.elem_size;
  for (const StridedRun &run : strided_runs(what)) {
    char *dev_ptr = static_cast<char *>(w.buffer) + size_t(run.lo - w.lo) * es;
    auto copy = [&](std::string &e) {
      if (run.count == 1 || a.rows) { // row-pointer arrays: copy_rows packs rows
        for (int64_t b = 0; b < run.count; ++b) {
          const int64_t lo = run.lo + b * run.pitch;
          if (!host_copy(a, dev, dev_ptr + size_t(b * run.pitch) * es,
                         {lo, lo + run.length}, to_device, e))
            return false;
        }
        return true;
      }
      char *host_ptr = a.host + run.lo * int64_t(es);
      const size_t width = size_t(run.length) * es, pitch = size_t(run.pitch) * es;
      return to_device
                 ? dev.upload_blocks(dev_ptr, host_ptr, width, pitch, size_t(run.count), e)
                 : dev.download_blocks(host_ptr, dev_ptr, width, pitch, size_t(run.count), e);
    };
    if (!with_retry(dev, to_device ? "upload" : "download", a.name, copy, why))
      return false;
    (to_device ? counts.to_device : counts.from_device) +=
        size_t(run.length) * size_t(run.count) * es;
  }
  return true;
}

bool DataEnv::upload(Array &a, int device, const IntervalSet &what,
                     TransferCounts &counts, std::string &why) {
  if (!host_copies(a, device, what, true, counts, why))
    return false;
  a.res.mark_valid(device + 1, what);
  return true;
}

bool DataEnv::download(Array &a, int device, const IntervalSet &what,
                       TransferCounts &counts, std::string &why) {
  if (!host_copies(a, device, what, false, counts, why))
    return false;
  a.res.mark_valid(kHost, what);
  return true;
}

bool DataEnv::fetch_to_host(Array &a, const IntervalSet &want, int except_device,
                            TransferCounts &counts, std::string &why) {
  if (want.empty()) // the usual end of a region the CPU ran alone
    return true;
  // Devices that can send to the host (not the one being filled, not the
  // CPU, which works on the host copy itself).
  std::vector<int> sources;
  for (size_t d = 0; d < devices_.size(); ++d)
    if (int(d) != except_device && !devices_[d]->uses_host_memory())
      sources.push_back(int(d) + 1);
  IntervalSet unsourced;
  for (const Transfer &t : a.res.plan_fetch(kHost, want, sources, &unsourced))
    if (!download(a, t.src - 1, t.elems, counts, why))
      return false;
  if (!unsourced.empty()) {
    why = "elements " + unsourced.to_string() + " of '" + a.name +
          "' are valid nowhere (lost with a failed device?)";
    return false;
  }
  return true;
}

void DataEnv::pin(Array &a, int device, ChunkHold *hold) {
  ++a.windows[device].pins;
  if (hold)
    hold->pins.push_back({&a, device});
}

void DataEnv::unpin_all(std::vector<std::pair<Array *, int>> &pins) {
  for (auto &[a, d] : pins)
    --a->windows[d].pins;
  pins.clear();
  cv_.notify_all();
}

namespace {
// One device's batch in run_host_batches, for the trace.
struct HostBatch {
  Device *dev;
  int copies = 0;
  uint64_t bytes = 0;
  double wait = 0; // seconds in finish_copies
};
} // namespace

bool DataEnv::run_host_batches(const std::vector<Copy> &copies, TransferCounts &counts,
                               std::string &why) {
  // One batch per device, waited for once at the end; if a wait fails the
  // copies run again one by one, each retried as ever.
  const double start = now_seconds();
  std::vector<HostBatch> batches;
  TransferCounts moved;
  bool ok = true;
  for (const Copy &c : copies) {
    if (c.src_device >= 0 || c.a->rows)
      continue;
    Device &dev = *devices_[c.device];
    auto b = std::find_if(batches.begin(), batches.end(),
                          [&](const HostBatch &x) { return x.dev == &dev; });
    if (b == batches.end()) {
      dev.begin_copies();
      b = batches.insert(batches.end(), HostBatch{&dev});
    }
    const uint64_t before = moved.to_device + moved.from_device;
    ok = host_copies(*c.a, c.device, c.elems, c.to_device, moved, why);
    ++b->copies;
    b->bytes += moved.to_device + moved.from_device - before;
    if (!ok)
      break;
  }
  for (HostBatch &b : batches) {
    std::string e;
    const double t = now_seconds();
    if (!b.dev->finish_copies(e) && ok) {
      warning("copies to or from " + b.dev->name() + " failed (" + e +
              "); copying again");
      ok = false;
    }
    b.wait = now_seconds() - t;
  }
  // The whole batch on the device's `copies` track, with its one wait:
  // what a chunk's copies cost, apart from its stage's other work.
  if (trace_enabled())
    for (const HostBatch &b : batches)
      trace_event(b.dev->name(), "copies",
                  std::to_string(b.copies) +
                      (b.copies == 1 ? " host copy, " : " host copies, ") +
                      fmt_bytes(b.bytes) + ", one wait of " +
                      std::to_string(int(b.wait * 1e6)) + " us",
                  start, now_seconds());
  if (!ok) {
    moved = TransferCounts();
    for (const Copy &c : copies)
      if (c.src_device < 0 && !c.a->rows &&
          !host_copies(*c.a, c.device, c.elems, c.to_device, moved, why))
        return false;
  }
  // Only the direction that moved: a device's upload and download stages
  // run on two threads and each counts its own direction.
  if (moved.to_device)
    counts.to_device += moved.to_device;
  if (moved.from_device)
    counts.from_device += moved.from_device;
  return true;
}

bool DataEnv::run_copies(const std::vector<Copy> &copies, TransferCounts &counts,
                         std::string &why) {
  // The windows involved are pinned: their buffers cannot move meanwhile.
  // A row-pointer array's copies go through a packing buffer that must land
  // before it is read or freed (copy_rows): those go first, one by one.
  for (const Copy &c : copies)
    if (c.src_device < 0 && c.a->rows &&
        !host_copies(*c.a, c.device, c.elems, c.to_device, counts, why))
      return false;
  if (!run_host_batches(copies, counts, why))
    return false;
  for (const Copy &c : copies) {
    if (c.src_device < 0)
      continue;
    // From another device's window straight into this one's.
    const Window &w = c.a->windows[c.device];
    const Window &sw = c.a->windows[c.src_device];
    Device &dst_dev = *devices_[c.device];
    const Device &src_dev = *devices_[c.src_device];
    for (const Interval &iv : c.elems) {
      size_t bytes = size_t(iv.length()) * c.a->elem_size;
      char *dev_ptr =
          static_cast<char *>(w.buffer) + size_t(iv.lo - w.lo) * c.a->elem_size;
      const char *src_ptr =
          static_cast<const char *>(sw.buffer) + size_t(iv.lo - sw.lo) * c.a->elem_size;
      if (!with_retry(
              dst_dev, "peer copy from " + src_dev.name(), c.a->name,
              [&](std::string &e) {
                return dst_dev.copy_from_peer(dev_ptr, src_dev, src_ptr, bytes, e);
              },
              why))
        return false;
      counts.peer += bytes;
    }
  }
  return true;
}

bool DataEnv::copy_unlocked(std::unique_lock<std::mutex> &lock,
                            const std::vector<Copy> &copies, TransferCounts &counts,
                            std::string &why) {
  if (copies.empty())
    return true;
  lock.unlock();
  bool ok = run_copies(copies, counts, why);
  lock.lock();
  // A copy is marked valid only once it has landed: until then another
  // device that needs these elements must not take them from there.
  for (const Copy &c : copies) {
    if (ok)
      c.a->res.mark_valid(c.to_device ? c.device + 1 : kHost, c.elems);
    if (!c.to_device)
      c.a->to_host.subtract(c.elems);
  }
  cv_.notify_all();
  return ok;
}

void DataEnv::plan_peer_copies(Array &a, int device, IntervalSet &missing,
                               std::vector<Copy> &copies,
                               std::vector<std::pair<Array *, int>> &pins) {
  // Only what the host lacks: elements valid on the host are one upload
  // away either way, while a stale host would cost a download + an upload
  // (a halo written by the neighbouring GPU in a data region).
  std::vector<int> peers;
  for (size_t d = 0; d < devices_.size(); ++d)
    if (int(d) != device && a.windows[d].buffer &&
        devices_[size_t(device)]->can_copy_from_peer(*devices_[d]))
      peers.push_back(int(d) + 1);
  if (peers.empty())
    return;
  IntervalSet stale = a.res.host_stale(missing);
  if (stale.empty())
    return;
  for (Transfer &t : a.res.plan_fetch(device + 1, stale, peers)) {
    pins.push_back({&a, t.src - 1});
    ++a.windows[size_t(t.src - 1)].pins;
    missing.subtract(t.elems);
    copies.push_back({&a, device, std::move(t.elems), true, t.src - 1});
  }
}

IntervalSet DataEnv::wait_for_copies_home(std::unique_lock<std::mutex> &lock, Array &a,
                                          const IntervalSet &want,
                                          const std::vector<Copy> &planned) {
  IntervalSet mine; // copies the caller planned itself: they run later
  for (const Copy &c : planned)
    if (c.a == &a)
      mine.unite(c.elems);
  cv_.wait(lock, [&] { return !(a.to_host - mine).overlaps(want); });
  return mine;
}

// Plans, under the lock, the downloads that make `want` valid on the host
// (from whichever device holds the only valid copy), pinning their sources.
bool DataEnv::plan_fetch_to_host(std::unique_lock<std::mutex> &lock, Array &a,
                                 const IntervalSet &want, int except_device,
                                 std::vector<Copy> &copies,
                                 std::vector<std::pair<Array *, int>> &pins,
                                 std::string &why) {
  // The usual case, the host holds it all and nothing is on its way there:
  // nothing to wait for or plan (and no sets to build).
  if (a.to_host.empty() && a.res.valid(kHost).contains(want))
    return true;
  // Elements already on their way to the host are not fetched twice (two
  // copies into the same host bytes would race).
  IntervalSet mine = wait_for_copies_home(lock, a, want, copies);
  std::vector<int> sources;
  for (size_t d = 0; d < devices_.size(); ++d)
    if (int(d) != except_device && !devices_[d]->uses_host_memory())
      sources.push_back(int(d) + 1);
  IntervalSet unsourced;
  for (Transfer &t : a.res.plan_fetch(kHost, want - mine, sources, &unsourced)) {
    pins.push_back({&a, t.src - 1});
    ++a.windows[size_t(t.src - 1)].pins;
    a.to_host.unite(t.elems);
    copies.push_back({&a, t.src - 1, std::move(t.elems), false});
  }
  if (!unsourced.empty()) {
    why = "elements " + unsourced.to_string() + " of '" + a.name +
          "' are valid nowhere (lost with a failed device?)";
    return false;
  }
  return true;
}

void DataEnv::array_uses(const hce_region &region, Range range,
                         std::vector<ArrayUse> &uses, bool written_only) {
  // uses[0, n) are this call's; each is emptied when taken, keeping its
  // vectors' storage (as `need` keeps its own).
  size_t n = 0;
  thread_local IntervalSet need; // a map's footprint
  for (int m = 0; m < region.num_maps; ++m) {
    const hce_map &map = region.maps[m];
    if (!map.host || (written_only && !writes(map.kind)))
      continue;
    // A region maps a handful of arrays: a linear search, no index to build
    // for every chunk.
    auto taken = uses.begin() + std::ptrdiff_t(n);
    auto it = std::find_if(uses.begin(), taken, [&](const ArrayUse &u) {
      return u.a->host == static_cast<const char *>(map.host);
    });
    if (it == taken) {
      if (n == uses.size())
        uses.emplace_back();
      ArrayUse &u = uses[n++];
      u.a = &arrays_.at(map.host);
      u.maps.clear();
      u.all.clear();
      u.current.clear();
      u.takeover.clear();
      u.written.clear();
      u.limit = Interval{0, 0};
      u.diff = false;
      it = uses.begin() + std::ptrdiff_t(n - 1);
    }
    ArrayUse &u = *it;
    footprint(map, range.lb, range.ub, need);
    Interval hull = clamped_hull(map, 0, region.iterations);
    if (hull.hi > hull.lo)
      u.limit = u.limit.hi > u.limit.lo ? Interval{std::min(u.limit.lo, hull.lo),
                                                   std::max(u.limit.hi, hull.hi)}
                                        : hull;
    u.maps.push_back(m);
    const bool diff = merged_by_diff(map, region.iterations);
    u.diff = u.diff || diff;
    if (needs_current_values(map, diff))
      u.current.unite(need);
    else if (writes(map.kind))
      u.takeover.unite(need);
    if (writes(map.kind))
      u.written.unite(need);
    u.all.unite(need); // (a copy into u.all's storage when it is empty)
  }
  uses.resize(n);
  // An element another map reads is not taken over unread.
  for (ArrayUse &u : uses)
    u.takeover.subtract(u.current);
}

bool DataEnv::host_holds_alone(const hce_region &region, Range range) const {
  for (int m = 0; m < region.num_maps; ++m) {
    const hce_map &map = region.maps[m];
    if (!map.host)
      continue;
    if (map.kind & HCE_MAP_ROWS)
      return false; // (its footprint is in rows of the table)
    const Array &a = arrays_.at(map.host);
    if (!a.to_host.empty())
      return false;
    if (a.res.host_holds_all_alone())
      continue; // (every footprint: no hull to build)
    const Interval h = clamped_hull(map, range.lb, range.ub);
    if (h.hi <= h.lo)
      continue;
    if (!a.res.valid(kHost).contains(h.lo, h.hi))
      return false;
    for (size_t d = 0; d < devices_.size(); ++d)
      if (a.res.valid(int(d) + 1).overlaps(h.lo, h.hi) ||
          a.res.arriving(int(d) + 1).overlaps(h.lo, h.hi))
        return false; // (a copy on its way must learn of the writes)
  }
  return true;
}

bool DataEnv::acquire(int device, const hce_region &region, Range range,
                      std::vector<void *> &ptrs, ChunkHold &hold, TransferCounts &counts,
                      std::string &why) {
  std::unique_lock<std::mutex> lock(mutex_);
  ptrs.assign(size_t(region.num_maps), nullptr);
  const bool host = devices_[device]->uses_host_memory();
  if (host && host_holds_alone(region, range)) {
    for (int m = 0; m < region.num_maps; ++m)
      ptrs[size_t(m)] = region.maps[m].host;
    return true;
  }
  thread_local std::vector<ArrayUse> uses; // (storage kept: array_uses)
  array_uses(region, range, uses);
  auto set_ptrs = [&](const ArrayUse &u, void *p) {
    for (int m : u.maps)
      ptrs[size_t(m)] = p;
  };
  // 0. Copies in the background into the elements this chunk touches land
  //    first: one landing after its uploads could overwrite them.
  if (!host) {
    const double start = now_seconds();
    for (const ArrayUse &u : uses)
      if (!settle(lock, *u.a, device, why, &u.all))
        return false;
    counts.background_wait += now_seconds() - start;
  }
  // 1. Windows big enough for the chunk (before pinning any: a grow waits
  //    for this device's other chunks to let go of the window).
  for (const ArrayUse &u : uses)
    if (!host && !u.all.empty() && !u.diff &&
        !ensure_window(lock, *u.a, device, u.all.hull(), u.limit, why))
      return false;
  // 2. Plan: what the host lacks comes from the device that wrote it; then
  //    only what is missing on this device moves (Alg. 1 generalised).
  std::vector<Copy> fetches, uploads;
  std::vector<std::pair<Array *, int>> fetch_pins;
  // Planned fetches that will not run are no longer on their way home: a
  // later fetch of the same elements would wait for them for ever
  // (wait_for_copies_home).
  const auto give_up = [&] {
    for (const Copy &c : fetches)
      if (!c.to_device)
        c.a->to_host.subtract(c.elems);
    unpin_all(fetch_pins);
    unpin_all(hold.pins);
    return false;
  };
  for (const ArrayUse &u : uses) {
    Array &a = *u.a;
    if (host) {
      set_ptrs(u, a.host);
      if (!u.current.empty() &&
          !plan_fetch_to_host(lock, a, u.current, -1, fetches, fetch_pins, why))
        return give_up();
      if (!u.takeover.empty()) {
        // The CPU writes these host elements without the lock.  Where a
        // device holds the only valid copy (written in an earlier
        // execution), that device must not send it home meanwhile (a
        // window given up for memory downloads what only it holds): the
        // host takes them over now, once copies already on their way in
        // have landed.
        wait_for_copies_home(lock, a, u.takeover, fetches);
        if (!a.res.host_stale(u.takeover).empty())
          a.res.mark_written(kHost, u.takeover);
      }
      continue;
    }
    if (u.diff) {
      // A private copy of everything the maps of this array cover, made
      // from the host's values once they are there.
      if (u.all.empty())
        continue; // nothing mapped: a null pointer, never the host's memory
      if (!plan_fetch_to_host(lock, a, u.all, -1, fetches, fetch_pins, why))
        return give_up();
      DataEnv::PrivateCopy p;
      p.a = &a;
      p.maps = u.maps;
      p.device = device;
      p.elems = u.all;
      hold.privates.push_back(std::move(p));
      continue;
    }
    Window &w = a.windows[device];
    // No window: the chunk's footprint is empty (`x[i:0]`); the device
    // gets a null pointer, never the host's memory.
    set_ptrs(u, w.buffer ? static_cast<char *>(w.buffer) - w.lo * int64_t(a.elem_size)
                         : nullptr);
    if (w.buffer)
      pin(a, device, &hold);
    if (w.buffer && a.rows) {
      // Rows: the variant indexes a table of row pointers into the window
      // (rebuilt only when the window moved; pinned, it cannot move now).
      if (!w.table.update(*devices_[size_t(device)], *a.rows, w.buffer, w.lo, w.hi, why))
        return give_up();
      set_ptrs(u, w.table.biased());
    }
    if (u.current.empty())
      continue;
    IntervalSet missing = a.res.plan_upload(device + 1, u.current);
    counts.avoided +=
        uint64_t(u.current.total_length() - missing.total_length()) * a.elem_size;
    if (missing.empty())
      continue;
    plan_peer_copies(a, device, missing, uploads, fetch_pins);
    if (missing.empty())
      continue;
    if (!plan_fetch_to_host(lock, a, missing, device, fetches, fetch_pins, why))
      return give_up();
    if (a.data_refs > 0) {
      IntervalSet first = missing;
      first.subtract(w.received);
      counts.first_to_device += uint64_t(first.total_length()) * a.elem_size;
      counts.resident_to_device += uint64_t(missing.total_length()) * a.elem_size;
      w.received.unite(missing);
    }
    // Marked valid only once the copy has landed: until then another device
    // that needs these elements on the host must not fetch them from here.
    uploads.push_back({&a, device, std::move(missing), true});
  }

  // 3. The copies, outside the lock so devices move data concurrently: what
  //    the host lacks first, then the uploads.
  bool ok = copy_unlocked(lock, fetches, counts, why);
  ok = ok && copy_unlocked(lock, uploads, counts, why);
  unpin_all(fetch_pins); // after the peer copies (in uploads) read them
  if (ok && !hold.privates.empty()) {
    lock.unlock();
    for (PrivateCopy &p : hold.privates) {
      if (!(ok = make_private(device, p, counts, why)))
        break;
      void *base = static_cast<char *>(p.buffer) - p.lo * int64_t(p.a->elem_size);
      for (int m : p.maps)
        ptrs[size_t(m)] = base;
    }
    lock.lock();
  }
  if (!ok) {
    unpin_all(hold.pins);
    drop_privates(hold.privates);
  }
  return ok;
}

bool DataEnv::make_private(int device, PrivateCopy &p, TransferCounts &counts,
                           std::string &why) {
  Device &dev = *devices_[size_t(device)];
  const size_t es = p.a->elem_size;
  Interval hull = p.elems.hull();
  p.lo = hull.lo;
  p.buffer = dev.allocate(size_t(hull.length()) * es);
  if (!p.buffer) {
    why = "out of memory on " + dev.name() + " for " +
          std::to_string(size_t(hull.length()) * es) + " bytes of '" + p.a->name + "'";
    return false;
  }
  // The device gets exactly the twin's bytes, even where another device is
  // writing its own elements of the host array meanwhile.
  p.twin.resize(packed_bytes(p.elems, es));
  gather(p.a->host, p.elems, es, p.twin.data());
  size_t at = 0;
  for (const Interval &iv : p.elems) {
    size_t bytes = size_t(iv.length()) * es;
    char *dst = static_cast<char *>(p.buffer) + size_t(iv.lo - p.lo) * es;
    const char *src = p.twin.data() + at;
    if (!with_retry(
            dev, "upload", p.a->name,
            [&](std::string &e) { return dev.upload(dst, src, bytes, e); }, why))
      return false;
    counts.to_device += bytes;
    at += bytes;
  }
  return true;
}

bool DataEnv::bring_back(int device, const PrivateCopy &p, TransferCounts &counts,
                         std::vector<char> &now, std::string &why) {
  Device &dev = *devices_[size_t(device)];
  const size_t es = p.a->elem_size;
  now.resize(p.twin.size());
  size_t at = 0;
  for (const Interval &iv : p.elems) {
    size_t bytes = size_t(iv.length()) * es;
    const char *src = static_cast<const char *>(p.buffer) + size_t(iv.lo - p.lo) * es;
    char *dst = now.data() + at;
    if (!with_retry(
            dev, "download", p.a->name,
            [&](std::string &e) { return dev.download(dst, src, bytes, e); }, why))
      return false;
    counts.from_device += bytes;
    at += bytes;
  }
  return true;
}

void DataEnv::drop_privates(std::vector<PrivateCopy> &privates) {
  for (PrivateCopy &p : privates)
    if (p.buffer)
      devices_[size_t(p.device)]->release(p.buffer);
  privates.clear();
}

bool DataEnv::spans_to_pin(int device, const hce_region &region,
                           const std::vector<ArrayUse> &uses,
                           std::vector<Device::HostSpan> &spans) const {
  // Not an array the region only reads that this device and the host both
  // hold over all the region can touch: no copy of it can run in this
  // execution.  Warm kmeans (call ZD, H200): switched from the GPU alone to
  // co-execution, the GPU registered its 128 MiB of points, resident since
  // the first execution, beside the CPU's team (4.9-6.8 ms).
  auto never_copied = [&](const ArrayUse &u) {
    for (int m : u.maps)
      if (writes(region.maps[m].kind))
        return false;
    return u.a->res.valid(device + 1).contains(u.limit.lo, u.limit.hi) &&
           u.a->res.valid(kHost).contains(u.limit.lo, u.limit.hi);
  };
  bool pinnable = false;
  for (const ArrayUse &u : uses)
    if (!u.diff && u.limit.hi > u.limit.lo && u.a->data_refs > 0 && !u.a->rows) {
      pinnable = true;
      if (!never_copied(u))
        spans.push_back({u.a->host + u.limit.lo * int64_t(u.a->elem_size),
                         size_t(u.limit.hi - u.limit.lo) * u.a->elem_size});
    }
  return pinnable;
}

size_t DataEnv::would_pin(int device, const hce_region &region) {
  Device &dev = *devices_[size_t(device)];
  if (dev.uses_host_memory() || region.iterations == 0)
    return 0;
  std::vector<Device::HostSpan> spans;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    thread_local std::vector<ArrayUse> uses; // (storage kept: array_uses)
    array_uses(region, Range{0, 0}, uses);
    spans_to_pin(device, region, uses, spans);
  }
  return spans.empty() ? 0 : dev.unpinned_bytes(spans);
}

void DataEnv::bring_home_first(std::unique_lock<std::mutex> &lock, int device,
                               const hce_region &region,
                               const std::vector<ArrayUse> &uses,
                               TransferCounts &counts) {
  // A registration holds the driver for 1-3 ms a piece, every other CUDA
  // call of the process waiting: cold cg's second spmv, the CPU's chunk
  // waited 2.2-2.5 ms behind a 32 MiB piece for p's rows the GPU had
  // written in update_p (calls RA, RB).  Only arrays no map of the region
  // writes: nobody changes their rows while the copies run.
  std::vector<Copy> home;
  size_t bytes = 0;
  for (const ArrayUse &u : uses) {
    bool written = false;
    for (int m : u.maps)
      written = written || writes(region.maps[m].kind);
    if (written || u.diff || u.limit.hi <= u.limit.lo)
      continue;
    Array &a = *u.a;
    IntervalSet only_here =
        a.res.plan_download(device + 1, IntervalSet(u.limit.lo, u.limit.hi)) - a.to_host;
    if (only_here.empty())
      continue;
    bytes += size_t(only_here.total_length()) * a.elem_size;
    home.push_back({&a, device, std::move(only_here), false});
  }
  // More than that may be rows no other device reads in this execution: a
  // download that costs a good part of the piece it would save waiting for.
  if (home.empty() || bytes > kHomeFirstBytes)
    return;
  std::vector<std::pair<Array *, int>> pins;
  for (const Copy &c : home) {
    pin(*c.a, device, nullptr);
    pins.push_back({c.a, device});
    c.a->to_host.unite(c.elems); // another device's fetch waits for them
  }
  std::string why; // best effort: a chunk that needs them fetches them
  copy_unlocked(lock, home, counts, why);
  unpin_all(pins);
}

void DataEnv::prepare(int device, const hce_region &region, TransferCounts &counts,
                      const Device::Wanted &wanted, bool others_work) {
  Device &dev = *devices_[device];
  if (dev.uses_host_memory() || region.iterations == 0)
    return;
  std::unique_lock<std::mutex> lock(mutex_);
  std::vector<Copy> uploads;
  std::vector<std::pair<Array *, int>> pins;
  std::string why;
  thread_local std::vector<ArrayUse> uses; // (storage kept: array_uses)
  array_uses(region, Range{0, 0}, uses);
  // Pinning pays off only for arrays that stay: those of data regions.  It
  // runs without the lock (cudaHostRegister: ~43 ms/GiB), which the other
  // devices' chunks need: on the H100 jacobi2d's first CPU chunk waited
  // 11-39 ms for the GPU to pin A and B (call GF).  The arrays and their
  // host memory outlive the region.
  std::vector<Device::HostSpan> to_pin;
  const bool pinnable = spans_to_pin(device, region, uses, to_pin);
  if (!to_pin.empty()) {
    if (others_work && dev.preparing_blocks_copies(to_pin))
      bring_home_first(lock, device, region, uses, counts);
    lock.unlock();
    dev.prepare_hosts(to_pin, wanted);
    lock.lock();
    // The others did the execution's work meanwhile: no chunk of this
    // device needs its windows or broadcast rows now, and a later
    // preparation makes them (cold cg's first spmv ended 0.47 ms after the
    // GPU's last registration, uploading p, call RB).
    if (!wanted())
      return;
  } else if (!pinnable) {
    size_t copied = 0; // pageable rows a one-shot region may copy
    for (const ArrayUse &u : uses)
      if (u.limit.hi > u.limit.lo)
        copied += size_t(u.limit.hi - u.limit.lo) * u.a->elem_size;
    lock.unlock();
    dev.prepare_copies(copied);
    lock.lock();
  }
  for (const ArrayUse &u : uses) {
    if (u.diff)
      continue; // each chunk gets a private copy
    Array &a = *u.a;
    const Interval all = u.limit;
    if (all.hi <= all.lo)
      continue;
    // Only a first window: growing one here could evict data the device
    // holds when memory is short; the chunks handle that.
    if (!a.windows[device].buffer && !ensure_window(lock, a, device, all, all, why))
      continue;       // the chunks will get smaller windows
    IntervalSet need; // the broadcast sections it reads
    for (int m : u.maps) {
      const hce_map &map = region.maps[m];
      if (map.scale == 0 && reads(map.kind))
        need.unite(footprint(map, 0, 1));
    }
    if (!settle(lock, a, device, why, &need))
      continue; // (its chunks will fail on it, or move what they need)
    IntervalSet missing = a.res.plan_upload(device + 1, need);
    if (missing.empty() || !a.res.host_stale(missing).empty())
      continue; // nothing to do, or the chunks will fetch it from a device
    pin(a, device, nullptr);
    pins.push_back({&a, device});
    uploads.push_back({&a, device, std::move(missing), true});
  }
  copy_unlocked(lock, uploads, counts, why);
  unpin_all(pins);
}

void DataEnv::abandon(ChunkHold &hold) {
  std::lock_guard<std::mutex> lock(mutex_);
  unpin_all(hold.pins);
  drop_privates(hold.privates);
}

const char *co_name(CoMode mode) {
  switch (mode) {
  case CoMode::None: return "none";
  case CoMode::Incremental: return "incremental";
  case CoMode::Pipelined: return "pipelined";
  }
  return "?";
}

bool DataEnv::release(int device, const hce_region &region, Range range, CoMode co,
                      ChunkHold &hold, TransferCounts &counts, std::string &why) {
  std::unique_lock<std::mutex> lock(mutex_);
  const int holder = device + 1;
  const bool host = devices_[device]->uses_host_memory();
  std::vector<Copy> downloads;
  std::set<const Array *> merged; // written home by twin and diff
  bool ok = true;
  hold.results_on_device = false;
  if (!hold.privates.empty()) {
    // Twin and diff: only what the device changed goes to the host, and
    // only that makes the other copies stale.  Nothing is written home
    // unless the whole private copy came back.
    std::vector<IntervalSet> changed(hold.privates.size());
    std::vector<std::vector<char>> now(hold.privates.size());
    lock.unlock();
    for (size_t k = 0; k < hold.privates.size() && ok; ++k)
      ok = bring_back(device, hold.privates[k], counts, now[k], why);
    lock.lock();
    // Under the lock, so that two devices' merges cannot interleave: an
    // element this chunk changed that someone else changed too since the
    // twin was taken (an `omp atomic` update, a race) cannot be merged.
    // Nothing is written then; the chunk fails and is re-run on the CPU,
    // on top of what the others wrote.
    for (size_t k = 0; k < hold.privates.size() && ok; ++k) {
      const PrivateCopy &p = hold.privates[k];
      changed[k] =
          changed_elements(p.twin.data(), now[k].data(), p.elems, p.a->elem_size);
      IntervalSet clash = conflicting_elements(p.a->host, p.twin.data(), now[k].data(),
                                               p.elems, changed[k], p.a->elem_size);
      if (!clash.empty()) {
        ok = false;
        why = std::to_string(clash.total_length()) + " element(s) of '" + p.a->name +
              "' (the first: " + std::to_string(clash.begin()->lo) + ")" +
              " were changed elsewhere while this chunk ran (an atomic update or a "
              "race on them), so its writes cannot be merged";
      }
    }
    for (size_t k = 0; k < hold.privates.size(); ++k) {
      const PrivateCopy &p = hold.privates[k];
      merged.insert(p.a);
      if (!ok || changed[k].empty())
        continue;
      scatter(p.a->host, now[k].data(), p.elems, changed[k], p.a->elem_size);
      p.a->res.mark_written(kHost, changed[k]);
    }
    drop_privates(hold.privates);
    if (!ok) {
      unpin_all(hold.pins);
      return false;
    }
  }
  if (host && host_holds_alone(region, range)) {
    unpin_all(hold.pins);
    return true; // its writes made no other copy stale
  }
  thread_local std::vector<ArrayUse> uses; // (storage kept: array_uses)
  array_uses(region, range, uses, /*written_only=*/true);
  for (ArrayUse &u : uses) {
    Array &a = *u.a;
    if (u.written.empty() || merged.count(&a))
      continue;
    // A write makes every other copy of these elements stale.
    a.res.mark_written(host ? kHost : holder, u.written);
    // Outside a data region the results must come home anyway: now, so that
    // the download of this chunk overlaps the next chunk's work.
    if (!host && (co == CoMode::None || a.data_refs == 0)) {
      a.to_host.unite(u.written); // others wait rather than fetch it too
      downloads.push_back({&a, device, std::move(u.written), false});
    }
  }
  ok = copy_unlocked(lock, downloads, counts, why);
  hold.results_on_device = !ok;
  if (co == CoMode::None && !host && ok) {
    // Without CO nothing stays on the device for the next chunk (but what
    // failed to come home, which evict() brings home or reports lost).
    for (int m = 0; m < region.num_maps; ++m)
      if (region.maps[m].host)
        arrays_.at(region.maps[m].host).res.release(holder);
  }
  unpin_all(hold.pins);
  return ok;
}

bool DataEnv::evict(int device, const hce_region &region, std::string &why) {
  std::unique_lock<std::mutex> lock(mutex_);
  bool ok = true;
  std::vector<Array *> mine;
  for (int m = 0; m < region.num_maps; ++m) {
    auto it = region.maps[m].host ? arrays_.find(region.maps[m].host) : arrays_.end();
    if (it != arrays_.end() &&
        std::find(mine.begin(), mine.end(), &it->second) == mine.end())
      mine.push_back(&it->second);
  }
  for (Array *ap : mine) {
    Array &a = *ap;
    std::string lost; // (what was on its way is simply not valid)
    quiesce_window(lock, a, device, lost);
    IntervalSet only_here = a.res.plan_download(device + 1, a.res.valid(device + 1));
    TransferCounts ignored;
    if (!only_here.empty() && !download(a, device, only_here, ignored, why)) {
      ok = false;
      a.lost.unite(only_here);
    }
    a.res.release(device + 1);
    free_window(a, device);
  }
  return ok;
}

void DataEnv::drop_device_copies(Array &a) {
  for (size_t d = 0; d < a.windows.size(); ++d) {
    free_window(a, int(d));
    a.res.release(int(d) + 1);
  }
}

bool DataEnv::flush_and_drop(Array &a, bool bring_home, std::string &why) {
  bool ok = true;
  if (bring_home) {
    TransferCounts ignored;
    // Everything some device holds that the host lacks (nothing, when no
    // device holds anything: the usual end of a region the CPU ran alone).
    if (!a.res.host_holds_alone())
      ok = fetch_to_host(a, a.res.host_stale(a.res.universe()), -1, ignored, why);
    // ... and nothing lost that nobody wrote again since.
    if (IntervalSet gone = a.lost.empty() ? IntervalSet() : a.res.unheld(a.lost);
        ok && !gone.empty()) {
      why = "elements " + gone.to_string() + " of '" + a.name +
            "' were lost with a failed device; the host holds older values";
      ok = false;
    }
  }
  drop_device_copies(a);
  return ok;
}

void DataEnv::warn_dropped_writes(const Array &a) const {
  // On a GPU alone OpenMP leaves such an array as it was on the host; here
  // the CPU's chunks wrote the host's copy itself, so it comes out with new
  // values where the CPU computed and old ones where a device did -- a
  // result that depends on the split, and easy to take for a right one.
  const IntervalSet dropped = a.res.host_stale(a.res.universe());
  if (dropped.empty())
    return;
  warning_once("dropped/" + a.name,
               "end of data region: '" + a.name + "' is mapped to, not from: what devices " +
                   "wrote of it inside (elements " + dropped.to_string() +
                   ") is dropped, but what the CPU wrote is in the host's copy already, so " +
                   "the host's '" + a.name + "' may mix new and old values; map it tofrom to " +
                   "get every value back (alloc, if it is scratch)");
}

const DataEnv::Array *DataEnv::data_overlap(const hce_map &map) const {
  const Interval h = clamped_hull(map, 0, 1);
  if (h.hi <= h.lo || (map.kind & HCE_MAP_ROWS))
    return nullptr;
  const char *lo = static_cast<const char *>(map.host) + h.lo * int64_t(map.elem_size);
  const char *hi = static_cast<const char *>(map.host) + h.hi * int64_t(map.elem_size);
  for (const auto &[key, o] : arrays_)
    if (key != map.host && o.data_refs > 0 && o.data_hi && o.data_lo < hi &&
        lo < o.data_hi)
      return &o;
  return nullptr;
}

bool DataEnv::data_begin(int num_maps, const hce_map *maps, std::string &why) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const void *> entered;
  for (int m = 0; m < num_maps; ++m) {
    if (maps[m].elem_size == 0 || !maps[m].host) {
      why = "data map '" + std::string(maps[m].name ? maps[m].name : "?") +
            "' has no storage";
      return false;
    }
    if (std::string err = check_map(maps[m], 1); !err.empty()) {
      why = "data " + err;
      return false;
    }
  }
  for (int m = 0; m < num_maps; ++m) {
    hce_region none{};
    if (!arrays_.count(maps[m].host) &&
        !reconcile_alias(none, maps[m], /*in_data_begin=*/true, why))
      return false;
    if (const Array *o = data_overlap(maps[m])) {
      why = "'" + std::string(maps[m].name ? maps[m].name : "?") +
            "' lies in the memory of '" + o->name +
            "', which a data region holds: map the " +
            "array itself (with an offset), not a pointer into it";
      return false;
    }
  }
  for (int m = 0; m < num_maps; ++m) {
    Array &a = array_for(maps[m], 1); // a data map: its section
    const Interval h = clamped_hull(maps[m], 0, 1);
    const char *lo = a.host + h.lo * int64_t(a.elem_size);
    const char *hi = a.host + h.hi * int64_t(a.elem_size);
    if (h.hi > h.lo && !a.rows) { // (a row table's rows lie apart)
      a.data_lo = a.data_hi == nullptr ? lo : std::min(a.data_lo, lo);
      a.data_hi = a.data_hi == nullptr ? hi : std::max(a.data_hi, hi);
    }
    ++a.data_refs;
    a.data_from = a.data_from || writes(maps[m].kind);
    entered.push_back(maps[m].host);
  }
  data_stacks_[std::this_thread::get_id()].push_back(std::move(entered));
  return true;
}

bool DataEnv::data_end(std::string &why) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto stack = data_stacks_.find(std::this_thread::get_id());
  if (stack == data_stacks_.end()) {
    why = "hce_data_end without a matching hce_data_begin on this thread";
    return false;
  }
  bool ok = true;
  for (const void *key : stack->second.back()) {
    auto it = arrays_.find(key);
    if (it == arrays_.end())
      continue;
    Array &a = it->second;
    if (--a.data_refs > 0 || a.region_refs > 0)
      continue;
    // OpenMP target-data semantics: `from` arrays come home in full; `to`
    // arrays are simply released (their device writes are discarded).
    if (!a.data_from)
      warn_dropped_writes(a);
    ok = flush_and_drop(a, a.data_from, why) && ok;
    recycle(it);
  }
  stack->second.pop_back();
  if (stack->second.empty())
    data_stacks_.erase(stack); // (a thread's id may be reused after it exits)
  return ok;
}

bool DataEnv::update(int num_maps, const hce_map *maps, bool to_devices,
                     std::string &why) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int m = 0; m < num_maps; ++m) {
    auto it = arrays_.find(maps[m].host);
    if (it == arrays_.end()) {
      // No record of its own: the host's, unless it lies in another
      // record's memory (an interior pointer), whose part goes home or
      // becomes the host's.
      bool ok = true;
      for_each_overlap(maps[m], clamped_hull(maps[m], 0, 1),
                       [&](const void *, Array &o, const IntervalSet &part) {
                         TransferCounts ignored;
                         if (to_devices)
                           o.res.mark_written(kHost, part);
                         else
                           ok =
                               fetch_to_host(o, o.res.host_stale(part), -1, ignored, why);
                         return ok;
                       });
      if (!ok)
        return false;
      continue;
    }
    Array &a = it->second;
    IntervalSet sec = footprint(maps[m], 0, 1);
    if (to_devices) {
      // The host copy is current: device copies of the section are stale.
      a.res.mark_written(kHost, sec);
    } else {
      TransferCounts ignored;
      if (!fetch_to_host(a, sec, -1, ignored, why))
        return false;
    }
  }
  return true;
}

bool DataEnv::inline_begin(const hce_region &region, std::string &why) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int m = 0; m < region.num_maps; ++m) {
    auto it = arrays_.find(region.maps[m].host);
    if (it == arrays_.end())
      continue;
    Array &a = it->second;
    IntervalSet want = footprint(region.maps[m], 0, region.iterations) & a.res.universe();
    TransferCounts ignored;
    if (!fetch_to_host(a, a.res.host_stale(want), -1, ignored, why))
      return false;
  }
  return true;
}

void DataEnv::inline_end(const hce_region &region) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int m = 0; m < region.num_maps; ++m) {
    if (!writes(region.maps[m].kind))
      continue;
    auto it = arrays_.find(region.maps[m].host);
    if (it == arrays_.end())
      continue;
    Array &a = it->second;
    a.res.mark_written(kHost, footprint(region.maps[m], 0, region.iterations) &
                                  a.res.universe());
  }
}

void DataEnv::note_host_wrote(const hce_region &region) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int m = 0; m < region.num_maps; ++m)
    if (writes(region.maps[m].kind))
      if (auto it = arrays_.find(region.maps[m].host);
          it != arrays_.end() && it->second.data_refs > 0)
        it->second.host_wrote = true;
}

bool DataEnv::host_wrote_any(const hce_region &region) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int m = 0; m < region.num_maps; ++m)
    if (auto it = arrays_.find(region.maps[m].host);
        it != arrays_.end() && it->second.host_wrote)
      return true;
  return false;
}

size_t DataEnv::host_lacks(const hce_region &region) {
  std::lock_guard<std::mutex> lock(mutex_);
  thread_local std::vector<ArrayUse> uses; // (storage kept: array_uses)
  array_uses(region, Range{0, region.iterations}, uses);
  size_t bytes = 0;
  for (const ArrayUse &u : uses)
    if (u.a->data_refs > 0 && !u.a->rows)
      bytes += size_t(u.a->res.valid(kHost).missing(u.current).total_length()) *
               u.a->elem_size;
  return bytes;
}

bool DataEnv::in_data_region(const hce_region &region) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int m = 0; m < region.num_maps; ++m) {
    auto it = arrays_.find(region.maps[m].host);
    if (it != arrays_.end() && it->second.data_refs > 0)
      return true;
  }
  return false;
}

int DataEnv::window_pins(const void *host, int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = arrays_.find(host);
  return it == arrays_.end() ? 0 : it->second.windows[size_t(device)].pins;
}

IntervalSet DataEnv::valid_on(const void *host, int holder) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = arrays_.find(host);
  if (it == arrays_.end())
    return holder == kHost ? ArrayResidency(0).universe() : IntervalSet();
  return it->second.res.valid(holder);
}

} // namespace hce
