// sim:N, a simulated accelerator: memory of its own (poisoned with 0xFF
// bytes on allocation, so a missing upload shows up as NaN / -1 in results),
// transfers by memcpy charged with a modelled latency and bandwidth, compute
// by the CPU variant on the controller thread slowed to a speed factor.  It
// lets every scheduler, transfer and fault path be tested without a GPU.
//
// Parameters come from HCE_SIM, e.g.
//   HCE_SIM="sim:0=speed:4,bw:12e9,lat:10e-6,mem:1e9;sim:1=speed:0.5"
// speed    relative compute speed; the time of a chunk is stretched to
//          measured/speed (a speed above 1 cannot make the host faster, so
//          it only matters relative to other sim devices)      default 1
// bw       bytes/second of each transfer                      default 12e9
// lat      seconds of latency per transfer                    default 10e-6
// mem      capacity in bytes (0 = unlimited)                  default 0
// threads  OpenMP threads running the variant                 default 1
// iter_time  seconds one iteration takes at speed 1; when set, a chunk's
//          time is modelled as iterations * iter_time / speed instead of
//          measured (deterministic timings for scheduler tests)  default 0
// p2p      1: copies between two sim devices that both set it go device to
//          device (charged with the slower bw and the larger lat), like
//          CUDA peer access; 0: through the host              default 0
// pin      seconds per GiB that pinning a data region's host arrays takes
//          (prepare_host; cudaHostRegister on the H100: ~43 ms/GiB)  default 0
// bg       1: copies in the background (DataEnv::prefetch), as a GPU's from
//          registered memory; 0: none                          default 1
// fail_compute:K / fail_upload:K / fail_download:K
//          the K-th such operation (1-based) fails once: fault injection
// sticky   1: ... and every later one of that kind fails too (a GPU's
//          sticky error, which ends its context)            default 0
// repeat   N: the K-th and the N-1 after it fail (a copy that fails twice,
//          its retry included, and then works)              default 1
#pragma once

#include "device.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace hce {

struct SimParams {
  double speed = 1.0;
  double bandwidth = 12e9;
  double latency = 10e-6;
  double capacity = 0; // bytes, 0 = unlimited
  int threads = 1;
  bool p2p = false;
  double iter_time = 0; // > 0: modelled compute time per iteration
  double pin = 0;       // seconds per GiB pinned (prepare_host)
  bool background = true; // copies in the background (bg)
  long fail_compute = 0, fail_upload = 0, fail_download = 0;
  bool sticky = false; // a failure repeats at every later operation of its kind
  long repeat = 1;     // ... or at the repeat - 1 operations after it
};

// Parameters of sim:`ordinal` from an HCE_SIM string; nullopt and `why` on a
// malformed string.
std::optional<SimParams> parse_sim_params(const std::string &text, int ordinal,
                                          std::string &why);

class SimDevice final : public Device {
public:
  SimDevice(int ordinal, SimParams params);
  ~SimDevice() override;
  // Its modelled copies take their time on the threads that ask for them.
  bool copies_overlap() const override { return true; }

  const SimParams &params() const { return params_; }
  size_t bytes_allocated() const { return used_; }

