#include "host_pins.hpp"

#include <algorithm>
#include <mutex>

namespace hce {

HostPins &HostPins::get() {
  // Never destroyed: the runtime shuts down from an atexit handler, which
  // runs after the destructor of a static first used after it was
  // registered.  With HCE_CUDA_PIN=keep the registrations outlive every
  // region, and the last CUDA device unregistered them through a destroyed
  // table: matadd and jacobi2d exited on SIGSEGV (H200, call MD).
  static HostPins *pins = new HostPins;
  return *pins;
}

bool HostPins::add(uintptr_t lo, uintptr_t hi, const std::function<bool()> &pin) {
  std::unique_lock lock(mutex_);
  if (!pin())
    return false;
  ranges_[lo] = hi;
  return true;
}

void HostPins::remove(uintptr_t lo, const std::function<void()> &unpin) {
  std::unique_lock lock(mutex_);
  unpin();
  ranges_.erase(lo);
}

bool HostPins::for_each_piece(const void *p, size_t bytes,
                              const std::function<bool(size_t, size_t)> &copy) const {
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  std::shared_lock lock(mutex_);
  uintptr_t at = lo;
  auto it = ranges_.upper_bound(lo);
  if (it != ranges_.begin())
    --it;
  while (at < hi) {
    while (it != ranges_.end() && it->second <= at)
      ++it;
    uintptr_t end = hi; // outside every registration up to the next one
    if (it != ranges_.end() && it->first < hi)
      end = it->first > at ? it->first : std::min(hi, it->second);
    if (!copy(at - lo, end - at))
      return false;
    at = end;
  }
  return true;
}

size_t HostPins::ranges() const {
  std::shared_lock lock(mutex_);
  return ranges_.size();
}

} // namespace hce
