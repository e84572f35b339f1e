#include "cuda_device.hpp"

#include "clock.hpp"
#include "copy_batch.hpp"
#include "host_pages.hpp"
#include "host_pins.hpp"
#include "log.hpp"
#include "staging_pool.hpp"
#include "stats.hpp"
#include "trace.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace hce {
namespace {

std::string err_text(cudaError_t rc) {
  const char *s = cudaGetErrorString(rc);
  return s ? s : "unknown CUDA error";
}

// Makes `ordinal` the calling thread's current device for one scope and
// restores the caller's afterwards (user CUDA code on the main thread keeps
// its own current device).
class CurrentDevice {
public:
  explicit CurrentDevice(int ordinal) {
    if (cudaGetDevice(&prev_) != cudaSuccess) {
      cudaGetLastError();
      prev_ = -1;
    }
    if (prev_ != ordinal) {
      rc_ = cudaSetDevice(ordinal);
      restore_ = rc_ == cudaSuccess && prev_ >= 0;
    }
  }
  ~CurrentDevice() {
    if (restore_)
      cudaSetDevice(prev_);
  }
  cudaError_t rc() const { return rc_; }

private:
  int prev_ = -1;
  bool restore_ = false;
  cudaError_t rc_ = cudaSuccess;
};

size_t page_size() { return host_page_size(); }

} // namespace

// ---------------------------------------------------------------------------
// PinnedCache: the page-locked host ranges, shared by every CUDA device of
// the process (registered cudaHostRegisterPortable, so pinned for all GPUs).
//
// Ranges are page-aligned and never overlap: a range to pin registers only
// the pages not yet registered, and a copy is split at registration
// boundaries so each piece lies in one registration (the DMA path is then
// certain).  With PinPolicy::Region every registration is dropped when no
// CUDA device holds memory any more: a region outside data regions ends by
// releasing its windows, and after that the program may free its arrays
// (freeing registered memory would leave the driver's registration pointing
// at stale pages).
class PinnedCache {
public:
  explicit PinnedCache(PinPolicy policy) : policy_(policy) {}
  ~PinnedCache() {
    std::lock_guard<std::mutex> lock(mutex_);
    unregister_all_locked();
  }

  PinPolicy policy() const { return policy_; }

  void block_allocated() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++live_blocks_;
  }
  void block_released() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (live_blocks_ > 0)
      --live_blocks_;
    if (live_blocks_ == 0 && policy_ == PinPolicy::Region)
      unregister_all_locked();
  }

  // Pins what it can of `hint` (a larger span the copy belongs to, e.g. the
  // host span of the whole device window; may be empty) or else of the
  // copy's own span, then returns the copy's pieces.
  template <class Piece>
  void pieces(uintptr_t lo, uintptr_t hi, uintptr_t hint_lo, uintptr_t hint_hi,
              std::vector<Piece> &out) {
    out.clear();
    if (lo >= hi)
      return;
    if (policy_ == PinPolicy::Stage || policy_ == PinPolicy::Off) {
      out.push_back({0, hi - lo, false});
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!covered_locked(lo, hi)) {
      if (!external_locked(lo)) {
        const uintptr_t pg = page_size();
        uintptr_t plo = lo & ~(pg - 1), phi = (hi + pg - 1) & ~(pg - 1);
        bool done = false;
        if (hint_lo < hint_hi && hint_lo <= lo && hint_hi >= hi) {
          uintptr_t hlo = hint_lo & ~(pg - 1), hhi = (hint_hi + pg - 1) & ~(pg - 1);
          if (!failed_locked(failed_hints_, hlo, hhi)) {
            done = register_gaps_locked(hlo, hhi);
            if (!done)
              failed_hints_.push_back({hlo, hhi});
          }
        }
        // The whole block's span could not be pinned: pin the copy's pages.
        if (!done && !covered_locked(lo, hi) && !failed_locked(failed_, plo, phi) &&
            !register_gaps_locked(plo, phi))
          failed_.push_back({plo, phi});
      } else {
        out.push_back({0, hi - lo, true}); // pinned by someone else
        return;
      }
    }
    walk_locked(lo, hi, out);
  }

  // The pieces of [lo, hi) as they are now, registering nothing: pinned
  // where a registration (or someone else's pinning) covers them.
  template <class Piece>
  void registered_pieces(uintptr_t lo, uintptr_t hi, std::vector<Piece> &out) {
    out.clear();
    if (lo >= hi)
      return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!covered_locked(lo, hi) && external_locked(lo)) {
      out.push_back({0, hi - lo, true});
      return;
    }
    walk_locked(lo, hi, out);
  }

  // The copy [lo, hi) split at the registrations' boundaries.
  template <class Piece>
  void walk_locked(uintptr_t lo, uintptr_t hi, std::vector<Piece> &out) const {
    uintptr_t at = lo;
    auto it = regs_.upper_bound(lo);
    if (it != regs_.begin())
      --it;
    while (at < hi) {
      while (it != regs_.end() && it->second <= at)
        ++it;
      if (it == regs_.end() || it->first >= hi) {
        out.push_back({at - lo, hi - at, false});
        break;
      }
      if (it->first > at) {
        out.push_back({at - lo, it->first - at, false});
        at = it->first;
      }
      uintptr_t end = std::min(hi, it->second);
      out.push_back({at - lo, end - at, true});
      at = end;
    }
  }

  bool pin(uintptr_t lo, uintptr_t hi) {
    if (policy_ == PinPolicy::Stage || policy_ == PinPolicy::Off || lo >= hi)
      return false;
    const uintptr_t pg = page_size();
    std::lock_guard<std::mutex> lock(mutex_);
    return covered_locked(lo, hi) ||
           register_gaps_locked(lo & ~(pg - 1), (hi + pg - 1) & ~(pg - 1));
  }

  void unpin(uintptr_t lo, uintptr_t hi) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = regs_.begin(); it != regs_.end();) {
      if (it->first < hi && it->second > lo) {
        unregister_one(it->first, it->second);
        registered_bytes_ -= it->second - it->first;
        it = regs_.erase(it);
      } else {
        ++it;
      }
    }
    auto overlaps = [&](const auto &f) { return f.first < hi && f.second > lo; };
    std::erase_if(failed_, overlaps);
    std::erase_if(failed_hints_, overlaps);
  }

  CudaDevice::PinStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    CudaDevice::PinStats s;
    s.registered_bytes = registered_bytes_;
    s.registrations = registrations_;
    s.register_failures = failures_;
    s.staged_bytes = staged_bytes_.load();
    s.pageable_bytes = pageable_bytes_.load();
    return s;
  }
  void add_staged(size_t bytes) { staged_bytes_ += bytes; }
  void add_pageable(size_t bytes) { pageable_bytes_ += bytes; }

