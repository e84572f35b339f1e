// What the host-side transfer benchmarks share: a monotonic clock in
// seconds, and a function run by T threads at once (the caller is thread 0).
#pragma once

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

namespace hce_bench {

inline double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline void parallel(int t, const std::function<void(int)> &f) {
  std::vector<std::thread> th;
  for (int i = 1; i < t; ++i)
    th.emplace_back(f, i);
  f(0);
  for (auto &x : th)
    x.join();
}

} // namespace hce_bench
