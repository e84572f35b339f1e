// One run of a benchmark program under one configuration, as the runtime
// executes it: the regions in program order (an iterative benchmark
// alternates its regions), one scheduler per region kept across its
// executions (a call site's), created at the region's first execution and
// seeded from the profile store, which every execution then feeds
// (runtime/src/profile/profile_hook.cpp: seed, record_execution,
// record_mode; the store is the runtime's own profile::Store).
#pragma once

#include "loop_sim.hpp"
#include "profile/profile_store.hpp"
#include "sim_profile.hpp"

#include <string>
#include <vector>

namespace hce::sim {

struct Config {
  std::string label, schedule;
  std::vector<std::string> devices; // "cpu", "gpu"
  bool profile = true;              // false: HCE_PROFILE=off
  bool co = true;                   // false: HCE_CO=off (residency.hpp)
};

// One execution, for --explain.
struct ExecutionLog {
  std::string region;
  int execution = 0;
  int64_t iterations = 0;
  std::string decision; // Scheduler::explain()
  std::vector<std::string>
      names; // the devices that ran it (HCE_MIN_SHARE leaves some out)
  std::vector<DeviceRun> devices;
  double wall = 0, bytes = 0;
};

struct RunResult {
  double seconds = 0; // sum of the regions' wall times (what suite.py sums)
  double bytes = 0;   // moved between host and GPU
  std::vector<ExecutionLog> log;
};

// `profile` is the per-user profile cache's file ("": none): loaded at the
// program's start and saved (merged) at its end, as the runtime does
// (profile::Store::load/save); with cfg.profile false it is not used.
// `stalls` slow a device's chunks for a while of the program's virtual time
// (each run of the program sees them at the same times).
RunResult run_program(const Machine &m, const Bench &b, const Config &cfg,
                      const std::string &profile, const std::vector<Stall> &stalls = {});

} // namespace hce::sim