private:
  bool covered_locked(uintptr_t lo, uintptr_t hi) const {
    uintptr_t at = lo;
    auto it = regs_.upper_bound(lo);
    if (it != regs_.begin())
      --it;
    for (; it != regs_.end() && at < hi; ++it) {
      if (it->second <= at)
        continue;
      if (it->first > at)
        return false;
      at = it->second;
    }
    return at >= hi;
  }
  using Spans = std::vector<std::pair<uintptr_t, uintptr_t>>;
  static bool failed_locked(const Spans &failed, uintptr_t lo, uintptr_t hi) {
    for (const auto &f : failed)
      if (f.first <= lo && f.second >= hi)
        return true;
    return false;
  }
  // Host memory page-locked by someone else (cudaMallocHost, the user's own
  // cudaHostRegister) or managed: copy it directly.
  bool external_locked(uintptr_t p) const {
    cudaPointerAttributes attr{};
    cudaError_t rc = cudaPointerGetAttributes(&attr, reinterpret_cast<void *>(p));
    if (rc != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    if (attr.type == cudaMemoryTypeManaged)
      return true;
    if (attr.type != cudaMemoryTypeHost)
      return false;
    // Ours? Then only part of the range is covered: not external.
    auto it = regs_.upper_bound(p);
    return it == regs_.begin() || std::prev(it)->second <= p;
  }
  // Registers the pages of [lo, hi) (page-aligned) not registered yet; false
  // if any registration fails (those that succeeded stay).
  bool register_gaps_locked(uintptr_t lo, uintptr_t hi) {
    std::vector<std::pair<uintptr_t, uintptr_t>> gaps;
    uintptr_t at = lo;
    auto it = regs_.upper_bound(lo);
    if (it != regs_.begin())
      --it;
    for (; it != regs_.end() && at < hi; ++it) {
      if (it->second <= at)
        continue;
      if (it->first >= hi)
        break;
      if (it->first > at)
        gaps.push_back({at, it->first});
      at = std::max(at, it->second);
    }
    if (at < hi)
      gaps.push_back({at, hi});
    bool ok = true;
    for (auto [glo, ghi] : gaps) {
      const double start = now_seconds();
      const bool pinned = HostPins::get().add(glo, ghi, [&] {
        if (cudaHostRegister(reinterpret_cast<void *>(glo), ghi - glo,
                             cudaHostRegisterPortable) == cudaSuccess)
          return true;
        cudaGetLastError();
        return false;
      });
      // On the calling thread's own track: a registration beside a working
      // CPU team was the cold data-region executions' loss (call OC).
      if (trace_enabled())
        trace_event(
            "host", "register",
            std::string(pinned ? "cudaHostRegister " : "cudaHostRegister failed, ") +
                fmt_bytes(ghi - glo),
            start, now_seconds());
      if (!pinned) {
        ++failures_;
        ok = false;
        continue;
      }
      regs_[glo] = ghi;
      registered_bytes_ += ghi - glo;
      ++registrations_;
    }
    return ok;
  }
  // Other copy engines (omp:N) split their copies at our registrations.
  static void unregister_one(uintptr_t lo, uintptr_t hi) {
    const double start = now_seconds();
    HostPins::get().remove(lo, [lo] {
      cudaHostUnregister(reinterpret_cast<void *>(lo));
      cudaGetLastError();
    });
    if (trace_enabled())
      trace_event("host", "register", "cudaHostUnregister " + fmt_bytes(hi - lo), start,
                  now_seconds());
  }
  void unregister_all_locked() {
    for (auto &[lo, hi] : regs_)
      unregister_one(lo, hi);
    regs_.clear();
    failed_.clear();
    failed_hints_.clear();
    registered_bytes_ = 0;
  }

  const PinPolicy policy_;
  std::mutex mutex_;
  std::map<uintptr_t, uintptr_t> regs_; // start -> end, page-aligned
  Spans failed_, failed_hints_;         // spans whose registration failed: not retried
  size_t live_blocks_ = 0;
  size_t registered_bytes_ = 0;
  uint64_t registrations_ = 0, failures_ = 0;
  std::atomic<uint64_t> staged_bytes_{0};
  std::atomic<uint64_t> pageable_bytes_{0};
};

namespace {

std::mutex cache_mutex;
std::weak_ptr<PinnedCache> cache_weak;

std::shared_ptr<PinnedCache> shared_cache(PinPolicy policy) {
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto c = cache_weak.lock();
  if (!c) {
    c = std::make_shared<PinnedCache>(policy);
    cache_weak = c;
  }
  return c;
}

// Two per direction.  Registered, not cudaMallocHost'ed: 32 MiB of
// cudaMallocHost took 17-20 ms on the H100 machine, registering 4 MiB of
// memory faulted in by memset takes about 1 ms (call ID).
constexpr size_t kStageSlotBytes = size_t(1) << 20;
// Sparse rows (upload_blocks) up to this size: a pageable copy by the driver.
constexpr size_t kPageableBlockBytes = size_t(1) << 20;
// A contiguous copy up to this size goes to the driver as it is, pinned or
// not: handing it to the staging pool wakes all its workers, and kmeans'
// 2 KiB of centroids took 0.23-0.33 ms per execution that way (GPU alone,
// call ZD's traces), a fifth of its 1.2 ms kernel; the driver's pageable
// copy of 256 KiB takes tens of microseconds.
constexpr size_t kSmallCopyBytes = size_t(256) << 10;

struct HostCopy {
  char *dst;
  const char *src;
  size_t bytes;
};

void CUDART_CB host_copy(void *p) {
  auto *c = static_cast<HostCopy *>(p);
  std::memcpy(c->dst, c->src, c->bytes);
  delete c;
}

// A staging slot's packed rows, scattered to their host rows.
struct HostScatter {
  char *dst;
  const char *src;
  size_t width, pitch, count;
};

void CUDART_CB host_scatter(void *p) {
  auto *c = static_cast<HostScatter *>(p);
  for (size_t b = 0; b < c->count; ++b)
    std::memcpy(c->dst + b * c->pitch, c->src + b * c->width, c->width);
  delete c;
}

} // namespace

// ---------------------------------------------------------------------------
// CudaDevice

CudaDevice::CudaDevice(int ordinal)
    : Device(DeviceKind::Cuda, "cuda:" + std::to_string(ordinal), ordinal) {}

std::unique_ptr<CudaDevice> CudaDevice::create(int ordinal, std::string &why,
                                               const Settings &settings) {
  std::unique_ptr<CudaDevice> dev(new CudaDevice(ordinal));
  if (!dev->init(settings, why))
    return nullptr;
  return dev;
}

bool CudaDevice::check(int rc, const char *call, std::string &why) const {
  if (rc == cudaSuccess)
    return true;
  why = std::string(call) + " failed on " + name() + ": " +
        err_text(static_cast<cudaError_t>(rc));
  cudaGetLastError(); // clear a non-sticky error so later calls can work
  return false;
}

int64_t CudaDevice::wave(const hce_region &region) const {
  if (!region.cuda_wave || multiprocessors_ <= 0)
    return 0;
  CurrentDevice cur(ordinal()); // the occupancy calculator asks the current one
  if (cur.rc() != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return std::max<int64_t>(0, region.cuda_wave(region.args, multiprocessors_));
}

bool CudaDevice::init(const Settings &settings, std::string &why) {
  CurrentDevice cur(ordinal());
  if (!check(cur.rc(), "cudaSetDevice", why))
    return false;
  for (auto &s : streams_)
    if (!check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
               "cudaStreamCreateWithFlags", why))
      return false;
  if (!check(cudaStreamCreateWithFlags(&background_stream_, cudaStreamNonBlocking),
             "cudaStreamCreateWithFlags", why))
    return false;
  // The model and its multiprocessors (a MIG slice keeps the GPU's name).
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, ordinal()) == cudaSuccess) {
    set_hardware(std::string(prop.name) + "/" + std::to_string(prop.multiProcessorCount) +
                 "sm");
    multiprocessors_ = std::max(0, prop.multiProcessorCount);
  }
  cudaGetLastError();
  limit_ = settings.cuda_mem_limit.value_or(0);
  policy_ = settings.cuda_pin;
  p2p_ = settings.cuda_p2p;
  pins_ = shared_cache(policy_);
  policy_ = pins_->policy(); // the first device's choice holds for all
  // hce_cuda_host_scratch's block now: a cudaHostAlloc at a region's first
  // chunk took up to 1.4 ms on the H100 (beside the region's host
  // registrations, which hold the same driver lock).
  std::lock_guard<std::mutex> lock(scratch_mutex_);
  grow_host_scratch_locked(4096);
  // And hce_cuda_scratch's block, not a cudaMalloc in a reduction's first
  // chunk: the H100's mcpi, whose reduction is the context's first
  // allocation, ran alone 0.89x as long (call V1, 9 paired rounds).
  if (cudaMalloc(&scratch_, kMinScratchBytes) == cudaSuccess)
    scratch_bytes_ = kMinScratchBytes;
  else
    scratch_ = nullptr; // scratch() tries again when a variant asks
  cudaGetLastError();
  return true;
}

