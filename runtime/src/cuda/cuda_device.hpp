// cuda:N, one NVIDIA GPU driven through the CUDA runtime API (host code
// only: kernels come from the region's CUDA variant, compiled by nvcc into
// the user's program).
//
//  - Memory: cudaMalloc'ed windows (Device::allocate), optionally capped by
//    HCE_CUDA_MEM_LIMIT=<bytes> per device (to test memory-bound ranges).
//  - Streams: three non-blocking streams per device, upload / compute /
//    download (the HCE paper's Fig. 8).  Device::upload / download /
//    copy_device / compute are synchronous from the caller's view: they
//    enqueue on their stream and wait for it.  The *_async members, stream()
//    and the event calls below are the building blocks of the pipelined path
//    (upload k+1 / compute k / download k-1), which the Device interface does
//    not expose yet.
//  - Pinned host memory: a copy from or to a user array is made truly
//    asynchronous by page-locking the array (cudaHostRegister, cached, see
//    PinnedCache in cuda_device.cpp); where that is impossible the copy goes
//    through a reused pinned staging buffer in chunks.  HCE_CUDA_PIN selects
//    the policy (docs/cuda-backend.md).
//  - Errors: every CUDA call is checked; a failure returns false with
//    why = "<call> failed on cuda:N: <cudaGetErrorString>", and the region
//    executor re-runs the chunk on the CPU.
//
// Every public member makes device N current for its duration (and restores
// the caller's current device afterwards), so it may be called from any
// thread: the controller thread of cuda:N, other controllers fetching data
// to the host, or the main thread at the end of a region.
#pragma once

#include "device.hpp"
#include "launch_scratch.hpp"
#include "settings.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

// The CUDA runtime's opaque handle types, declared here so that this header
// does not need <cuda_runtime_api.h> (identical to its own typedefs).
struct CUstream_st;
struct CUevent_st;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

namespace hce {

// Number of CUDA devices this process can use; 0 on any error (no driver,
// driver too old, no GPU, ...), with the reason in `why`.  `quiet_reason` is
// set when the error only says "this machine has no usable GPU" (no device,
// or no driver at all), which needs no notice unless the user asked for
// CUDA.  Cached after the first call.
int cuda_device_count(std::string &why, bool *quiet_reason = nullptr);

// PinPolicy (HCE_CUDA_PIN), pin_policy_name(): settings.hpp.

class PinnedCache;
class StagingPool;

class CudaDevice final : public Device, public LaunchScratch {
public:
  enum class Stream { Upload = 0, Compute = 1, Download = 2 };

  // Creates cuda:`ordinal` (context, streams); nullptr and `why` on failure.
  // Its memory cap, pinning policy and peer copies come from `settings`
  // (HCE_CUDA_MEM_LIMIT, HCE_CUDA_PIN, HCE_CUDA_P2P: the runtime's, parsed
  // before it makes its devices); the defaults without.
  static std::unique_ptr<CudaDevice> create(int ordinal, std::string &why,
                                            const Settings &settings = Settings{});
  ~CudaDevice() override;

  // Enables peer access between every pair of `devices` that supports it
  // (cudaDeviceEnablePeerAccess both ways) and records the pairs.
  static void enable_peer_access(const std::vector<CudaDevice *> &devices);
  // Whether this device can read/write `other`'s memory directly (after
  // enable_peer_access): cudaMemcpyPeerAsync between them goes over
  // NVLink/PCIe without the host.
  bool has_peer_access(int other_ordinal) const;

  // hce_cuda_scratch during a launch: one block for the compute stream's
  // variant, grown as asked, kept until the device goes.
  void *scratch(void *stream, size_t bytes) override;
  // Its block's size made at init() and its least size after.
  static constexpr size_t kMinScratchBytes = 4096;
  // The bytes of hce_cuda_scratch's block (0: none yet).
  size_t scratch_bytes() const {
    std::lock_guard<std::mutex> lock(scratch_mutex_);
    return scratch_bytes_;
  }
  // hce_cuda_host_scratch: likewise, pinned host memory mapped for the GPU
  // (cudaHostAllocMapped), at most kMaxHostScratch bytes.
  void *host_scratch(void *stream, size_t bytes, void **device) override;
  static constexpr size_t kMaxHostScratch = size_t(64) << 10;