  bool can_run(const hce_region &region) const override {
    return region.cpu != nullptr;
  }
  void on_controller_start() override;
  // As a GPU does (CudaDevice::enter_caller), the calling thread runs the
  // sim's chunks when no CPU chunk needs it, with the sim's team size.
  bool enter_caller() override;
  void leave_caller() override;
  bool compute(const ChunkContext &ctx, std::string &why) override;
  void *allocate(size_t bytes) override;
  void release(void *ptr) override;
  // Sleeps `pin` s/GiB the first time a range is given, as cudaHostRegister
  // costs once per registration, piece by piece while `wanted()` (tests:
  // pins_started(), the preparations that pinned something).
  void prepare_host(const void *host, size_t bytes, const Wanted &wanted) override;
  int pins_started() const { return pins_started_.load(); }
  // What prepare_host() has yet to pin of `spans` (0 without `pin`).
  size_t unpinned_bytes(const std::vector<HostSpan> &spans) override;
  // Some of them not pinned yet: as a registration beside a working CPU
  // team does, pinning holds up this device's copies (the data layer's
  // tests; the sleeps themselves block nothing).
  bool preparing_blocks_copies(const std::vector<HostSpan> &spans) override {
    return unpinned_bytes(spans) > 0;
  }
  double one_time_seconds() const override; // the pinning's sleeps
  size_t pinned_bytes(); // pinned so far, every span (tests)
  bool upload(void *dev_dst, const void *host_src, size_t bytes,
              std::string &why) override;
  bool download(void *host_dst, const void *dev_src, size_t bytes,
                std::string &why) override;
  // A batch defers its copies' memcpy to finish_copies(), which pays the
  // link's latency once (as CudaDevice waits once): a caller that used a
  // copy before its batch finished reads poison or stale bytes.
  void begin_copies() override;
  bool finish_copies(std::string &why) override;
  long batches() const { return batches_.load(); } // finished, with copies (tests)
  long batched_copies() const { return batched_copies_.load(); }
  bool copy_device(void *dst, const void *src, size_t bytes,
                   std::string &why) override;
  bool can_copy_from_peer(const Device &src) const override;
  bool copy_from_peer(void *dev_dst, const Device &src, const void *src_ptr,
                      size_t bytes, std::string &why) override;
  // Copies in the background: the host bytes are read when the copy is
  // queued and land in the device's memory only when its ticket is waited
  // for, at the modelled time (latency and bandwidth, one copy after the
  // other): a caller that used the bytes before, or changed them after and
  // still trusted the copy, reads poison or stale values.
  // From pinned memory only when the sim models pinning (`pin`), as a GPU
  // copies in the background only what it registered.
  void background_pieces(const void *host, size_t bytes,
                         std::vector<std::pair<size_t, size_t>> &out) override;
  bool upload_in_background(void *dev_dst, const void *host_src, size_t bytes,
                            std::string &why) override;
  uint64_t background_ticket(std::string &why) override;
  bool background_landed(uint64_t ticket) override;
  bool wait_background(uint64_t ticket, std::string &why) override;
  long background_bytes() const { return background_bytes_.load(); } // landed (tests)
  // Kept for tests: a sim copies with memcpy whatever it is given.
  void set_copy_threads(int threads) override { copy_threads_ = threads; }
  int copy_threads() const { return copy_threads_; }

private:
  std::atomic<int> pins_started_{0};
  std::atomic<int64_t> one_time_ns_{0};
  std::mutex pinned_mutex_;
  // prepare_host(): the bytes pinned so far of each span (a preparation
  // that was not wanted any more stopped between two pieces).
  std::map<std::pair<const void *, size_t>, size_t> pinned_;
  std::atomic<int> copy_threads_{0}; // 0: never set
  int caller_threads_ = 0; // the calling thread's team size, while it runs chunks
  // Counts one operation of a kind; true when it is to fail (fail_*, sticky).
  bool injected_failure(std::atomic<long> &counter, long fail_at) const;
  bool transfer(void *dst, const void *src, size_t bytes, std::atomic<long> &counter,
                long fail_at, const char *what, std::string &why);

  SimParams params_;
  std::mutex mutex_;
  std::map<void *, size_t> blocks_;
  size_t used_ = 0;
  // Operation counters for fault injection: a device's copies run on
  // several threads (its controller, stream threads, other devices fetching
  // from it).
  std::atomic<long> computes_{0}, uploads_{0}, downloads_{0};
  std::atomic<long> batches_{0}, batched_copies_{0};
  // Copies in the background: queued since the last ticket, and per ticket
  // (what lands, and when).
  struct BackgroundCopy {
    void *dst;
    std::vector<char> bytes; // the host's, when it was queued
  };
  struct BackgroundBatch {
    std::vector<BackgroundCopy> copies;
    double lands_at = 0;
  };
  std::mutex background_mutex_;
  std::vector<BackgroundCopy> background_queued_;
  std::map<uint64_t, BackgroundBatch> background_;
  uint64_t next_ticket_ = 1;
  double background_busy_until_ = 0; // the last batch's landing
  std::atomic<long> background_bytes_{0};
};

} // namespace hce