CudaDevice::~CudaDevice() {
  CurrentDevice cur(ordinal());
  for (cudaStream_t s : streams_)
    if (s)
      cudaStreamSynchronize(s);
  if (background_stream_)
    cudaStreamSynchronize(background_stream_);
  pool_.reset();
  {
    std::lock_guard<std::mutex> lock(mem_mutex_);
    for (auto &[p, bytes] : blocks_) {
      cudaFree(p);
      if (pins_)
        pins_->block_released();
    }
    blocks_.clear();
    capacity_.clear();
    free_cached_locked();
    used_ = 0;
  }
  if (up_stage_.buf[0]) { // the staging arena (ensure_staging)
    cudaHostUnregister(up_stage_.buf[0]);
    std::free(up_stage_.buf[0]);
  }
  if (scratch_)
    cudaFree(scratch_);
  if (host_scratch_)
    cudaFreeHost(host_scratch_);
  for (cudaEvent_t ev : events_all_)
    cudaEventDestroy(ev);
  for (cudaStream_t s : streams_)
    if (s)
      cudaStreamDestroy(s);
  if (background_stream_)
    cudaStreamDestroy(background_stream_);
  cudaGetLastError();
  pins_.reset(); // the last device unregisters everything
}

void CudaDevice::enable_peer_access(const std::vector<CudaDevice *> &devices) {
  for (CudaDevice *a : devices) {
    CurrentDevice cur(a->ordinal());
    if (cur.rc() != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    for (CudaDevice *b : devices) {
      if (a == b)
        continue;
      int can = 0;
      if (cudaDeviceCanAccessPeer(&can, a->ordinal(), b->ordinal()) != cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      if (!can)
        continue;
      cudaError_t rc = cudaDeviceEnablePeerAccess(b->ordinal(), 0);
      if (rc == cudaSuccess || rc == cudaErrorPeerAccessAlreadyEnabled) {
        cudaGetLastError();
        a->peers_.push_back(b->ordinal());
      } else {
        cudaGetLastError();
        notice_once("cuda-peer-" + a->name() + "-" + b->name(),
                    "peer access " + a->name() + " -> " + b->name() +
                        " could not be enabled: " + err_text(rc) +
                        "; copies between them go through the host");
      }
    }
  }
}

bool CudaDevice::has_peer_access(int other) const {
  return std::find(peers_.begin(), peers_.end(), other) != peers_.end();
}

void CudaDevice::on_controller_start() {
  // The controller thread drives this GPU for the whole run.
  if (cudaSetDevice(ordinal()) != cudaSuccess)
    cudaGetLastError();
}

// ---- memory -----------------------------------------------------------------

void *CudaDevice::allocate(size_t bytes) {
  CurrentDevice cur(ordinal());
  std::string why;
  if (!check(cur.rc(), "cudaSetDevice", why)) {
    warning(why);
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mem_mutex_);
  void *p = nullptr;
  size_t capacity = bytes ? bytes : 1;
  // A cached block of about the right size (not more than twice) first:
  // regions outside data regions free their windows at the end, and
  // cudaMalloc/cudaFree of large blocks cost milliseconds.
  auto hit = cached_.lower_bound(capacity);
  if (hit != cached_.end() && hit->first <= 2 * capacity) {
    capacity = hit->first;
    p = hit->second;
    cached_bytes_ -= capacity;
    cached_.erase(hit);
  } else {
    if (limit_ && used_ + cached_bytes_ + capacity > limit_)
      free_cached_locked();
    if (limit_ && used_ + capacity > limit_)
      return nullptr;
    cudaError_t rc = cudaMalloc(&p, capacity);
    if (rc == cudaErrorMemoryAllocation && !cached_.empty()) {
      cudaGetLastError();
      free_cached_locked();
      rc = cudaMalloc(&p, capacity);
    }
    if (rc != cudaSuccess) {
      cudaGetLastError();
      if (rc != cudaErrorMemoryAllocation)
        warning("cudaMalloc(" + std::to_string(bytes) + ") failed on " + name() + ": " +
                err_text(rc));
      return nullptr;
    }
  }
  blocks_[p] = bytes;
  capacity_[p] = capacity;
  used_ += capacity;
  pins_->block_allocated();
  return p;
}

void CudaDevice::prepare_hosts(const std::vector<HostSpan> &spans, const Wanted &wanted) {
  if (policy_ == PinPolicy::Region &&
      copy_threads_.load(std::memory_order_relaxed) >= 2) {
    // What the pool would stage of these arrays: every one of
    // kPoolMinBytes or more, less its pages already pinned.
    ensure_pool(unpinned_bytes(spans));
  }
  for (const HostSpan &span : spans)
    prepare_host(span.host, span.bytes, wanted);
}

size_t CudaDevice::unpinned_bytes(const std::vector<HostSpan> &spans) {
  if (policy_ != PinPolicy::Region)
    return 0;
  size_t unpinned = 0;
  std::vector<Piece> pieces;
  for (const HostSpan &span : spans) {
    if (span.bytes < kPoolMinBytes)
      continue;
    pins_->registered_pieces(uintptr_t(span.host), uintptr_t(span.host) + span.bytes,
                             pieces);
    for (const Piece &p : pieces)
      unpinned += p.pinned ? 0 : p.bytes;
  }
  return unpinned;
}

bool CudaDevice::preparing_blocks_copies(const std::vector<HostSpan> &spans) {
  if (policy_ == PinPolicy::Stage || policy_ == PinPolicy::Off)
    return false;
  // With threads to copy with, the arrays are staged (stages_instead_of_
  // pinning) or pinned beside no working team.
  if (policy_ == PinPolicy::Region && copy_threads_.load(std::memory_order_relaxed) >= 2)
    return false;
  std::vector<Piece> pieces;
  for (const HostSpan &span : spans) {
    if (!span.host || !span.bytes)
      continue;
    pins_->registered_pieces(uintptr_t(span.host), uintptr_t(span.host) + span.bytes,
                             pieces);
    for (const Piece &p : pieces)
      if (!p.pinned)
        return true;
  }
  return false;
}

void CudaDevice::prepare_copies(size_t bytes) {
  // A one-shot region's chunks copy parts of its arrays, each maybe under
  // kPoolMakeBytes: with copy threads lent beside the CPU's team
  // (HCE_COPY_THREADS_BESIDE) the pool is made for the region's total, from
  // kQuietHostBytes (the regions whose copies host threads stage).
  if (policy_ == PinPolicy::Region &&
      copy_threads_.load(std::memory_order_relaxed) >= 2 && bytes >= kQuietHostBytes)
    ensure_pool(bytes);
}

void CudaDevice::add_one_time(double since) {
  one_time_ns_.fetch_add(int64_t((now_seconds() - since) * 1e9),
                         std::memory_order_relaxed);
}

void CudaDevice::prepare_host(const void *host, size_t bytes, const Wanted &wanted) {
  if (!host || !bytes || stages_instead_of_pinning(host, bytes))
    return;
  // Pin now (cudaHostRegister costs ~43 ms/GiB), so that the cost is not
  // charged to the first chunk, which the schedulers would take for a slow
  // GPU.  Failing to pin is fine: copies then go through staging buffers.
  // Piece by piece while the execution has work left (Device::prepare_host);
  // pin() registers only the pages not registered yet, so a later
  // preparation goes on where this one stopped.
  const uintptr_t lo = uintptr_t(host), hi = lo + bytes;
  const double start = now_seconds();
  for (uintptr_t at = lo; at < hi && wanted(); at += std::min(hi - at, kPinPieceBytes))
    pins_->pin(at, at + std::min(hi - at, kPinPieceBytes));
  add_one_time(start);
}

// Ski rental: registering an array costs more than staging it twice by the
// free cores (70-85 ms/GiB on the H100 machine, and again to unregister it,
// against 20-30 GB/s staged and ~50 GB/s pinned), and a data region's array
// usually crosses the link once each way: jacobi2d's GPU alone spent 17-20
// ms of its first execution pinning A and B (256 MiB) before it uploaded A
// in 2.5 ms (call IC).  So while the execution leaves host threads to stage
// with (copy_threads_), an array is staged (rented) until its copies have
// staged twice its size, and pinned (bought) at the next preparation after
// that.  jacobi2d's first execution: 15.7 -> 9.3 ms (call IE).  Beside a
// working CPU team there are no threads to stage with: pinned at once.  So
// is an array under kPoolMinBytes, and any array while there is no pool:
// prepare_hosts makes it when the execution's arrays together reach
// kPoolMakeBytes (without a pool, bfs's 4-32 MiB arrays took 1.05-1.12x as
// long staged, each copy registering its own pages, calls IE and IF).
// cg's GPU alone registered col, rowptr and p (52 MiB) for 7.9 ms before
// its first upload on the H200, where the pool stages 36-128 MiB at
// 29-35 GB/s (call OA).
bool CudaDevice::stages_instead_of_pinning(const void *host, size_t bytes) {
  if (policy_ != PinPolicy::Region || copy_threads_.load(std::memory_order_relaxed) < 2 ||
      bytes < kPoolMinBytes)
    return false;
  const uintptr_t lo = uintptr_t(host), hi = lo + bytes;
  std::lock_guard<std::mutex> lock(pool_mutex_);
  if (pool_failed_ || !pool_)
    return false;
  for (auto it = rented_.begin(); it != rented_.end(); ++it) {
    if (it->lo != lo || it->hi != hi)
      continue;
    if (it->staged < 2 * uint64_t(bytes))
      return true;
    rented_.erase(it); // paid for: pinned from now on
    return false;
  }
  constexpr size_t kMaxRented = 64; // spans of arrays long gone drop out first
  if (rented_.size() >= kMaxRented)
    rented_.erase(rented_.begin());
  rented_.push_back({lo, hi, 0});
  return true;
}

void CudaDevice::free_cached_locked() {
  for (auto &[size, p] : cached_)
    if (cudaFree(p) != cudaSuccess)
      cudaGetLastError();
  cached_.clear();
  cached_bytes_ = 0;
}

void CudaDevice::release(void *ptr) {
  if (!ptr)
    return;
  CurrentDevice cur(ordinal());
  {
    std::lock_guard<std::mutex> lock(mem_mutex_);
    auto it = blocks_.find(ptr);
    if (it == blocks_.end())
      return;
    size_t capacity = capacity_[ptr];
    used_ -= capacity;
    blocks_.erase(it);
    capacity_.erase(ptr);
    // Work using the block was synchronised by its users: keep it for the
    // next allocation of about that size (at most a few blocks).
    cached_.emplace(capacity, ptr);
    cached_bytes_ += capacity;
    while (cached_.size() > kMaxCachedBlocks) {
      auto smallest = cached_.begin();
      cached_bytes_ -= smallest->first;
      if (cudaFree(smallest->second) != cudaSuccess)
        cudaGetLastError();
      cached_.erase(smallest);
    }
  }
  pins_->block_released();
}

size_t CudaDevice::bytes_allocated() const {
  std::lock_guard<std::mutex> lock(mem_mutex_);
  return used_;
}

// ---- pinned host memory -------------------------------------------------------

bool CudaDevice::pin_host(const void *host, size_t bytes) {
  return pins_->pin(uintptr_t(host), uintptr_t(host) + bytes);
}

void CudaDevice::unpin_host(const void *host, size_t bytes) {
  pins_->unpin(uintptr_t(host), uintptr_t(host) + bytes);
}

CudaDevice::PinStats CudaDevice::pin_stats() {
  std::shared_ptr<PinnedCache> c;
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    c = cache_weak.lock();
  }
  return c ? c->stats() : PinStats{};
}

bool CudaDevice::ensure_staging(std::string &why) {
  std::lock_guard<std::mutex> lock(staging_alloc_mutex_);
  if (up_stage_.buf[0])
    return true;
  // The four slots as one arena and one registration: each cudaHostRegister
  // has a fixed cost (0.1-1.5 ms on the H200), and the first sparse copy of
  // a GPU-alone jacobi2d (B's two border rows) spent 3.1-3.4 ms here when
  // every slot was registered on its own (call AA).
  const double start = now_seconds();
  size_t bytes = 4 * kStageSlotBytes; // two huge pages (alloc_on_huge_pages)
  char *arena = alloc_on_huge_pages(bytes);
  if (!arena) {
    why = "no host memory for the staging buffers of " + name();
    return false;
  }
  std::memset(arena, 0, bytes); // its pages faulted in before registering
  if (!check(cudaHostRegister(arena, bytes, cudaHostRegisterPortable),
             "cudaHostRegister (staging buffers)", why)) {
    std::free(arena);
    return false;
  }
  int k = 0;
  for (Staging *st : {&up_stage_, &down_stage_})
    for (int i = 0; i < 2; ++i) {
      st->buf[i] = arena + size_t(k++) * kStageSlotBytes;
      if (!check(cudaEventCreateWithFlags(&st->done[i], cudaEventDisableTiming),
                 "cudaEventCreateWithFlags", why))
        return false;
      events_all_.push_back(st->done[i]);
    }
  stage_bytes_ = kStageSlotBytes;
  add_one_time(start);
  if (trace_enabled())
    trace_event(name(), "prepare", "staging buffers, " + fmt_bytes(bytes), start,
                now_seconds());
  return true;
}

bool CudaDevice::staged_upload(char *dev, const char *host, size_t bytes,
                               std::string &why) {
  if (!ensure_staging(why))
    return false;
  std::lock_guard<std::mutex> lock(up_stage_.mutex);
  cudaStream_t s = stream(Stream::Upload);
  for (size_t off = 0; off < bytes; off += stage_bytes_) {
    size_t n = std::min(stage_bytes_, bytes - off);
    int k = up_stage_.next;
    up_stage_.next ^= 1;
    // The slot's previous copy must have left it before it is refilled.
    if (!check(cudaEventSynchronize(up_stage_.done[k]), "cudaEventSynchronize", why))
      return false;
    std::memcpy(up_stage_.buf[k], host + off, n);
    if (!check(cudaMemcpyAsync(dev + off, up_stage_.buf[k], n, cudaMemcpyHostToDevice, s),
               "cudaMemcpyAsync (staged upload)", why) ||
        !check(cudaEventRecord(up_stage_.done[k], s), "cudaEventRecord", why))
      return false;
  }
  pins_->add_staged(bytes);
  return true;
}

bool CudaDevice::staged_download(char *host, const char *dev, size_t bytes,
                                 std::string &why) {
  if (!ensure_staging(why))
    return false;
  std::lock_guard<std::mutex> lock(down_stage_.mutex);
  cudaStream_t s = stream(Stream::Download);
  for (size_t off = 0; off < bytes; off += stage_bytes_) {
    size_t n = std::min(stage_bytes_, bytes - off);
    int k = down_stage_.next;
    down_stage_.next ^= 1;
    if (!check(cudaEventSynchronize(down_stage_.done[k]), "cudaEventSynchronize", why))
      return false;
    if (!check(
            cudaMemcpyAsync(down_stage_.buf[k], dev + off, n, cudaMemcpyDeviceToHost, s),
            "cudaMemcpyAsync (staged download)", why))
      return false;
    // Stream-ordered copy out of the slot, so the call stays asynchronous.
    auto *c = new HostCopy{host + off, down_stage_.buf[k], n};
    if (!check(cudaLaunchHostFunc(s, host_copy, c), "cudaLaunchHostFunc", why)) {
      delete c;
      return false;
    }
    if (!check(cudaEventRecord(down_stage_.done[k], s), "cudaEventRecord", why))
      return false;
  }
  pins_->add_staged(bytes);
  return true;
}

// ---- transfers ------------------------------------------------------------------

bool CudaDevice::upload_async(void *dev_dst, const void *host_src, size_t bytes,
                              std::string &why) {
  return copy_async(true, static_cast<char *>(dev_dst),
                    const_cast<char *>(static_cast<const char *>(host_src)), bytes, why);
}

bool CudaDevice::download_async(void *host_dst, const void *dev_src, size_t bytes,
                                std::string &why) {
  return copy_async(false, const_cast<char *>(static_cast<const char *>(dev_src)),
                    static_cast<char *>(host_dst), bytes, why);
}

// Either way (`up`: host -> device), the same path: the driver's copy for a
// small one, the staging pool where it stages, the driver's copy again under
// kPoolMinBytes, else the copy's own pages pinned -- registering costs more
// per byte than the copy itself (~43 ms/GiB against ~18 ms/GiB), so a
// one-shot region must not pin what it does not move.  Arrays that stay on
// the device (data regions) are pinned whole by prepare_host, unless the
// free cores stage them (stages_instead_of_pinning).
bool CudaDevice::copy_async(bool up, char *dev, char *host, size_t bytes,
                            std::string &why) {
  if (bytes == 0)
    return true;
  CurrentDevice cur(ordinal());
  if (!check(cur.rc(), "cudaSetDevice", why))
    return false;
  if (bytes <= kSmallCopyBytes && policy_ == PinPolicy::Region)
    return driver_copy(up, dev, host, bytes, why);
  const Stream s = up ? Stream::Upload : Stream::Download;
  std::vector<Piece> pieces;
  if (StagingPool *pool = pool_for(host, bytes, pieces))
    return pooled_copy(*pool, up, dev, host, pieces, s, why);
  // Under kPoolMinBytes, the driver's pageable copy: registering a copy's
  // pages costs a fixed part besides its rate, and PinPolicy::Region drops
  // the registration at the region's end.  Cold lud's first GPU chunk on the
  // H100 (call U4), 1.77 MiB each way: registered 0.65 ms, up and down 0.14,
  // unregistered 0.16; pageable 0.26 up and 0.20 down.  Paired, cold: lud,
  // cg and bfs 0.91x as long, nbody 0.93x.
  if (bytes < kPoolMinBytes && policy_ == PinPolicy::Region)
    return driver_copy(up, dev, host, bytes, why);
  std::pair<uintptr_t, uintptr_t> hint{0, 0};
  pins_->pieces(uintptr_t(host), uintptr_t(host) + bytes, hint.first, hint.second,
                pieces);
  for (const Piece &p : pieces) {
    char *d = dev + p.offset, *h = host + p.offset;
    if (p.pinned || policy_ == PinPolicy::Off) {
      if (!check(up ? cudaMemcpyAsync(d, h, p.bytes, cudaMemcpyHostToDevice, stream(s))
                    : cudaMemcpyAsync(h, d, p.bytes, cudaMemcpyDeviceToHost, stream(s)),
                 up ? "cudaMemcpyAsync (upload)" : "cudaMemcpyAsync (download)", why))
        return false;
    } else if (!(up ? staged_upload(d, h, p.bytes, why)
                    : staged_download(h, d, p.bytes, why))) {
      return false;
    }
  }
  return true;
}

// A small copy (kSmallCopyBytes) as the driver's own, split at HCE's
// registrations: a pageable copy that runs into a registered range fails
// with "invalid argument" (call AC: a hguided chunk of matadd on the GPU
// alone, next to pages an earlier chunk had registered).
bool CudaDevice::driver_copy(bool up, char *dev, char *host, size_t bytes,
                             std::string &why) {
  thread_local std::vector<Piece> pieces;
  pins_->registered_pieces(uintptr_t(host), uintptr_t(host) + bytes, pieces);
  for (const Piece &p : pieces) {
    char *d = dev + p.offset, *h = host + p.offset;
    if (!check(up ? cudaMemcpyAsync(d, h, p.bytes, cudaMemcpyHostToDevice,
                                    stream(Stream::Upload))
                  : cudaMemcpyAsync(h, d, p.bytes, cudaMemcpyDeviceToHost,
                                    stream(Stream::Download)),
               up ? "cudaMemcpyAsync (upload)" : "cudaMemcpyAsync (download)", why))
      return false;
    if (!p.pinned)
      pins_->add_pageable(p.bytes);
  }
  return true;
}

StagingPool *CudaDevice::pool_for(const char *host, size_t bytes,
                                  std::vector<Piece> &pieces) {
  const int threads = copy_threads_.load(std::memory_order_relaxed);
  if (policy_ != PinPolicy::Region || threads < 2)
    return nullptr;
  // Pages already pinned (a data region's arrays, the program's own pinned
  // memory) go straight over the link: no pool for those.
  pins_->registered_pieces(uintptr_t(host), uintptr_t(host) + bytes, pieces);
  size_t unpinned = 0;
  for (const Piece &p : pieces)
    unpinned += p.pinned ? 0 : p.bytes;
  if (unpinned == 0)
    return nullptr;
  // A smaller copy takes the pool once it exists: cold blackscholes' GPU
  // registered ten 268 KiB-1 MiB pieces of its first chunks at 0.1-1.5 ms
  // each (~4-5 ms of a 45 ms region) and unregistered them at its end
  // (~0.7 ms), where one staging thread copies 1 MiB in ~0.13 ms (call UA).
  // Only kPoolMakeBytes or more make it (ensure_pool).
  return ensure_pool(unpinned);
}

StagingPool *CudaDevice::ensure_pool(size_t unpinned) {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  if (!pool_ && !pool_failed_ && unpinned >= kPoolMakeBytes) {
    // As many workers as the machine has cores to spare, at most 8: eight
    // staging threads reached 30 GB/s on the H100 machine, four 25 GB/s.
    const int n = int(std::clamp(std::thread::hardware_concurrency(), 2u, 8u));
    std::string why;
    const double start = now_seconds();
    pool_ = StagingPool::create(ordinal(), n, why);
    add_one_time(start);
    if (trace_enabled())
      trace_event(name(), "prepare",
                  "staging pool, " + std::to_string(n) + " threads" +
                      (pool_ ? "" : ": failed"),
                  start, now_seconds());
    if (!pool_) {
      pool_failed_ = true;
      notice_once("cuda-staging-pool", "no staging threads on " + name() + " (" + why +
                                           "): copies register host memory instead");
    }
  }
  return pool_.get();
}

bool CudaDevice::pooled_copy(StagingPool &pool, bool up, char *dev, char *host,
                             const std::vector<Piece> &pieces, Stream s,
                             std::string &why) {
  const int threads = copy_threads_.load(std::memory_order_relaxed);
  for (const Piece &p : pieces) {
    char *d = dev + p.offset, *h = host + p.offset;
    if (p.pinned) {
      if (!check(up ? cudaMemcpyAsync(d, h, p.bytes, cudaMemcpyHostToDevice, stream(s))
                    : cudaMemcpyAsync(h, d, p.bytes, cudaMemcpyDeviceToHost, stream(s)),
                 up ? "cudaMemcpyAsync (upload)" : "cudaMemcpyAsync (download)", why))
        return false;
      continue;
    }
    const double start = now_seconds();
    if (!(up ? pool.upload(d, h, p.bytes, threads, stream(s), why)
             : pool.download(h, d, p.bytes, threads, stream(s), why)))
      return false;
    pins_->add_staged(p.bytes);
    // Rent of a data region's array: paid instead of registering it once,
    // it is one-time work too (Device::one_time_seconds) -- not what an
    // execution of the GPU alone costs from then on (the H200's cold cg,
    // call IA: spmv's GPU alone, measured at 3.85 ms while it staged val
    // and col, against 1.2 for the CPU alone, was not chosen again).
    if (add_rent(h, p.bytes))
      add_one_time(start);
  }
  return true;
}

bool CudaDevice::add_rent(const char *host, size_t bytes) {
  const uintptr_t lo = uintptr_t(host), hi = lo + bytes;
  std::lock_guard<std::mutex> lock(pool_mutex_);
  bool rented = false;
  for (Rented &r : rented_)
    if (r.lo < hi && lo < r.hi) {
      r.staged += std::min(hi, r.hi) - std::max(lo, r.lo);
      rented = true;
    }
  return rented;
}

// Rows packed into a staging slot, then one 2-D copy from the slot (pitch
// `width`) into the device rows (pitch `pitch`).
bool CudaDevice::staged_upload_blocks(char *dev, const char *host, size_t width,
                                      size_t pitch, size_t count, std::string &why) {
  if (!ensure_staging(why))
    return false;
  std::lock_guard<std::mutex> lock(up_stage_.mutex);
  cudaStream_t s = stream(Stream::Upload);
  const size_t per_slot = stage_bytes_ / width;
  for (size_t b = 0; b < count; b += per_slot) {
    const size_t n = std::min(per_slot, count - b);
    int k = up_stage_.next;
    up_stage_.next ^= 1;
    if (!check(cudaEventSynchronize(up_stage_.done[k]), "cudaEventSynchronize", why))
      return false;
    char *slot = static_cast<char *>(up_stage_.buf[k]);
    for (size_t i = 0; i < n; ++i)
      std::memcpy(slot + i * width, host + (b + i) * pitch, width);
    if (!check(cudaMemcpy2DAsync(dev + b * pitch, pitch, slot, width, width, n,
                                 cudaMemcpyHostToDevice, s),
               "cudaMemcpy2DAsync (staged upload)", why) ||
        !check(cudaEventRecord(up_stage_.done[k], s), "cudaEventRecord", why))
      return false;
  }
  pins_->add_staged(width * count);
  return true;
}

bool CudaDevice::staged_download_blocks(char *host, const char *dev, size_t width,
                                        size_t pitch, size_t count, std::string &why) {
  if (!ensure_staging(why))
    return false;
  std::lock_guard<std::mutex> lock(down_stage_.mutex);
  cudaStream_t s = stream(Stream::Download);
  const size_t per_slot = stage_bytes_ / width;
  for (size_t b = 0; b < count; b += per_slot) {
    const size_t n = std::min(per_slot, count - b);
    int k = down_stage_.next;
    down_stage_.next ^= 1;
    if (!check(cudaEventSynchronize(down_stage_.done[k]), "cudaEventSynchronize", why))
      return false;
    char *slot = static_cast<char *>(down_stage_.buf[k]);
    if (!check(cudaMemcpy2DAsync(slot, width, dev + b * pitch, pitch, width, n,
                                 cudaMemcpyDeviceToHost, s),
               "cudaMemcpy2DAsync (staged download)", why))
      return false;
    auto *c = new HostScatter{host + b * pitch, slot, width, pitch, n};
    if (!check(cudaLaunchHostFunc(s, host_scatter, c), "cudaLaunchHostFunc", why)) {
      delete c;
      return false;
    }
    if (!check(cudaEventRecord(down_stage_.done[k], s), "cudaEventRecord", why))
      return false;
  }
  pins_->add_staged(width * count);
  return true;
}

// Registering a strided copy's span pins every page between its rows: worth
// it only where the rows fill most of the span.  Two halo rows of jacobi2d's
// B spanned all its 128 MiB, 9-15 ms to register on the H100 (call IC);
// sparse rows go through the staging buffer instead, or, up to
// kPageableBlockBytes, through the driver's own pageable copy: a halo's few
// rows need no buffers of ours, whose making (a registration) cost more
// than thousands of such copies (call AA).
void CudaDevice::span_pieces(const char *host, size_t span, size_t moved,
                             std::vector<Piece> &pieces) {
  if (2 * moved >= span)
    pins_->pieces(uintptr_t(host), uintptr_t(host) + span, 0, 0, pieces);
  else
    pins_->registered_pieces(uintptr_t(host), uintptr_t(host) + span, pieces);
}

bool CudaDevice::upload_blocks(void *dev_dst, const void *host_src, size_t width,
                               size_t pitch, size_t count, std::string &why) {
  if (count <= 1 || width == pitch)
    return upload(dev_dst, host_src, pitch * (count - 1) + width, why);
  return copy_blocks(true, static_cast<char *>(dev_dst),
                     const_cast<char *>(static_cast<const char *>(host_src)), width,
                     pitch, count, why);
}

bool CudaDevice::download_blocks(void *host_dst, const void *dev_src, size_t width,
                                 size_t pitch, size_t count, std::string &why) {
  if (count <= 1 || width == pitch)
    return download(host_dst, dev_src, pitch * (count - 1) + width, why);
  return copy_blocks(false, const_cast<char *>(static_cast<const char *>(dev_src)),
                     static_cast<char *>(host_dst), width, pitch, count, why);
}

// `count` rows of `width` bytes, `pitch` apart on both sides, either way.
bool CudaDevice::copy_blocks(bool up, char *dev, char *host, size_t width, size_t pitch,
                             size_t count, std::string &why) {
  CurrentDevice cur(ordinal());
  if (!check(cur.rc(), "cudaSetDevice", why))
    return false;
  const Stream s = up ? Stream::Upload : Stream::Download;
  const size_t span = pitch * (count - 1) + width;
  std::vector<Piece> pieces;
  span_pieces(host, span, width * count, pieces);
  auto copy_2d = [&](const char *what) {
    return check(up ? cudaMemcpy2DAsync(dev, pitch, host, pitch, width, count,
                                        cudaMemcpyHostToDevice, stream(s))
                    : cudaMemcpy2DAsync(host, pitch, dev, pitch, width, count,
                                        cudaMemcpyDeviceToHost, stream(s)),
                 what, why);
  };
  bool ok;
  if (pieces.size() == 1 && (pieces[0].pinned || policy_ == PinPolicy::Off)) {
    ok = copy_2d(up ? "cudaMemcpy2DAsync (upload)" : "cudaMemcpy2DAsync (download)");
  } else if (pieces.size() == 1 && width * count <= kPageableBlockBytes &&
             policy_ == PinPolicy::Region) {
    ok = copy_2d(up ? "cudaMemcpy2DAsync (pageable upload)"
                    : "cudaMemcpy2DAsync (pageable download)");
    pins_->add_pageable(width * count);
  } else if (pieces.size() == 1 && ensure_staging(why) && width <= stage_bytes_) {
    ok = up ? staged_upload_blocks(dev, host, width, pitch, count, why)
            : staged_download_blocks(host, dev, width, pitch, count, why);
  } else { // rows across registrations, or wider than a slot: row by row
    ok = true;
    for (size_t b = 0; ok && b < count; ++b)
      ok = copy_async(up, dev + b * pitch, host + b * pitch, width, why);
  }
  return ok && landed(s, why);
}

bool CudaDevice::upload(void *dev_dst, const void *host_src, size_t bytes,
                        std::string &why) {
  CurrentDevice cur(ordinal());
  return check(cur.rc(), "cudaSetDevice", why) &&
         upload_async(dev_dst, host_src, bytes, why) && landed(Stream::Upload, why);
}

bool CudaDevice::download(void *host_dst, const void *dev_src, size_t bytes,
                          std::string &why) {
  CurrentDevice cur(ordinal());
  return check(cur.rc(), "cudaSetDevice", why) &&
         download_async(host_dst, dev_src, bytes, why) && landed(Stream::Download, why);
}

// ---- copy batches ------------------------------------------------------------------
namespace {
struct CudaBatch {
  bool up = false, down = false; // a copy is waiting on the Upload / Download stream
};
using CudaBatches = OpenCopyBatches<CudaBatch>;
} // namespace

void CudaDevice::begin_copies() { CudaBatches::open(this); }

bool CudaDevice::finish_copies(std::string &why) {
  std::optional<CudaBatch> b = CudaBatches::close(this);
  if (!b || (!b->up && !b->down))
    return true;
  CurrentDevice cur(ordinal());
  return check(cur.rc(), "cudaSetDevice", why) &&
         (!b->up || synchronize_here(Stream::Upload, why)) &&
         (!b->down || synchronize_here(Stream::Download, why));
}

bool CudaDevice::landed(Stream s, std::string &why) {
  if (CudaBatch *b = CudaBatches::find(this)) {
    (s == Stream::Upload ? b->up : b->down) = true;
    return true;
  }
  return synchronize(s, why);
}

bool CudaDevice::copy_device(void *dst, const void *src, size_t bytes, std::string &why) {
  if (bytes == 0)
    return true;
  CurrentDevice cur(ordinal());
  return check(cur.rc(), "cudaSetDevice", why) &&
         check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                               stream(Stream::Upload)),
               "cudaMemcpyAsync (device to device)", why) &&
         synchronize(Stream::Upload, why);
}