  bool can_run(const hce_region &region) const override { return region.cuda != nullptr; }
  // Its upload and download streams, and its staging pool's one copy per
  // direction at a time.
  bool copies_overlap() const override { return true; }
  // A 1-D kernel's block on every multiprocessor: fewer iterations leave
  // some idle, and each block takes as long.
  int64_t lanes(const hce_region &region) const override {
    return int64_t(std::max(0, region.cuda_block_iterations)) * multiprocessors_;
  }
  // The kernel's occupancy on this GPU, from the generated code
  // (hce_region::cuda_wave).
  int64_t wave(const hce_region &region) const override;
  void on_controller_start() override;
  // Any thread can drive the GPU (every call makes its device current for
  // the call, CurrentDevice): when no CPU chunk needs the calling thread it
  // runs this device's chunks, without the two hand-offs to the controller.
  bool enter_caller() override { return true; }
  bool compute(const ChunkContext &ctx, std::string &why) override;
  void *allocate(size_t bytes) override;
  void release(void *ptr) override;
  bool upload(void *dev_dst, const void *host_src, size_t bytes,
              std::string &why) override;
  bool download(void *host_dst, const void *dev_src, size_t bytes,
                std::string &why) override;
  void prepare_host(const void *host, size_t bytes, const Wanted &wanted) override;
  // The spans' pool first: made when the arrays it would stage together
  // are worth it (see stages_instead_of_pinning).
  void prepare_hosts(const std::vector<HostSpan> &spans, const Wanted &wanted) override;
  void prepare_copies(size_t bytes) override;
  size_t unpinned_bytes(const std::vector<HostSpan> &spans) override;
  // Some of the spans' pages not registered yet, and no copy threads to
  // stage them with (stages_instead_of_pinning): prepare_host registers.
  bool preparing_blocks_copies(const std::vector<HostSpan> &spans) override;
  // Registering data regions' arrays (prepare_host), making the staging
  // pool and buffers.
  double one_time_seconds() const override {
    return double(one_time_ns_.load(std::memory_order_relaxed)) * 1e-9;
  }
  // Host threads this device's copies may use in the coming execution:
  // with two or more, a one-shot copy of pageable memory is staged by that
  // many threads (StagingPool) instead of registered.
  void set_copy_threads(int threads) override {
    copy_threads_.store(threads, std::memory_order_relaxed);
  }
  // One cudaMemcpy2DAsync per call (per staging slot when the host rows
  // are pageable), not one copy and one synchronisation per row.
  bool upload_blocks(void *dev_dst, const void *host_src, size_t width, size_t pitch,
                     size_t count, std::string &why) override;
  bool download_blocks(void *host_dst, const void *dev_src, size_t width, size_t pitch,
                       size_t count, std::string &why) override;
  void begin_copies() override;
  bool finish_copies(std::string &why) override;
  bool copy_device(void *dst, const void *src, size_t bytes, std::string &why) override;
  // On a stream of their own, from host memory HCE registered (an async copy
  // of pageable memory would block the caller): a data region's arrays,
  // registered by prepare_host.
  void background_pieces(const void *host, size_t bytes,
                         std::vector<std::pair<size_t, size_t>> &out) override;
  bool upload_in_background(void *dev_dst, const void *host_src, size_t bytes,
                            std::string &why) override;
  uint64_t background_ticket(std::string &why) override;
  bool background_landed(uint64_t ticket) override;
  bool wait_background(uint64_t ticket, std::string &why) override;
  // Bytes copied in the background that landed (tests, statistics).
  uint64_t background_bytes() const { return background_bytes_.load(); }
  // Between GPUs with peer access enabled (HCE_CUDA_P2P=0 turns it off).
  bool can_copy_from_peer(const Device &src) const override;
  bool copy_from_peer(void *dev_dst, const Device &src, const void *src_ptr, size_t bytes,
                      std::string &why) override;

