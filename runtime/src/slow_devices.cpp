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

SlowDevices::Entry *SlowDevices::find(std::string_view device) {
  for (Entry &e : entries_)
    if (e.name == device)
      return &e;
  return nullptr;
}

SlowDevices::Entry &SlowDevices::entry(std::string_view device) {
  if (Entry *e = find(device))
    return *e;
  entries_.push_back(Entry{std::string(device)});
  return entries_.back();
}

std::vector<size_t>
SlowDevices::keep(const std::vector<std::string> &devices, int64_t executions,
                  double min_share,
                  std::vector<std::pair<std::string, double>> *newly_left_out) {
  const std::vector<std::string_view> views(devices.begin(), devices.end());
  return keep(std::span<const std::string_view>(views), executions, min_share,
              newly_left_out);
}

std::vector<size_t>
SlowDevices::keep(std::span<const std::string_view> devices, int64_t executions,
                  double min_share,
                  std::vector<std::pair<std::string, double>> *newly_left_out) {
  std::vector<size_t> kept;
  keep(devices, executions, min_share, newly_left_out, kept);
  return kept;
}

void SlowDevices::keep(std::span<const std::string_view> devices, int64_t executions,
                       double min_share,
                       std::vector<std::pair<std::string, double>> *newly_left_out,
                       std::vector<size_t> &kept) {
  for (Entry &e : entries_)
    if (e.dropped && executions - e.dropped_at >= retry_after(e.dropped_times)) {
      e.measured = false; // measure it afresh
      e.dropped = false;
    }
  const auto all = [&] {
    kept.resize(devices.size());
    for (size_t i = 0; i < devices.size(); ++i)
      kept[i] = i;
  };
  if (devices.size() < 2 || min_share <= 0)
    return all();
  double total = 0;
  for (std::string_view d : devices) {
    const Entry *e = find(d);
    if (!e || !e->measured)
      return all(); // not every device measured yet
    total += e->throughput;
  }
  if (total <= 0)
    return all();
  kept.clear();
  for (size_t i = 0; i < devices.size(); ++i) {
    Entry &e = *find(devices[i]);
    // Left out until its retry: the others' rates change without it (a GPU
    // alone re-uploads what the CPU wrote, and looked slow enough to bring
    // the CPU back after one execution with a new scheduler at its initial
    // ratios: jacobi2d's fdets, traces-h200-2026-11-29-qb-named.tar.xz).
    if (e.dropped)
      continue;
    const double share = e.throughput / total;
    e.slow_streak = share >= min_share ? 0 : e.slow_streak + 1;
    if (e.slow_streak == 0)
      e.dropped_times = 0; // it pays for itself again
    if (e.slow_streak < 2) {
      kept.push_back(i);
      continue;
    }
    if (newly_left_out)
      newly_left_out->push_back({e.name, share});
    e.dropped = true;
    e.dropped_at = executions;
    ++e.dropped_times;
  }
  if (kept.empty())
    all();
}

} // namespace hce
