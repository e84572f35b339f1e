// Device memory for a CUDA variant's reduction slots (hce_cuda_scratch).
// A variant used to cudaMallocAsync its slots at every launch; the first
// such call in a process creates the device's memory pool, 8-12 ms on the
// H100 (bench/first_call_costs.cu), which every region with a reduction
// paid in its first chunk -- eft's probe -- and later ones 0.1 ms a
// launch.  The device launching a variant names itself for the call
// (LaunchScratchScope); the variant asks it for memory on its stream.
#pragma once

#include <cstddef>

namespace hce {

class LaunchScratch {
public:
  virtual ~LaunchScratch() = default;
  // At least `bytes` of device memory usable on `stream`, the caller's until
  // its next call with that stream; nullptr when `stream` is not the one
  // the launch runs on or there is no memory (the variant allocates).
  virtual void *scratch(void *stream, size_t bytes) = 0;
  // At least `bytes` of pinned host memory the GPU reads and writes in place
  // (mapped), for the variant's reduction identities in and partial results
  // out by its own threads: an 8-byte cudaMemcpyAsync waits behind another
  // stream's large copy on the copy engine (bench/reduction_beside_fetch.cu).
  // The host address; `*device` gets the GPU's.  nullptr as for scratch(),
  // and for blocks too large to be worth moving by the GPU's threads.
  virtual void *host_scratch(void *stream, size_t bytes, void **device) = 0;
};

// The device launching a variant on this thread, for the call.
class LaunchScratchScope {
public:
  explicit LaunchScratchScope(LaunchScratch *s) : saved_(current()) { current() = s; }
  ~LaunchScratchScope() { current() = saved_; }
  LaunchScratchScope(const LaunchScratchScope &) = delete;
  LaunchScratchScope &operator=(const LaunchScratchScope &) = delete;
  static LaunchScratch *&current() {
    thread_local LaunchScratch *s = nullptr;
    return s;
  }

private:
  LaunchScratch *saved_;
};

} // namespace hce
