#pragma once
// HCE_MIN_SHARE for the papers' schedulers: a device whose measured share of
// a region's throughput stays below the minimum is left out of the region.
// One object per source region (SiteState::slow); hce-sim keeps one per
// simulated region, so both leave out the same devices.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hce {

// What a device can do: the fastest rate (iterations/second) among its
// chunks of at least half its largest chunk's size -- tiny chunks measure
// overheads, the first one also one-time costs such as pinning host
// memory.  0 if none.  `chunks` holds (iterations, seconds) per chunk.
double rate_of_large_chunks(const std::vector<std::pair<int64_t, double>> &chunks);

class SlowDevices {
public:
  // A device left out is tried again this many executions later, in case
  // the load changed; each time it is left out again in a row, twice as
  // many, up to kMaxRetryAfter (a retry costs a co-executed execution with
  // a fresh scheduler: lud's hguided paid 16x the CPU's sweep every 16).
  static constexpr int64_t kRetryAfter = 16;
  static constexpr int64_t kMaxRetryAfter = 256;
  // Executions a device left out `times` times in a row waits.
  static int64_t retry_after(int times);

  // The device's rate in an execution it worked in (not a site's first:
  // that one also places the data, and says little about the device).
  void measured(std::string_view device, double rate) {
    Entry &e = entry(device);
    e.throughput = rate;
    e.measured = true;
  }
  // A device that took part in such an execution (not planned idle) and got
  // no iteration: the others had done the work before it was ready (lud's
  // GPU under hguided, whose preparation outlasts the CPU's whole
  // execution).  It added nothing but its preparation: a share of 0.
  void got_nothing(std::string_view device) { measured(device, 0); }

  // Which of `devices` (names, in the region's order) run the execution
  // after `executions` earlier ones: those whose share of the measured
  // throughput is at least `min_share`, or was in one of the last two
  // executions (one preempted chunk on a busy machine does not cost a
  // device its place).  All of them until every device has been measured.
  // A device left out stays out until its retry_after() executions later.
  // Appends the devices left out for the first time to `newly_left_out`
  // (with their share) for the caller's notice.
  std::vector<size_t> keep(std::span<const std::string_view> devices, int64_t executions,
                           double min_share,
                           std::vector<std::pair<std::string, double>> *newly_left_out);
  // The same into `kept` (its storage kept: a region's every execution).
  void keep(std::span<const std::string_view> devices, int64_t executions,
            double min_share, std::vector<std::pair<std::string, double>> *newly_left_out,
            std::vector<size_t> &kept);
  std::vector<size_t> keep(const std::vector<std::string> &devices, int64_t executions,
                           double min_share,
                           std::vector<std::pair<std::string, double>> *newly_left_out);

private:
  // One per device seen, found by name (a region has a few devices: a
  // linear search, where four string-keyed maps cost ~1.8k instructions
  // an execution of a named scheduler, VM callgrind).
  struct Entry {
    std::string name;
    double throughput = 0; // last measured rate
    bool measured = false;
    int slow_streak = 0; // executions in a row below the share
    bool dropped = false;
    int64_t dropped_at = 0; // left out, at which execution
    int dropped_times = 0;  // left out in a row, retries between
  };
  std::vector<Entry> entries_;
  Entry *find(std::string_view device);
  Entry &entry(std::string_view device); // found or added
};

} // namespace hce
