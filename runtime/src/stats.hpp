// Per-region statistics (HCE_STATS) and their table / JSON forms.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hce {

// "1.50 MiB": a byte count as the statistics and the trace print it.
std::string fmt_bytes(uint64_t bytes);

struct DeviceStats {
  int64_t iterations = 0;
  int64_t chunks = 0;
  double busy_seconds = 0;
  double last_finish = 0; // seconds since the execution started (last one)
  uint64_t bytes_to_device = 0;
  uint64_t bytes_from_device = 0;
  uint64_t bytes_peer = 0;    // received straight from another device
  uint64_t bytes_avoided = 0; // footprint bytes already valid, not moved
  // Of busy_seconds: chunks waiting for copies in the background to land
  // (TransferCounts::background_wait).
  double background_wait_seconds = 0;
  int64_t last_iterations = 0; // in the last execution
  // Executions in which the scheduler planned to give it nothing (eft: too
  // slow to help), so it was not even woken: 0 iterations by choice, not a
  // failure or a missing device.
  int64_t left_out = 0;
};

struct RegionStats {
  std::string schedule;
  std::string choice; // what the scheduler chose last time and why (auto)
  int64_t executions = 0;
  int64_t iterations = 0;
  double wall_seconds = 0;
  // EngineCL's balance of the last execution: first / last device finish.
  double balance = 1.0;
  std::vector<std::string> device_order;
  std::map<std::string, DeviceStats> devices;
  DeviceStats &device(const std::string &name) {
    auto [it, fresh] = devices.try_emplace(name);
    if (fresh)
      device_order.push_back(name);
    return it->second;
  }
  // The same by the runtime's device index: each name looked up once per
  // site, not per device at every execution (lud's 511).
  DeviceStats &device(int index, const std::string &name) {
    std::vector<DeviceStats *> &p = by_index_.p;
    if (size_t(index) >= p.size())
      p.resize(size_t(index) + 1, nullptr);
    if (!p[size_t(index)])
      p[size_t(index)] = &device(name); // (a map's elements stay put)
    return *p[size_t(index)];
  }

private:
  // Pointers into `devices`: a copy starts without them.
  struct IndexCache {
    std::vector<DeviceStats *> p;
    IndexCache() = default;
    IndexCache(const IndexCache &) {}
    IndexCache &operator=(const IndexCache &) {
      p.clear();
      return *this;
    }
  } by_index_;
};

// A site's statistics as a report reads them: a copy, taken while no
// execution of the site changes them (Runtime::named_stats).
struct NamedStats {
  std::string name;
  RegionStats stats;
};

std::string stats_table(const std::vector<NamedStats> &regions);
std::string stats_json(const std::vector<NamedStats> &regions);
// Acts on HCE_STATS: "1" prints the table to stderr, anything else is a
// path the JSON is written to.
void report_stats_from_env(const std::vector<NamedStats> &regions);

} // namespace hce