bool CudaDevice::copy_from_peer_async(void *dst, const CudaDevice &src_dev,
                                      const void *src, size_t bytes, std::string &why) {
  if (bytes == 0)
    return true;
  CurrentDevice cur(ordinal());
  return check(cur.rc(), "cudaSetDevice", why) &&
         check(cudaMemcpyPeerAsync(dst, ordinal(), src, src_dev.ordinal(), bytes,
                                   stream(Stream::Upload)),
               "cudaMemcpyPeerAsync", why);
}

bool CudaDevice::can_copy_from_peer(const Device &src) const {
  return p2p_ && src.kind() == DeviceKind::Cuda && &src != this &&
         has_peer_access(src.ordinal());
}

bool CudaDevice::copy_from_peer(void *dev_dst, const Device &src, const void *src_ptr,
                                size_t bytes, std::string &why) {
  if (!can_copy_from_peer(src)) {
    why = "no peer access " + src.name() + " -> " + name();
    return false;
  }
  CurrentDevice cur(ordinal());
  return check(cur.rc(), "cudaSetDevice", why) &&
         copy_from_peer_async(dev_dst, static_cast<const CudaDevice &>(src), src_ptr,
                              bytes, why) &&
         synchronize(Stream::Upload, why);
}

// ---- compute ----------------------------------------------------------------------

