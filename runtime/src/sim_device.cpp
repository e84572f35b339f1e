#include "sim_device.hpp"

#include "clock.hpp"
#include "copy_batch.hpp"
#include "text_list.hpp"
#include "variant_scope.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace hce {
namespace {

#if defined(__SANITIZE_THREAD__)
#define HCE_SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HCE_SIM_TSAN 1
#endif
#endif
#ifdef HCE_SIM_TSAN
extern "C" void AnnotateIgnoreReadsBegin(const char *file, int line);
extern "C" void AnnotateIgnoreReadsEnd(const char *file, int line);
void ignore_reads_begin() { AnnotateIgnoreReadsBegin(__FILE__, __LINE__); }
void ignore_reads_end() { AnnotateIgnoreReadsEnd(__FILE__, __LINE__); }
#else
void ignore_reads_begin() {}
void ignore_reads_end() {}
#endif

void sleep_until_elapsed(double start, double seconds) {
  double left = start + seconds - now_seconds();
  if (left > 0)
    std::this_thread::sleep_for(std::chrono::duration<double>(left));
}

bool parse_number(const std::string &s, double &out) {
  if (s.empty())
    return false;
  char *end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

// Applies "key:value,key:value" to `p`; false and `why` on a bad pair.
bool apply_sim_params(const std::string &who, const std::string &list, SimParams &p,
                      std::string &why) {
  for (const std::string &kv : split_list(list, ',')) {
    size_t colon = kv.find(':');
    double v = 0;
    if (colon == std::string::npos || !parse_number(kv.substr(colon + 1), v)) {
      why = "HCE_SIM: malformed parameter '" + kv + "' for " + who +
            " (expected key:number)";
      return false;
    }
    std::string key = kv.substr(0, colon);
    if (key == "speed" && v > 0)
      p.speed = v;
    else if (key == "bw" && v > 0)
      p.bandwidth = v;
    else if (key == "lat" && v >= 0)
      p.latency = v;
    else if (key == "mem" && v >= 0)
      p.capacity = v;
    else if (key == "iter_time" && v >= 0)
      p.iter_time = v;
    else if (key == "threads" && v >= 1)
      p.threads = static_cast<int>(v);
    else if (key == "pin" && v >= 0)
      p.pin = v;
    else if (key == "p2p" && (v == 0 || v == 1))
      p.p2p = v == 1;
    else if (key == "bg" && (v == 0 || v == 1))
      p.background = v == 1;
    else if (key == "sticky" && (v == 0 || v == 1))
      p.sticky = v == 1;
    else if (key == "repeat" && v >= 1 && v == double(long(v)))
      p.repeat = long(v);
    else if (key == "fail_compute" && v >= 1)
      p.fail_compute = static_cast<long>(v);
    else if (key == "fail_upload" && v >= 1)
      p.fail_upload = static_cast<long>(v);
    else if (key == "fail_download" && v >= 1)
      p.fail_download = static_cast<long>(v);
    else {
      why = "HCE_SIM: unknown or out-of-range parameter '" + kv + "' for " + who;
      return false;
    }
  }
  return true;
}

} // namespace

std::optional<SimParams> parse_sim_params(const std::string &text, int ordinal,
                                          std::string &why) {
  // Entries are "sim:N=..." (one device) or "sim=..." (every sim device),
  // separated by ';'.  Every entry is validated, only matching ones apply.
  SimParams mine;
  const std::string want = "sim:" + std::to_string(ordinal);
  for (const std::string &entry : split_list(text, ';')) {
    if (entry.empty())
      continue;
    size_t eq = entry.find('=');
    if (eq == std::string::npos) {
      why = "HCE_SIM entry '" + entry + "' has no '=' (expected sim:N=key:value,...)";
      return std::nullopt;
    }
    std::string who = entry.substr(0, eq);
    SimParams scratch;
    bool applies = who == want || who == "sim";
    if (!apply_sim_params(who, entry.substr(eq + 1), applies ? mine : scratch, why))
      return std::nullopt;
  }
  return mine;
}

SimDevice::SimDevice(int ordinal, SimParams params)
    : Device(DeviceKind::Sim, "sim:" + std::to_string(ordinal), ordinal),
      params_(params) {
  // What its timings depend on (not mem: or the fault injection).
  char hw[160];
  std::snprintf(hw, sizeof hw, "sim speed:%g,bw:%g,lat:%g,threads:%d,iter_time:%g,p2p:%d",
                params.speed, params.bandwidth, params.latency, params.threads,
                params.iter_time, int(params.p2p));
  set_hardware(hw);
}

SimDevice::~SimDevice() {
  for (auto &[ptr, bytes] : blocks_)
    std::free(ptr);
}

void SimDevice::on_controller_start() { omp_set_num_threads(params_.threads); }

bool SimDevice::enter_caller() {
  // Its variant is a `parallel for`: not nested in the caller's (the same
  // rule as the CPU's, CpuDevice::enter_caller).
  if (omp_get_active_level() > 0 || VariantScope::active())
    return false;
  caller_threads_ = omp_get_max_threads();
  omp_set_num_threads(params_.threads);
  return true;
}

void SimDevice::leave_caller() { omp_set_num_threads(caller_threads_); }

bool SimDevice::injected_failure(std::atomic<long> &counter, long fail_at) const {
  if (!fail_at)
    return false;
  const long k = ++counter;
  return k >= fail_at && (params_.sticky || k < fail_at + params_.repeat);
}

bool SimDevice::compute(const ChunkContext &ctx, std::string &why) {
  if (injected_failure(computes_, params_.fail_compute)) {
    why =
        "injected kernel failure (fail_compute:" + std::to_string(params_.fail_compute) +
        ")";
    return false;
  }
  double start = now_seconds();
  {
    VariantScope scope;
    ctx.region->cpu(ctx.range.lb, ctx.range.ub, ctx.ptrs, ctx.region->args, ctx.red);
  }
  double took = params_.iter_time > 0 ? double(ctx.range.size()) * params_.iter_time
                                      : now_seconds() - start;
  sleep_until_elapsed(start, took / params_.speed);
  return true;
}

void *SimDevice::allocate(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (params_.capacity > 0 && double(used_ + bytes) > params_.capacity)
    return nullptr;
  void *p = std::malloc(bytes ? bytes : 1);
  if (!p)
    return nullptr;
  std::memset(p, 0xFF, bytes); // poison: a missing upload reads NaN / -1
  blocks_[p] = bytes;
  used_ += bytes;
  return p;
}

void SimDevice::release(void *ptr) {
  if (!ptr)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end())
    return;
  used_ -= it->second;
  blocks_.erase(it);
  std::free(ptr);
}

