// Monotonic time in seconds, the unit every scheduler and statistic uses.
#pragma once

#include <chrono>

namespace hce {

inline double now_seconds() {
  using clock = std::chrono::steady_clock;
  static const clock::time_point start = clock::now();
  return std::chrono::duration<double>(clock::now() - start).count();
}

} // namespace hce