bool CudaDevice::launch(const ChunkContext &ctx, std::string &why) {
  if (ctx.range.ub <= ctx.range.lb)
    return true;
  CurrentDevice cur(ordinal());
  return check(cur.rc(), "cudaSetDevice", why) && launch_here(ctx, why);
}

bool CudaDevice::launch_here(const ChunkContext &ctx, std::string &why) {
  if (ctx.range.ub <= ctx.range.lb)
    return true;
  if (!ctx.region->cuda) {
    why = "region has no CUDA variant for " + name();
    return false;
  }
  cudaGetLastError(); // an old non-sticky error must not be blamed on this chunk
  LaunchScratchScope scratch(this);
  int rc = ctx.region->cuda(ctx.range.lb, ctx.range.ub, ctx.ptrs, ctx.region->args,
                            ctx.red, static_cast<void *>(stream(Stream::Compute)));
  cudaError_t err = cudaGetLastError();
  if (rc != 0) {
    why = "CUDA variant returned " + std::to_string(rc) + " on " + name() +
          (err != cudaSuccess ? ": " + err_text(err) : std::string());
    return false;
  }
  return check(err, "kernel launch", why);
}

void *CudaDevice::scratch(void *stream, size_t bytes) {
  if (stream != static_cast<void *>(this->stream(Stream::Compute)))
    return nullptr;
  std::lock_guard<std::mutex> lock(scratch_mutex_);
  if (scratch_bytes_ < bytes) {
    // The block's last user synchronized the stream before it returned.
    if (scratch_)
      cudaFree(scratch_);
    scratch_ = nullptr;
    scratch_bytes_ = 0;
    const size_t want = std::max<size_t>(bytes, kMinScratchBytes);
    if (cudaMalloc(&scratch_, want) != cudaSuccess) {
      cudaGetLastError(); // the variant allocates its own
      scratch_ = nullptr;
      return nullptr;
    }
    scratch_bytes_ = want;
  }
  return scratch_;
}

