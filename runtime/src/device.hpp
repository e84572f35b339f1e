// A compute device as the runtime sees it: something that runs a region's
// variant over a sub-range, and (for accelerators) owns memory that data
// must be copied into and out of.
#pragma once

#include "hce/hce.h"
#include "sched/scheduler.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hce {

enum class DeviceKind { Cpu, Sim, Cuda, Omp };

const char *kind_name(DeviceKind kind);

// What one chunk execution needs: the region, the normalised range, the base
// pointer of every map on this device and the reduction slots to fill.
struct ChunkContext {
  const hce_region *region = nullptr;
  Range range;
  void *const *ptrs = nullptr;
  void *red = nullptr;
};

class Device {
public:
  Device(DeviceKind kind, std::string name, int ordinal)
      : kind_(kind), name_(std::move(name)), ordinal_(ordinal), profile_key_(name_) {}
  virtual ~Device() = default;
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  DeviceKind kind() const { return kind_; }
  const std::string &name() const { return name_; }
  int ordinal() const { return ordinal_; } // N of "sim:N", "cuda:N"
  // What the device is (model and size; a sim's parameters): the persistent
  // profile keys its samples by name and hardware (profile::device_key), so
  // a cache shared between machines (an NFS home) or a changed HCE_SIM
  // never replays another device's timings.  Empty: the name alone.
  const std::string &hardware() const { return hardware_; }
  // "NAME@HARDWARE" (the name alone without one): the profile's key of the
  // device, made once -- recorded executions read it for every device.
  const std::string &profile_key() const { return profile_key_; }
  // True when the device works directly on host memory (no transfers).
  bool uses_host_memory() const { return kind_ == DeviceKind::Cpu; }
  // Whether an upload and a download may run at once, each near its own
  // rate: a CUDA GPU's copy engines, its staging pool taking one copy per
  // direction (cuda/staging_pool.hpp); a sim's modelled copies.  A pipeline
  // then hides a chunk's download behind the next one's upload.
  virtual bool copies_overlap() const { return false; }

  // Whether this device has a variant of the region it can run.
  virtual bool can_run(const hce_region &region) const = 0;
  // The region's iterations below which a chunk costs as much as one of
  // this size (it leaves some of the device's parallel units idle): the
  // scheduler's lanes (SchedParams::lanes).  0: unknown.
  virtual int64_t lanes(const hce_region &region) const { return 0; }
  // The region's iterations the device runs in one wave (every parallel
  // unit as full as it can be at once): a chunk of 1.2 waves costs as much
  // as one of 2 (SchedParams::waves).  0: unknown.
  virtual int64_t wave(const hce_region &region) const { return 0; }
  // Called once on the device's controller thread before any work.
  virtual void on_controller_start() {}
  // Whether the thread that runs a chunk loop can run this device's chunks
  // itself instead of handing them to the device's controller; if so, it
  // readies the calling thread, and leave_caller() undoes that after the
  // device's last chunk.  Saves two thread hand-offs per execution.
  virtual bool enter_caller() { return false; }
  virtual void leave_caller() {}
  // Runs the variant over ctx.range; returns false (with the reason in
  // `why`) when the device failed, so the runtime can re-run the chunk
  // elsewhere.
  virtual bool compute(const ChunkContext &ctx, std::string &why) = 0;