  // ---- building blocks of the pipelined path (not in Device) ----
  cudaStream_t stream(Stream s) const { return streams_[int(s)]; }
  // Enqueue a copy on the upload / download stream and return: the copy is
  // complete once the stream has passed it (record an event after it, or
  // synchronize).  The host range is pinned first; staged pieces are
  // ordered on the same stream (downloads finish through a host callback).
  bool upload_async(void *dev_dst, const void *host_src, size_t bytes, std::string &why);
  bool download_async(void *host_dst, const void *dev_src, size_t bytes,
                      std::string &why);
  // Enqueue a peer copy from `src` on `src_dev` into `dst` here, on this
  // device's upload stream (cudaMemcpyPeerAsync; staged through the host by
  // the driver when the pair has no peer access).
  bool copy_from_peer_async(void *dst, const CudaDevice &src_dev, const void *src,
                            size_t bytes, std::string &why);
  // Launches the region's CUDA variant on the compute stream without waiting
  // for it (a variant with reductions waits itself: it must fill the host
  // slots before returning).
  bool launch(const ChunkContext &ctx, std::string &why);
  // Events (from a per-device pool, created with cudaEventDisableTiming).
  cudaEvent_t acquire_event(std::string &why); // nullptr on failure
  void release_event(cudaEvent_t ev);
  bool record(cudaEvent_t ev, Stream s, std::string &why);
  // Makes stream `s` wait for `ev` (cudaStreamWaitEvent), without blocking
  // the host.
  bool stream_wait(Stream s, cudaEvent_t ev, std::string &why);
  bool event_done(cudaEvent_t ev, bool &done, std::string &why);
  bool event_sync(cudaEvent_t ev, std::string &why);
  bool synchronize(Stream s, std::string &why);
  bool synchronize_all(std::string &why);

  // Makes [host, host+bytes) pinned now (as the next copy would); false when
  // it cannot be registered (copies then use the staging buffer).
  bool pin_host(const void *host, size_t bytes);
  // Drops every registration overlapping [host, host+bytes): call before
  // freeing memory that copies touched under PinPolicy::Keep.
  void unpin_host(const void *host, size_t bytes);

  // ---- introspection (tests, stats) ----
  size_t bytes_allocated() const;
  size_t memory_limit() const { return limit_; } // 0 = none
  PinPolicy pin_policy() const { return policy_; }
  struct PinStats {
    size_t registered_bytes = 0; // page-locked by HCE now
    uint64_t registrations = 0;  // cudaHostRegister calls that succeeded
    uint64_t register_failures = 0;
    uint64_t staged_bytes = 0;   // bytes copied through staging buffers
    uint64_t pageable_bytes = 0; // bytes left to the driver's own copy (small ones)
  };
  static PinStats pin_stats();

private:
  CudaDevice(int ordinal);
  bool init(const Settings &settings, std::string &why);
  bool check(int rc, const char *call, std::string &why) const;
  // launch() and synchronize() for a caller that made this device current
  // already (compute()): no cudaGetDevice / cudaSetDevice of their own.
  bool launch_here(const ChunkContext &ctx, std::string &why);
  bool synchronize_here(Stream s, std::string &why);
  // A copy on stream `s` (Upload or Download) has been enqueued: waits for
  // it, or leaves it to finish_copies() inside the calling thread's batch.
  bool landed(Stream s, std::string &why);
  // One piece of a host range, pinned or not.
  struct Piece {
    size_t offset, bytes;
    bool pinned;
  };
  bool driver_copy(bool up, char *dev, char *host, size_t bytes, std::string &why);
  // upload_async / download_async (`up`: host -> device).
  bool copy_async(bool up, char *dev, char *host, size_t bytes, std::string &why);
  // upload_blocks / download_blocks of more than one strided row.
  bool copy_blocks(bool up, char *dev, char *host, size_t width, size_t pitch,
                   size_t count, std::string &why);
  // The pieces of a strided copy's span [host, host + span) of which `moved`
  // bytes move: registering the span first only if they fill half of it.
  void span_pieces(const char *host, size_t span, size_t moved,
                   std::vector<Piece> &pieces);
  bool staged_upload(char *dev, const char *host, size_t bytes, std::string &why);
  bool staged_download(char *host, const char *dev, size_t bytes, std::string &why);
  bool staged_upload_blocks(char *dev, const char *host, size_t width, size_t pitch,
                            size_t count, std::string &why);
  bool staged_download_blocks(char *host, const char *dev, size_t width, size_t pitch,
                              size_t count, std::string &why);
  bool ensure_staging(std::string &why);
  // The pool that stages the copy of [host, host + bytes) by several
  // threads, with the copy's `pieces` (pinned or not, registering nothing),
  // or nullptr: the copy then registers its pages (or takes the one-thread
  // staging buffer).  Only under PinPolicy::Region, whose registrations end
  // with the region anyway, while the execution leaves threads free
  // (copy_threads_), and when some of the copy is not pinned (a data
  // region's pinned arrays never make a pool).  The pool is made by
  // the first copy of kPoolMakeBytes or more: making it costs
  // ~5 ms (gemm's 16 MiB copies on the GPU alone took 1.3x as long with
  // it, call CB), which a smaller copy does not win back.
  StagingPool *pool_for(const char *host, size_t bytes, std::vector<Piece> &pieces);
  // The pool, made now if `unpinned` (bytes it would stage) reaches
  // kPoolMakeBytes; nullptr where it is not made or could not be.
  StagingPool *ensure_pool(size_t unpinned);
  // The copy's `pieces` (pinned: one copy on `s`; not: by `pool`), ordered
  // on stream `s`.
  bool pooled_copy(StagingPool &pool, bool up, char *dev, char *host,
                   const std::vector<Piece> &pieces, Stream s, std::string &why);
  // prepare_host's choice: stage a data region's array for now rather than
  // pin it (see the definition), and the bytes the pool staged of each such
  // array.
  bool stages_instead_of_pinning(const void *host, size_t bytes);
  // Counts `bytes` staged from `host` against the rented arrays they fall
  // in; whether they fall in one.
  bool add_rent(const char *host, size_t bytes);
  static constexpr size_t kPoolMinBytes = hce::kPoolMinBytes; // (settings.hpp)
  static constexpr size_t kPoolMakeBytes = hce::kPoolMakeBytes;

