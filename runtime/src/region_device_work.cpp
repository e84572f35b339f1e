#include "region_device_work.hpp"

#include "clock.hpp"
#include "reduction.hpp"
#include "stats.hpp"
#include "trace.hpp"

#include <algorithm>

namespace hce {
namespace {

bool out_of_memory(const std::string &err) {
  return err.find("out of memory on ") != std::string::npos;
}

} // namespace

RegionDeviceWork::RegionDeviceWork(Runtime &rt, const hce_region &region, int device,
                                   CoMode co)
    : rt_(rt), r_(&region), device_(device), co_(co), data_(rt.data()),
      partials_(reduction_slots(region)) {}

void RegionDeviceWork::reset(const hce_region &region, CoMode co) {
  r_ = &region;
  co_ = co;
  partials_ = reduction_slots(region);
  bytes_ = {};
  for (Slot &s : slots_) {
    s.hold.pins.clear();
    s.hold.privates.clear();
    s.hold.results_on_device = false;
    s.in_pieces = false;
    s.first_share = 0;
  }
  pieces_home_.clear();
  failed_downloads_.clear();
}

void RegionDeviceWork::bind(ChunkWorker &w) {
  w.device = device_;
  w.upload = [this](Range range, int k, std::string &why) {
    return upload(range, k, why);
  };
  w.compute = [this](Range range, int k, std::string &why) {
    return compute(range, k, why);
  };
  w.download = [this](Range range, int k, std::string &why) {
    return download(range, k, why);
  };
  w.abandon = [this](int k) { abandon(k); };
  w.first_upload_share = [this](int k) { return first_upload_share(k); };
  w.placed_upload_share = [this](int k) { return placed_upload_share(k); };
  w.on_failure = [this, &w] { return rescue(w.finished_by_rescue); };
}

bool RegionDeviceWork::upload(Range range, int k, std::string &why) {
  Slot &s = slots_[size_t(k)];
  s.red = reduction_slots(*r_);
  s.in_pieces = false;
  // (One upload stage at a time per device: the deltas are this chunk's.)
  // Not the wait for copies in the background (TransferCounts::
  // background_wait): counted as one-time work too, it made the H200's cold
  // cg 1.23x as long (call YD, 7 paired rounds).
  const uint64_t up0 = bytes_.to_device, first0 = bytes_.first_to_device,
                 resident0 = bytes_.resident_to_device;
  const bool host = rt_.devices()[size_t(device_)]->uses_host_memory();
  const auto first_share = [&] {
    const uint64_t up = bytes_.to_device - up0;
    s.first_share = up ? double(bytes_.first_to_device - first0) / double(up) : 0;
    s.placed_share = host ? 1.0
                     : up ? double(bytes_.resident_to_device - resident0) / double(up)
                          : 0;
  };
  if (data_.acquire(device_, *r_, range, s.ptrs, s.hold, bytes_, why)) {
    first_share();
    return true;
  }
  if (!out_of_memory(why) || range.size() < 2)
    return false;
  s.in_pieces = true;
  why.clear();
  const bool ok = run_in_pieces(range, s, why);
  s.first_share = s.placed_share = 0; // (the stage computed too: not a copy's time alone)
  return ok;
}

// A chunk whose data does not fit in the device's memory runs as
// consecutive pieces that do, in the upload stage: a piece may have to wait
// for the chunks ahead of it to let go of the device's windows, and those
// never wait for the upload stage.
bool RegionDeviceWork::run_in_pieces(Range range, Slot &s, std::string &why) {
  Device &dev = *rt_.devices()[size_t(device_)];
  int64_t piece = std::max<int64_t>(1, range.size() / 2);
  for (int64_t lb = range.lb; lb < range.ub;) {
    Range p{lb, std::min(range.ub, lb + piece)};
    std::vector<void *> ptrs;
    DataEnv::ChunkHold hold;
    std::vector<unsigned char> red = reduction_slots(*r_);
    if (!data_.acquire(device_, *r_, p, ptrs, hold, bytes_, why)) {
      if (!out_of_memory(why) || piece == 1)
        return false;
      piece = std::max<int64_t>(1, piece / 2);
      why.clear();
      continue;
    }
    ChunkContext ctx{r_, p, ptrs.data(), red.data()};
    if (!dev.compute(ctx, why)) {
      data_.abandon(hold);
      return false;
    }
    if (!data_.release(device_, *r_, p, co_, hold, bytes_, why)) {
      std::lock_guard<std::mutex> lock(partials_mutex_);
      if (hold.results_on_device)
        failed_downloads_.push_back({p, std::move(red)});
      return false;
    }
    // Final whatever happens to the rest of the chunk (rescue()).
    std::lock_guard<std::mutex> lock(partials_mutex_);
    reduction_combine_all(*r_, partials_.data(), red.data());
    pieces_home_.push_back(p);
    lb = p.ub;
  }
  // Its pieces stay in pieces_home_ until the chunk completes (download()):
  // in a pipeline, a chunk ahead of it may fail first, and the compute
  // stage then abandons this one unrecorded -- its pieces, home already,
  // were run again on the CPU (an update in place applied twice, status 0:
  // the fault matrix's inplace, mem:20000,fail_compute:3, eft, pipelined).
  return true;
}

bool RegionDeviceWork::compute(Range range, int k, std::string &why) {
  Slot &s = slots_[size_t(k)];
  if (s.in_pieces)
    return true; // done in the upload stage
  ChunkContext ctx{r_, range, s.ptrs.data(), s.red.data()};
  return rt_.devices()[size_t(device_)]->compute(ctx, why);
}

bool RegionDeviceWork::download(Range range, int k, std::string &why) {
  Slot &s = slots_[size_t(k)];
  if (s.in_pieces) { // its pieces' partials are in partials_ already
    std::lock_guard<std::mutex> lock(partials_mutex_);
    std::erase_if(pieces_home_,
                  [&](Range p) { return p.lb >= range.lb && p.ub <= range.ub; });
    return true;
  }
  const bool released = data_.release(device_, *r_, range, co_, s.hold, bytes_, why);
  // Only a chunk that completed contributes to the reductions (one whose
  // download failed, once rescue() brought its results home).
  std::lock_guard<std::mutex> lock(partials_mutex_);
  if (!released) {
    if (s.hold.results_on_device)
      failed_downloads_.push_back({range, s.red});
    return false;
  }
  reduction_combine_all(*r_, partials_.data(), s.red.data());
  return true;
}

void RegionDeviceWork::abandon(int k) { data_.abandon(slots_[size_t(k)].hold); }

void RegionDeviceWork::prepare(const Device::Wanted &wanted, bool others_work) {
  data_.prepare(device_, *r_, bytes_, wanted, others_work);
}

void RegionDeviceWork::prefetch() {
  const double start = now_seconds();
  const size_t bytes = data_.prefetch(device_, *r_, bytes_);
  if (bytes > 0 && trace_enabled())
    trace_event(rt_.devices()[size_t(device_)]->name(), "prepare",
                std::string("region ") + (r_->name ? r_->name : "?") + ": " +
                    fmt_bytes(bytes) + " queued in the background",
                start, now_seconds());
}

std::string RegionDeviceWork::rescue(std::vector<Range> &finished) {
  std::string err;
  if (!data_.evict(device_, *r_, err))
    return "cannot recover the data held by " + rt_.devices()[size_t(device_)]->name() +
           ": " + err;
  // Everything the device computed is home now (evict): a chunk whose
  // download failed finished after all.
  std::lock_guard<std::mutex> lock(partials_mutex_);
  finished = pieces_home_;
  for (const FailedDownload &f : failed_downloads_) {
    reduction_combine_all(*r_, partials_.data(), f.red.data());
    finished.push_back(f.range);
  }
  failed_downloads_.clear();
  return "";
}

} // namespace hce
