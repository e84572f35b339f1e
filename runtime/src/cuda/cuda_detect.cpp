// Detection of CUDA devices for device selection (runtime.cpp).
#include "cuda_device.hpp"

#include <cuda_runtime_api.h>

#include <mutex>

namespace hce {

int cuda_device_count(std::string &why, bool *quiet_reason) {
  static std::once_flag once;
  static int count = 0;
  static std::string reason;
  static bool quiet = false;
  std::call_once(once, [] {
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess) {
      cudaGetLastError();
      const char *s = cudaGetErrorString(rc);
      reason = std::string("cudaGetDeviceCount failed: ") + (s ? s : "unknown error");
      quiet = rc == cudaErrorNoDevice || rc == cudaErrorInsufficientDriver;
      count = 0;
      return;
    }
    if (n == 0) {
      reason = "no CUDA device found";
      quiet = true;
    }
    count = n;
  });
  why = reason;
  if (quiet_reason)
    *quiet_reason = quiet;
  return count;
}

} // namespace hce
