// Run-time resolution of libomptarget and detection of OpenMP offload
// devices (runtime.cpp selects omp:N devices from these).
#include "omp_device.hpp"
#include "omp_jit.hpp"

#include <dlfcn.h>

#include <mutex>

namespace hce {
namespace {

template <typename F> bool resolve(void *handle, const char *name, F &out) {
  out = reinterpret_cast<F>(dlsym(handle, name));
  return out != nullptr;
}

} // namespace

const OmpApi *omp_api(std::string &why) {
  // Never destroyed: the omp:N devices hold the table, and the runtime
  // destroys them from an atexit handler, after the static destructors ran
  // (the same order that crashed HostPins, 5a26c7a).
  static std::once_flag once;
  static OmpApi &api = *new OmpApi;
  static bool ok = false;
  static std::string &reason = *new std::string;
  std::call_once(once, [] {
    // Only libomptarget defines omp_target_alloc: it is in the process when
    // the program was linked with -fopenmp-targets=...  (libomp defines
    // omp_get_num_devices too, but answers 0 without libomptarget).
    void *alloc = dlsym(RTLD_DEFAULT, "omp_target_alloc");
    if (!alloc) {
      reason = "libomptarget is not loaded: the program was not linked with "
               "OpenMP offload (hce-cc --hce-offload)";
      return;
    }
    // Take every other entry point from the same library, so that
    // omp_get_num_devices is libomptarget's own and not libomp's.
    void *handle = RTLD_DEFAULT;
    Dl_info info{};
    if (dladdr(alloc, &info) && info.dli_fname) {
      api.library = info.dli_fname;
      if (void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD))
        handle = h; // stays open: the library is in use anyway
    }
    const char *missing = nullptr;
    if (!resolve(handle, "omp_target_alloc", api.target_alloc))
      missing = "omp_target_alloc";
    else if (!resolve(handle, "omp_target_free", api.target_free))
      missing = "omp_target_free";
    else if (!resolve(handle, "omp_target_memcpy", api.target_memcpy))
      missing = "omp_target_memcpy";
    else if (!resolve(handle, "omp_get_num_devices", api.get_num_devices))
      missing = "omp_get_num_devices";
    else if (!resolve(handle, "omp_get_initial_device", api.get_initial_device))
      missing = "omp_get_initial_device";
    if (missing) {
      reason = std::string("libomptarget (") + (api.library.empty() ? "?" : api.library) +
               ") lacks " + missing;
      return;
    }
    resolve(handle, "omp_target_memset", api.target_memset); // OpenMP 5.1
    // Not in omp.h: the entry points clang emits for `target data`.  An
    // empty data region loads the device image (OmpDevice::create).
    if (!resolve(handle, "__tgt_target_data_begin_mapper", api.data_begin) ||
        !resolve(handle, "__tgt_target_data_end_mapper", api.data_end))
      api.data_begin = api.data_end = nullptr;
    // Before any device image is loaded: an nvptx64 image is LLVM IR that
    // libomptarget JIT-compiles when omp:N is first used.
    api.jit_note = prepare_omp_jit().note;
    ok = true;
  });
  why = reason;
  return ok ? &api : nullptr;
}

int omp_device_count(std::string &why) {
  static std::once_flag once;
  static int count = 0;
  static std::string reason;
  std::call_once(once, [] {
    const OmpApi *api = omp_api(reason);
    if (!api)
      return;
    count = api->get_num_devices();
    if (count <= 0) {
      count = 0;
      reason = "libomptarget found no offload device (omp_get_num_devices() "
               "returned 0; LIBOMPTARGET_INFO=-1 says why)";
      if (!api->jit_note.empty())
        reason += "; " + api->jit_note;
    }
  });
  why = reason;
  return count;
}

} // namespace hce