void *CudaDevice::host_scratch(void *stream, size_t bytes, void **device) {
  *device = nullptr;
  if (stream != static_cast<void *>(this->stream(Stream::Compute)) ||
      bytes > kMaxHostScratch)
    return nullptr;
  std::lock_guard<std::mutex> lock(scratch_mutex_);
  if (host_scratch_bytes_ < bytes && !grow_host_scratch_locked(bytes))
    return nullptr;
  *device = host_scratch_dev_;
  return host_scratch_;
}

bool CudaDevice::grow_host_scratch_locked(size_t bytes) {
  // The block's last user synchronized the stream before it returned.
  if (host_scratch_)
    cudaFreeHost(host_scratch_);
  host_scratch_ = host_scratch_dev_ = nullptr;
  host_scratch_bytes_ = 0;
  const size_t want = std::max<size_t>(bytes, 4096);
  void *host = nullptr, *dev = nullptr;
  if (cudaHostAlloc(&host, want, cudaHostAllocMapped | cudaHostAllocPortable) !=
      cudaSuccess) {
    cudaGetLastError(); // the variant copies through the copy engines
    return false;
  }
  if (cudaHostGetDevicePointer(&dev, host, 0) != cudaSuccess) {
    cudaGetLastError();
    cudaFreeHost(host);
    return false;
  }
  host_scratch_ = host;
  host_scratch_dev_ = dev;
  host_scratch_bytes_ = want;
  return true;
}

