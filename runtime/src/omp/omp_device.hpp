// omp:N, OpenMP device number N driven through clang-19's libomptarget
// (OpenMP target offload).  Kernels come from the region's offload variant
// (hce_region::omp, an `omp target teams distribute parallel for` on device
// pointers that the translator writes and hce-cc --hce-offload compiles into
// the user's program).
//
// libhce does not link libomptarget: that would drag libLLVM (129 MB) into
// every program.  The omp_* calls are resolved at run time (dlsym), and they
// exist only when the program itself was linked with OpenMP offload, which
// loads libomptarget.  Without it there are zero omp devices (one notice if
// the user asked for them).  libomp's own omp_get_num_devices() forwards to
// libomptarget and answers 0 without it, so the runtime asks libomptarget's
// functions directly (found through omp_target_alloc, which only
// libomptarget defines).
//
//  - Memory: omp_target_alloc(bytes, N) / omp_target_free; optionally capped
//    by HCE_OMP_MEM_LIMIT=<bytes> (k/M/G suffixes; Settings) per device, to test
//    memory-bound ranges; HCE_OMP_POISON=1 fills new blocks with 0xFF bytes
//    (omp_target_memset), so that a missing upload shows as NaN / -1.
//  - Transfers: synchronous omp_target_memcpy between omp_get_initial_device()
//    and N (device to device for window growth).  Calls from several host
//    threads at once are allowed by OpenMP and are what the pipelined mode
//    does (upload / compute / download on three threads): the overlap comes
//    from the threads, not from *_async forms.
//  - Start: create() initialises device N (a 1-byte omp_target_alloc) and
//    makes libomptarget load the program's device image onto it (an empty
//    target data region, __tgt_target_data_begin_mapper / _end_mapper with
//    no maps), timed: an nvptx64 image is LLVM IR that is JIT-compiled then
//    (omp_jit.hpp: what the JIT needs).  In LLVM 19 the image is loaded by
//    checkDeviceAndCtors, which the __tgt_target_* entry points call and
//    omp_target_alloc does not (docs/offload-backend.md, "Start-up"), so
//    the allocation alone left the load and the JIT to the first kernel,
//    inside the first timed chunk.
//  - Errors: a call that fails returns false with
//    why = "<call> failed on omp:N: ..." and the region executor re-runs the
//    chunk on the CPU.  Device numbers are checked at selection: libomptarget
//    aborts the process on a device number out of range.
#pragma once

#include "device.hpp"
#include "settings.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace hce {

// The libomptarget entry points the runtime uses, resolved at run time.
struct OmpApi {
  int (*get_num_devices)() = nullptr;
  int (*get_initial_device)() = nullptr;
  void *(*target_alloc)(size_t, int) = nullptr;
  void (*target_free)(void *, int) = nullptr;
  int (*target_memcpy)(void *, const void *, size_t, size_t, size_t, int, int) = nullptr;
  void *(*target_memset)(void *, int, size_t, int) = nullptr; // optional
  // __tgt_target_data_begin_mapper / __tgt_target_data_end_mapper (loc,
  // device, count, bases, pointers, sizes, types, names, mappers): what
  // clang emits for `target data`; with no maps they only make libomptarget
  // load the program's device image onto the device.  Optional: without
  // them the image is loaded at the first kernel launch.
  using DataRegionFn = void (*)(void *, int64_t, int32_t, void **, void **, int64_t *,
                                int64_t *, void *, void **);
  DataRegionFn data_begin = nullptr, data_end = nullptr;
  std::string library;  // the file that defines them (libomptarget.so.19.1)
  std::string jit_note; // what the JIT of an nvptx64 IR image lacks, if anything
};

// libomptarget's entry points when it is loaded in this process, nullptr
// (with the reason in `why`) when it is not.  Resolved once.
const OmpApi *omp_api(std::string &why);

// Number of OpenMP offload devices (omp_get_num_devices() of libomptarget);
// 0 when libomptarget is not loaded or finds no device, with the reason in
// `why`.  Cached after the first call.
int omp_device_count(std::string &why);

class OmpDevice final : public Device {
public:
  // omp:`ordinal`; nullptr and `why` when libomptarget is absent or the
  // device number is out of range.  Its memory cap is `settings`'
  // omp_mem_limit (HCE_OMP_MEM_LIMIT: the runtime's); none without.
  static std::unique_ptr<OmpDevice> create(int ordinal, std::string &why,
                                           const Settings &settings = Settings{});
  ~OmpDevice() override;

  size_t bytes_allocated() const;
  size_t memory_limit() const { return limit_; } // 0 = none
  int host_device() const { return host_; }
  // Time libomptarget took, when the device was created, to initialise it
  // and load the program's device image onto it (for an nvptx64 IR image:
  // the JIT compile included).
  double image_load_seconds() const { return image_load_seconds_; }

  bool can_run(const hce_region &region) const override { return region.omp != nullptr; }
  bool compute(const ChunkContext &ctx, std::string &why) override;
  void *allocate(size_t bytes) override;
  void release(void *ptr) override;
  bool upload(void *dev_dst, const void *host_src, size_t bytes,
              std::string &why) override;
  bool download(void *host_dst, const void *dev_src, size_t bytes,
                std::string &why) override;
  bool copy_device(void *dst, const void *src, size_t bytes, std::string &why) override;

private:
  OmpDevice(int ordinal, const OmpApi &api, size_t limit, bool poison);
  bool memcpy_checked(void *dst, const void *src, size_t bytes, int dst_dev, int src_dev,
                      const char *what, std::string &why);

  const OmpApi &api_;
  int host_; // omp_get_initial_device()
  size_t limit_ = 0;
  bool poison_ = false;
  double image_load_seconds_ = 0.0;
  mutable std::mutex mutex_;
  std::map<void *, size_t> blocks_;
  size_t used_ = 0;
};

} // namespace hce