namespace {
struct SimBatch {
  struct Copy {
    void *dst;
    const void *src;
    size_t bytes;
  };
  std::vector<Copy> copies;
  double seconds = 0; // the copies' bytes over the link's bandwidth
};
using SimBatches = OpenCopyBatches<SimBatch>;
} // namespace

void SimDevice::begin_copies() { SimBatches::open(this); }

bool SimDevice::finish_copies(std::string &why) {
  std::optional<SimBatch> batch = SimBatches::close(this);
  if (!batch || batch->copies.empty())
    return true;
  ++batches_;
  batched_copies_ += long(batch->copies.size());
  double start = now_seconds();
  for (const SimBatch::Copy &c : batch->copies)
    std::memcpy(c.dst, c.src, c.bytes);
  sleep_until_elapsed(start, params_.latency + batch->seconds);
  return true;
}

bool SimDevice::transfer(void *dst, const void *src, size_t bytes,
                         std::atomic<long> &counter, long fail_at, const char *what,
                         std::string &why) {
  if (injected_failure(counter, fail_at)) {
    why = std::string("injected ") + what + " failure";
    return false;
  }
  if (SimBatch *b = SimBatches::find(this)) {
    b->copies.push_back({dst, src, bytes});
    b->seconds += double(bytes) / params_.bandwidth;
    return true;
  }
  double start = now_seconds();
  std::memcpy(dst, src, bytes);
  sleep_until_elapsed(start, params_.latency + double(bytes) / params_.bandwidth);
  return true;
}

void SimDevice::prepare_host(const void *host, size_t bytes, const Wanted &wanted) {
  if (!(params_.pin > 0))
    return;
  bool started = false;
  for (;;) {
    size_t piece = 0;
    {
      std::lock_guard<std::mutex> lock(pinned_mutex_);
      auto it = pinned_.try_emplace({host, bytes}, 0).first;
      if (it->second >= bytes || !wanted())
        return;
      if (!started) {
        started = true;
        ++pins_started_;
      }
      piece = std::min(kPinPieceBytes, bytes - it->second);
      it->second += piece; // claimed: a concurrent preparation pins the rest
    }
    const double start = now_seconds();
    sleep_until_elapsed(start, params_.pin * double(piece) / double(1u << 30));
    one_time_ns_ += int64_t((now_seconds() - start) * 1e9);
  }
}

size_t SimDevice::unpinned_bytes(const std::vector<HostSpan> &spans) {
  if (!(params_.pin > 0))
    return 0;
  std::lock_guard<std::mutex> lock(pinned_mutex_);
  size_t unpinned = 0;
  for (const HostSpan &s : spans) {
    auto it = pinned_.find({s.host, s.bytes});
    unpinned += s.bytes - (it == pinned_.end() ? 0 : std::min(it->second, s.bytes));
  }
  return unpinned;
}

double SimDevice::one_time_seconds() const { return double(one_time_ns_.load()) * 1e-9; }

size_t SimDevice::pinned_bytes() {
  std::lock_guard<std::mutex> lock(pinned_mutex_);
  size_t total = 0;
  for (const auto &[span, done] : pinned_)
    total += done;
  return total;
}