// One switch of the current device for the launch and the wait (a chunk
// of a resident region costs its launch and one cudaStreamSynchronize).
bool CudaDevice::compute(const ChunkContext &ctx, std::string &why) {
  CurrentDevice cur(ordinal());
  return check(cur.rc(), "cudaSetDevice", why) && launch_here(ctx, why) &&
         synchronize_here(Stream::Compute, why);
}

// ---- streams and events ---------------------------------------------------------------

bool CudaDevice::synchronize(Stream s, std::string &why) {
  CurrentDevice cur(ordinal());
  return check(cur.rc(), "cudaSetDevice", why) && synchronize_here(s, why);
}

bool CudaDevice::synchronize_here(Stream s, std::string &why) {
  return check(cudaStreamSynchronize(stream(s)), "cudaStreamSynchronize", why);
}

bool CudaDevice::synchronize_all(std::string &why) {
  return synchronize(Stream::Upload, why) && synchronize(Stream::Compute, why) &&
         synchronize(Stream::Download, why);
}

cudaEvent_t CudaDevice::acquire_event(std::string &why) {
  std::lock_guard<std::mutex> lock(event_mutex_);
  if (!event_pool_.empty()) {
    cudaEvent_t ev = event_pool_.back();
    event_pool_.pop_back();
    return ev;
  }
  CurrentDevice cur(ordinal());
  cudaEvent_t ev = nullptr;
  if (!check(cur.rc(), "cudaSetDevice", why) ||
      !check(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming),
             "cudaEventCreateWithFlags", why))
    return nullptr;
  events_all_.push_back(ev);
  return ev;
}