  // ---- device memory (accelerators only) ----
  // nullptr when the device is out of memory.
  virtual void *allocate(size_t bytes) { return nullptr; }
  virtual void release(void *ptr) {}
  virtual bool upload(void *dev_dst, const void *host_src, size_t bytes,
                      std::string &why) {
    return false;
  }
  virtual bool download(void *host_dst, const void *dev_src, size_t bytes,
                        std::string &why) {
    return false;
  }
  // `count` blocks of `width` bytes, `pitch` bytes apart on both sides (a
  // window has the host's layout): the rows of a 2-D section.  One strided
  // copy where the device has one (cudaMemcpy2DAsync); by default one copy
  // per block.
  virtual bool upload_blocks(void *dev_dst, const void *host_src, size_t width,
                             size_t pitch, size_t count, std::string &why) {
    for (size_t b = 0; b < count; ++b)
      if (!upload(static_cast<char *>(dev_dst) + b * pitch,
                  static_cast<const char *>(host_src) + b * pitch, width, why))
        return false;
    return true;
  }
  virtual bool download_blocks(void *host_dst, const void *dev_src, size_t width,
                               size_t pitch, size_t count, std::string &why) {
    for (size_t b = 0; b < count; ++b)
      if (!download(static_cast<char *>(host_dst) + b * pitch,
                    static_cast<const char *>(dev_src) + b * pitch, width, why))
        return false;
    return true;
  }
  // A batch of copies from one thread (DataEnv: a chunk's uploads, the
  // host's fetches): between begin_copies() and finish_copies() the copies
  // above may return before they have landed, and finish_copies() waits for
  // them all -- one wait per batch instead of one per array (a CUDA copy's
  // cudaStreamSynchronize took ~6 us of its ~9, call YB).  By default every
  // copy has landed when it returns and there is nothing to wait for.
  virtual void begin_copies() {}
  virtual bool finish_copies(std::string &why) { return true; }
  // Copies in the background (DataEnv::prefetch): host -> device copies
  // queued on a stream of their own that land while the calling thread and
  // the device's chunks go on.  Only where they cannot block the caller
  // (CudaDevice: from registered host memory); by default none.
  // background_pieces() appends the parts of [host, host + bytes) that can
  // be copied so now, as (offset, bytes); upload_in_background() queues one
  // copy inside such a part; background_ticket()
  // names everything queued so far by this thread (0 on failure);
  // background_landed() polls a ticket, wait_background() waits for it and
  // frees it (false + why when a copy failed: its bytes are not there).
  // The caller keeps the host bytes and the device memory alive and
  // unchanged-in-use until the ticket has been waited for.
  virtual void background_pieces(const void *host, size_t bytes,
                                 std::vector<std::pair<size_t, size_t>> &out) {}
  virtual bool upload_in_background(void *dev_dst, const void *host_src, size_t bytes,
                                    std::string &why) {
    why = "no copies in the background on " + name();
    return false;
  }
  virtual uint64_t background_ticket(std::string &why) {
    why = "no copies in the background on " + name();
    return 0;
  }
  virtual bool background_landed(uint64_t ticket) { return true; }
  virtual bool wait_background(uint64_t ticket, std::string &why) { return true; }
  // Copy inside the device's own memory (used when a window grows).
  virtual bool copy_device(void *dst, const void *src, size_t bytes, std::string &why) {
    return false;
  }
  // Peer copies: whether this device can copy straight from `src`'s memory
  // (CUDA peer access, NVLink/PCIe) without a stop on the host, and the
  // copy itself (blocking until it landed).
  virtual bool can_copy_from_peer(const Device &src) const { return false; }
  virtual bool copy_from_peer(void *dev_dst, const Device &src, const void *src_ptr,
                              size_t bytes, std::string &why) {
    why = "no peer copies on " + name();
    return false;
  }
  // Host memory the device will copy from or to during a region: a chance
  // to pin it once, before the chunks start (a no-op by default).  Pinning
  // goes piece by piece (kPinPieceBytes) while `wanted()`: once every
  // iteration of the execution is complete no chunk of this device will use
  // it, and the rest is pinned at a later preparation.  jacobi2d's cold first
  // execution on the H200 waited 6-7 ms for the GPU to register 256 MiB
  // beside a CPU team that had done the whole sweep (call OC).
  static constexpr size_t kPinPieceBytes = size_t(32) << 20;
  using Wanted = std::function<bool()>;
  virtual void prepare_host(const void *host, size_t bytes, const Wanted &wanted) {}
  // The same for all the host spans an execution prepares at once, which
  // a device may weigh together (CudaDevice: whether together they are
  // worth its staging pool).
  struct HostSpan {
    const char *host;
    size_t bytes;
  };
  virtual void prepare_hosts(const std::vector<HostSpan> &spans, const Wanted &wanted) {
    for (const HostSpan &s : spans)
      prepare_host(s.host, s.bytes, wanted);
  }
  // Of `spans`, the bytes a preparation would register now and copies could
  // stage instead, given threads to stage with (CudaDevice: its pages not
  // registered yet, of each span of its staging pool's size); 0 where
  // preparing pins nothing.  region_exec lends copy threads in a data
  // region by it.
  virtual size_t unpinned_bytes(const std::vector<HostSpan> &spans) { return 0; }
  // Whether prepare_hosts(spans) would now hold up every other copy to or
  // from this device while it runs (CudaDevice: a registration beside a
  // working CPU team, which the driver serialises with the process's other
  // CUDA calls); DataEnv::prepare brings home first what only this device
  // holds.  False where preparing blocks nothing.
  virtual bool preparing_blocks_copies(const std::vector<HostSpan> &spans) {
    return false;
  }
  // Host threads the device's copies may use in the coming execution, the
  // one that runs its chunks included (region_exec: the CPU's cores when
  // its team does no work in the execution, shared among the accelerators
  // that do; 1 beside a working CPU team, which would lose those cores).
  virtual void set_copy_threads(int threads) {}
  // Before the first chunk of an execution outside data regions that may
  // copy `bytes` of pageable rows each way (CudaDevice: its staging pool,
  // made now rather than by a chunk's copy, when it has copy threads).
  virtual void prepare_copies(size_t bytes) {}
  // Seconds spent since the device was made on work done once for what
  // stays: registering a data region's host arrays (prepare_host), making
  // staging buffers.  The runtime hands the scheduler an execution's share
  // of it (Scheduler::ended): kmeans' GPU alone registered 4 MiB in its
  // second execution (0.44 ms of ~2 ms), the one that measured its mode.
  virtual double one_time_seconds() const { return 0; }

protected:
  void set_hardware(std::string hardware) {
    hardware_ = std::move(hardware);
    profile_key_ = hardware_.empty() ? name_ : name_ + "@" + hardware_;
  }

private:
  DeviceKind kind_;
  std::string name_;
  int ordinal_;
  std::string hardware_;
  std::string profile_key_;
};

} // namespace hce