bool SimDevice::upload(void *dev_dst, const void *host_src, size_t bytes,
                       std::string &why) {
  return transfer(dev_dst, host_src, bytes, uploads_, params_.fail_upload, "upload", why);
}

bool SimDevice::download(void *host_dst, const void *dev_src, size_t bytes,
                         std::string &why) {
  return transfer(host_dst, dev_src, bytes, downloads_, params_.fail_download, "download",
                  why);
}

void SimDevice::background_pieces(const void *host, size_t bytes,
                                  std::vector<std::pair<size_t, size_t>> &out) {
  if (!params_.background || bytes == 0)
    return;
  if (!(params_.pin > 0)) {
    out.push_back({0, bytes});
    return;
  }
  // The pinned part of each span prepare_host() was given (its prefix).
  const uintptr_t lo = uintptr_t(host), hi = lo + bytes;
  std::lock_guard<std::mutex> lock(pinned_mutex_);
  for (const auto &[span, done] : pinned_) {
    const uintptr_t plo = std::max(lo, uintptr_t(span.first));
    const uintptr_t phi = std::min(hi, uintptr_t(span.first) + done);
    if (plo < phi)
      out.push_back({plo - lo, phi - plo});
  }
}

bool SimDevice::upload_in_background(void *dev_dst, const void *host_src, size_t bytes,
                                     std::string &why) {
  if (!params_.background) {
    why = "no copies in the background on " + name();
    return false;
  }
  const char *src = static_cast<const char *>(host_src);
  // A copy engine's read: it may meet a CPU chunk's writes to these rows,
  // which void the copy (ArrayResidency::start_arriving), as a GPU's DMA
  // may.  Not a race of this program's threads: ThreadSanitizer is told.
  ignore_reads_begin();
  std::vector<char> snapshot(src, src + bytes);
  ignore_reads_end();
  std::lock_guard<std::mutex> lock(background_mutex_);
  background_queued_.push_back({dev_dst, std::move(snapshot)});
  return true;
}

uint64_t SimDevice::background_ticket(std::string &why) {
  if (!params_.background) {
    why = "no copies in the background on " + name();
    return 0;
  }
  std::lock_guard<std::mutex> lock(background_mutex_);
  BackgroundBatch batch;
  size_t bytes = 0;
  for (const BackgroundCopy &c : background_queued_)
    bytes += c.bytes.size();
  batch.copies = std::move(background_queued_);
  background_queued_.clear();
  // One copy engine: a batch starts when the one before it has landed.
  batch.lands_at = std::max(now_seconds(), background_busy_until_) + params_.latency +
                   double(bytes) / params_.bandwidth;
  background_busy_until_ = batch.lands_at;
  const uint64_t ticket = next_ticket_++;
  background_.emplace(ticket, std::move(batch));
  return ticket;
}

bool SimDevice::background_landed(uint64_t ticket) {
  std::lock_guard<std::mutex> lock(background_mutex_);
  auto it = background_.find(ticket);
  return it == background_.end() || now_seconds() >= it->second.lands_at;
}

bool SimDevice::wait_background(uint64_t ticket, std::string &why) {
  BackgroundBatch batch;
  {
    std::lock_guard<std::mutex> lock(background_mutex_);
    auto it = background_.find(ticket);
    if (it == background_.end()) {
      why = "unknown background ticket " + std::to_string(ticket) + " on " + name();
      return false;
    }
    batch = std::move(it->second);
    background_.erase(it);
  }
  const double left = batch.lands_at - now_seconds();
  if (left > 0)
    std::this_thread::sleep_for(std::chrono::duration<double>(left));
  for (const BackgroundCopy &c : batch.copies) {
    std::memcpy(c.dst, c.bytes.data(), c.bytes.size());
    background_bytes_ += long(c.bytes.size());
  }
  return true;
}

bool SimDevice::can_copy_from_peer(const Device &src) const {
  if (src.kind() != DeviceKind::Sim || &src == this)
    return false;
  return params_.p2p && static_cast<const SimDevice &>(src).params_.p2p;
}

bool SimDevice::copy_from_peer(void *dev_dst, const Device &src, const void *src_ptr,
                               size_t bytes, std::string &why) {
  if (!can_copy_from_peer(src)) {
    why = "no peer access " + src.name() + " -> " + name();
    return false;
  }
  const SimParams &sp = static_cast<const SimDevice &>(src).params_;
  double start = now_seconds();
  std::memcpy(dev_dst, src_ptr, bytes);
  sleep_until_elapsed(start,
                      std::max(params_.latency, sp.latency) +
                          double(bytes) / std::min(params_.bandwidth, sp.bandwidth));
  return true;
}

bool SimDevice::copy_device(void *dst, const void *src, size_t bytes, std::string &) {
  std::memmove(dst, src, bytes);
  return true;
}

} // namespace hce