void CudaDevice::release_event(cudaEvent_t ev) {
  if (!ev)
    return;
  std::lock_guard<std::mutex> lock(event_mutex_);
  event_pool_.push_back(ev);
}

bool CudaDevice::record(cudaEvent_t ev, Stream s, std::string &why) {
  CurrentDevice cur(ordinal());
  return check(cur.rc(), "cudaSetDevice", why) &&
         check(cudaEventRecord(ev, stream(s)), "cudaEventRecord", why);
}

bool CudaDevice::stream_wait(Stream s, cudaEvent_t ev, std::string &why) {
  CurrentDevice cur(ordinal());
  return check(cur.rc(), "cudaSetDevice", why) &&
         check(cudaStreamWaitEvent(stream(s), ev, 0), "cudaStreamWaitEvent", why);
}

void CudaDevice::background_pieces(const void *host, size_t bytes,
                                   std::vector<std::pair<size_t, size_t>> &out) {
  if (!background_stream_ || bytes == 0)
    return;
  std::vector<Piece> pieces;
  pins_->registered_pieces(uintptr_t(host), uintptr_t(host) + bytes, pieces);
  for (const Piece &p : pieces)
    if (p.pinned)
      out.push_back({p.offset, p.bytes});
}

bool CudaDevice::upload_in_background(void *dev_dst, const void *host_src, size_t bytes,
                                      std::string &why) {
  CurrentDevice cur(ordinal());
  if (!check(cur.rc(), "cudaSetDevice", why))
    return false;
  // One copy per registration: CUDA refuses a copy whose host span crosses
  // two (HostPins).
  std::vector<Piece> pieces;
  pins_->registered_pieces(uintptr_t(host_src), uintptr_t(host_src) + bytes, pieces);
  for (const Piece &p : pieces) {
    if (!p.pinned) {
      why = "a copy in the background from host memory not registered";
      return false;
    }
    if (!check(cudaMemcpyAsync(static_cast<char *>(dev_dst) + p.offset,
                               static_cast<const char *>(host_src) + p.offset, p.bytes,
                               cudaMemcpyHostToDevice, background_stream_),
               "cudaMemcpyAsync (in the background)", why))
      return false;
  }
  std::lock_guard<std::mutex> lock(background_mutex_);
  background_queued_ += bytes;
  return true;
}

uint64_t CudaDevice::background_ticket(std::string &why) {
  CurrentDevice cur(ordinal());
  cudaEvent_t ev = acquire_event(why);
  if (!ev || !check(cur.rc(), "cudaSetDevice", why) ||
      !check(cudaEventRecord(ev, background_stream_), "cudaEventRecord", why)) {
    // Nothing queued may land unseen: the caller frees what it queued into.
    cudaStreamSynchronize(background_stream_);
    cudaGetLastError();
    if (ev)
      release_event(ev);
    std::lock_guard<std::mutex> lock(background_mutex_);
    background_queued_ = 0;
    return 0;
  }
  std::lock_guard<std::mutex> lock(background_mutex_);
  const uint64_t ticket = next_ticket_++;
  background_.emplace(ticket, BackgroundBatch{ev, background_queued_});
  background_queued_ = 0;
  return ticket;
}

bool CudaDevice::background_landed(uint64_t ticket) {
  cudaEvent_t ev = nullptr;
  {
    std::lock_guard<std::mutex> lock(background_mutex_);
    auto it = background_.find(ticket);
    if (it == background_.end())
      return true;
    ev = it->second.done;
  }
  const cudaError_t rc = cudaEventQuery(ev);
  if (rc == cudaErrorNotReady)
    return false;
  cudaGetLastError(); // a failure is wait_background()'s to report
  return true;
}

bool CudaDevice::wait_background(uint64_t ticket, std::string &why) {
  cudaEvent_t ev = nullptr;
  uint64_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(background_mutex_);
    auto it = background_.find(ticket);
    if (it == background_.end()) {
      why = "unknown background ticket " + std::to_string(ticket) + " on " + name();
      return false;
    }
    ev = it->second.done;
    bytes = it->second.bytes;
    background_.erase(it);
  }
  CurrentDevice cur(ordinal());
  const bool ok = check(cur.rc(), "cudaSetDevice", why) && event_sync(ev, why);
  release_event(ev);
  if (ok)
    background_bytes_ += bytes;
  return ok;
}

bool CudaDevice::event_done(cudaEvent_t ev, bool &done, std::string &why) {
  cudaError_t rc = cudaEventQuery(ev);
  if (rc == cudaErrorNotReady) {
    done = false;
    return true;
  }
  done = rc == cudaSuccess;
  return check(rc, "cudaEventQuery", why);
}

bool CudaDevice::event_sync(cudaEvent_t ev, std::string &why) {
  return check(cudaEventSynchronize(ev), "cudaEventSynchronize", why);
}

} // namespace hce