  std::array<cudaStream_t, 3> streams_{};
  cudaStream_t background_stream_ = nullptr; // upload_in_background()
  std::mutex background_mutex_;
  struct BackgroundBatch {
    cudaEvent_t done;
    uint64_t bytes;
  };
  std::map<uint64_t, BackgroundBatch> background_; // by ticket
  uint64_t next_ticket_ = 1;
  uint64_t background_queued_ = 0; // bytes queued since the last ticket
  std::atomic<uint64_t> background_bytes_{0};
  int multiprocessors_ = 0; // lanes(): 0 until init() reads them
  size_t limit_ = 0;
  PinPolicy policy_ = PinPolicy::Region;
  bool p2p_ = true; // HCE_CUDA_P2P=0: halos go through the host
  std::shared_ptr<PinnedCache> pins_;
  std::vector<int> peers_; // ordinals this device has peer access to

  mutable std::mutex mem_mutex_;
  std::map<void *, size_t> blocks_;      // live blocks: bytes asked for
  std::map<void *, size_t> capacity_;    // live blocks: bytes allocated
  std::multimap<size_t, void *> cached_; // freed blocks kept for reuse
  size_t cached_bytes_ = 0;
  static constexpr size_t kMaxCachedBlocks = 8;
  void free_cached_locked();
  size_t used_ = 0;

  // Pinned staging buffers: two slots per direction, each guarded by an
  // event recorded after its last use.
  struct Staging {
    std::mutex mutex;
    char *buf[2] = {nullptr, nullptr};
    cudaEvent_t done[2] = {nullptr, nullptr};
    int next = 0;
  };
  Staging up_stage_, down_stage_;
  std::mutex staging_alloc_mutex_;
  size_t stage_bytes_ = 0; // bytes per slot

  std::atomic<int> copy_threads_{1};
  std::atomic<int64_t> one_time_ns_{0}; // one_time_seconds()
  void add_one_time(double since);      // now_seconds() - since
  std::mutex pool_mutex_;
  std::unique_ptr<StagingPool> pool_; // made at the first copy that wants it
  bool pool_failed_ = false;
  struct Rented {
    uintptr_t lo, hi;
    uint64_t staged; // bytes of [lo, hi) the pool staged, both ways
  };
  std::vector<Rented> rented_; // under pool_mutex_

  mutable std::mutex scratch_mutex_;
  void *scratch_ = nullptr; // hce_cuda_scratch's block (cudaMalloc)
  size_t scratch_bytes_ = 0;
  void *host_scratch_ = nullptr;     // hce_cuda_host_scratch's (cudaHostAlloc)
  void *host_scratch_dev_ = nullptr; // ... and the GPU's address of it
  size_t host_scratch_bytes_ = 0;
  bool grow_host_scratch_locked(size_t bytes); // under scratch_mutex_
  std::mutex event_mutex_;
  std::vector<cudaEvent_t> event_pool_;
  std::vector<cudaEvent_t> events_all_;
};

} // namespace hce
