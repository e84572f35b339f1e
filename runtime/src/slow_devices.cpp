#include "slow_devices.hpp"

#include <algorithm>

namespace hce {

double rate_of_large_chunks(const std::vector<std::pair<int64_t, double>> &chunks) {
  int64_t largest = 0;
  for (const auto &[n, t] : chunks)
    largest = std::max(largest, n);
  double best = 0;
  for (const auto &[n, t] : chunks)
    if (2 * n >= largest && t > 0)
      best = std::max(best, double(n) / t);
  return best;
}

int64_t SlowDevices::retry_after(int times) {
  int64_t after = kRetryAfter;
  for (int i = 1; i < times && after < kMaxRetryAfter; ++i)
    after *= 2;
  return std::min(after, kMaxRetryAfter);
}

std::vector<size_t>
SlowDevices::keep(const std::vector<std::string> &devices, int64_t executions,
                  double min_share,
                  std::vector<std::pair<std::string, double>> *newly_left_out) {
  for (auto it = dropped_at_.begin(); it != dropped_at_.end();) {
    if (executions - it->second >= retry_after(dropped_times_[it->first])) {
      throughput_.erase(it->first); // measure it afresh
      it = dropped_at_.erase(it);
    } else {
      ++it;
    }
  }
  std::vector<size_t> all(devices.size());
  for (size_t i = 0; i < devices.size(); ++i)
    all[i] = i;
  if (devices.size() < 2 || min_share <= 0)
    return all;
  double total = 0;
  for (const std::string &d : devices) {
    auto it = throughput_.find(d);
    if (it == throughput_.end())
      return all; // not every device measured yet
    total += it->second;
  }
  if (total <= 0)
    return all;
  std::vector<size_t> kept;
  for (size_t i = 0; i < devices.size(); ++i) {
    const std::string &d = devices[i];
    // Left out until its retry: the others' rates change without it (a GPU
    // alone re-uploads what the CPU wrote, and looked slow enough to bring
    // the CPU back after one execution with a new scheduler at its initial
    // ratios: jacobi2d's fdets, traces-h200-2026-11-29-qb-named.tar.xz).
    if (dropped_at_.count(d))
      continue;
    const double share = throughput_[d] / total;
    int &streak = slow_streak_[d];
    streak = share >= min_share ? 0 : streak + 1;
    if (streak == 0)
      dropped_times_.erase(d); // it pays for itself again
    if (streak < 2) {
      kept.push_back(i);
      continue;
    }
    if (!dropped_at_.count(d) && newly_left_out)
      newly_left_out->push_back({d, share});
    dropped_at_.emplace(d, executions);
    ++dropped_times_[d];
  }
  return kept.empty() ? all : kept;
}

} // namespace hce
