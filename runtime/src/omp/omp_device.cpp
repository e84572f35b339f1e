#include "omp_device.hpp"

#include "clock.hpp"
#include "host_pins.hpp"
#include "log.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace hce {
namespace {

bool env_flag(const char *name) {
  const char *env = std::getenv(name);
  return env && *env && std::string(env) != "0";
}

// Makes libomptarget load the program's device image onto `ordinal` (and
// JIT-compile an nvptx64 IR image): an empty target data region.  In LLVM
// 19, __tgt_target_data_begin_mapper calls checkDeviceAndCtors, which loads
// every pending image onto the device (loadImagesOntoDevice); omp_target_alloc
// does not.  A failed load is not reported here (libomptarget only reports it
// unless OMP_TARGET_OFFLOAD=mandatory): the first kernel launch then fails
// and its chunk is re-run on the CPU, as before.
void load_device_image(const OmpApi &api, int ordinal) {
  if (!api.data_begin || !api.data_end)
    return; // the first kernel launch loads it
  api.data_begin(nullptr, ordinal, 0, nullptr, nullptr, nullptr, nullptr, nullptr,
                 nullptr);
  api.data_end(nullptr, ordinal, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
}

} // namespace

std::unique_ptr<OmpDevice> OmpDevice::create(int ordinal, std::string &why,
                                             const Settings &settings) {
  const OmpApi *api = omp_api(why);
  if (!api)
    return nullptr;
  const int n = omp_device_count(why);
  if (ordinal < 0 || ordinal >= n) {
    // libomptarget aborts on a device number out of range: never pass one.
    why = "omp:" + std::to_string(ordinal) + " does not exist (" + std::to_string(n) +
          " OpenMP offload device" + (n == 1 ? "" : "s") + " found)";
    return nullptr;
  }
  // libomptarget initialises a device at its first use, and loads the
  // program's device image onto it (JIT-compiling an nvptx64 IR image) at
  // the first target construct or data region.  Both here, once, so that
  // neither is charged to the first chunk (the adaptive schedulers would
  // take omp:N for slow) and a device that cannot even allocate is never
  // selected.
  const double start = now_seconds();
  void *probe = api->target_alloc(1, ordinal);
  if (!probe) {
    why = "omp_target_alloc failed on omp:" + std::to_string(ordinal) +
          " while initialising the device (LIBOMPTARGET_INFO=-1 says why)";
    if (!api->jit_note.empty())
      why += "; " + api->jit_note;
    return nullptr;
  }
  api->target_free(probe, ordinal);
  load_device_image(*api, ordinal);
  const double load_seconds = now_seconds() - start;
  auto dev = std::unique_ptr<OmpDevice>(new OmpDevice(
      ordinal, *api, settings.omp_mem_limit.value_or(0), settings.omp_poison));
  dev->image_load_seconds_ = load_seconds;
  if (env_flag("HCE_STATS")) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "%s ready in %.3f s (libomptarget %s; an nvptx64 image is "
                  "JIT-compiled then)",
                  dev->name().c_str(), load_seconds,
                  api->data_begin ? "initialised it and loaded the device image"
                                  : "initialised it; the device image loads at "
                                    "the first kernel");
    notice(line);
  }
  return dev;
}

OmpDevice::OmpDevice(int ordinal, const OmpApi &api, size_t limit, bool poison)
    : Device(DeviceKind::Omp, "omp:" + std::to_string(ordinal), ordinal), api_(api),
      host_(api.get_initial_device()), limit_(limit), poison_(poison) {}

OmpDevice::~OmpDevice() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto &[ptr, bytes] : blocks_)
    api_.target_free(ptr, ordinal());
  blocks_.clear();
  used_ = 0;
}

size_t OmpDevice::bytes_allocated() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

bool OmpDevice::compute(const ChunkContext &ctx, std::string &why) {
  if (ctx.range.ub <= ctx.range.lb)
    return true;
  if (!ctx.region->omp) {
    why = "region has no OpenMP-offload variant for " + name();
    return false;
  }
  const int rc = ctx.region->omp(ctx.range.lb, ctx.range.ub, ctx.ptrs, ctx.region->args,
                                 ctx.red, ordinal());
  if (rc != 0) {
    why = "OpenMP-offload variant returned " + std::to_string(rc) + " on " + name();
    if (rc == 1)
      why += " (device number not known to the program's libomptarget?)";
    return false;
  }
  return true;
}

void *OmpDevice::allocate(size_t bytes) {
  const size_t want = bytes ? bytes : 1;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (limit_ && used_ + want > limit_)
      return nullptr;
    used_ += want; // reserved, so that racing allocations respect the cap
  }
  void *p = api_.target_alloc(want, ordinal());
  bool poisoned = true;
  if (p && poison_) {
    if (api_.target_memset) {
      poisoned = api_.target_memset(p, 0xFF, want, ordinal()) != nullptr;
    } else {
      std::vector<unsigned char> ff(want, 0xFF);
      poisoned = api_.target_memcpy(p, ff.data(), want, 0, 0, ordinal(), host_) == 0;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!p || !poisoned) {
    if (p)
      api_.target_free(p, ordinal());
    used_ -= want;
    return nullptr;
  }
  blocks_[p] = want;
  return p;
}

void OmpDevice::release(void *ptr) {
  if (!ptr)
    return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = blocks_.find(ptr);
    if (it == blocks_.end())
      return;
    used_ -= it->second;
    blocks_.erase(it);
  }
  api_.target_free(ptr, ordinal());
}

bool OmpDevice::memcpy_checked(void *dst, const void *src, size_t bytes, int dst_dev,
                               int src_dev, const char *what, std::string &why) {
  if (bytes == 0)
    return true;
  // A host span must not straddle pages a cuda:N device registered (see
  // host_pins.hpp); device-to-device copies need no split.
  const void *host = dst_dev == host_ ? dst : src_dev == host_ ? src : nullptr;
  int rc = 0;
  auto copy = [&](size_t off, size_t n) {
    rc = api_.target_memcpy(static_cast<char *>(dst) + off,
                            static_cast<const char *>(src) + off, n, 0, 0, dst_dev,
                            src_dev);
    return rc == 0;
  };
  if (host ? HostPins::get().for_each_piece(host, bytes, copy) : copy(0, bytes))
    return true;
  why = std::string("omp_target_memcpy (") + what + ", " + std::to_string(bytes) +
        " bytes) failed on " + name() + ": returned " + std::to_string(rc);
  return false;
}

bool OmpDevice::upload(void *dev_dst, const void *host_src, size_t bytes,
                       std::string &why) {
  return memcpy_checked(dev_dst, host_src, bytes, ordinal(), host_, "host to device",
                        why);
}

bool OmpDevice::download(void *host_dst, const void *dev_src, size_t bytes,
                         std::string &why) {
  return memcpy_checked(host_dst, dev_src, bytes, host_, ordinal(), "device to host",
                        why);
}

bool OmpDevice::copy_device(void *dst, const void *src, size_t bytes, std::string &why) {
  return memcpy_checked(dst, src, bytes, ordinal(), ordinal(), "device to device", why);
}

} // namespace hce
