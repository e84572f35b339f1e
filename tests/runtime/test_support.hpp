// Helpers shared by the runtime tests: a fresh runtime per environment,
// random data, and hand-written regions shaped like the translator's output.
#pragma once

#include "hce/hce.h"
#include "sched/scheduler.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace hce_test {

// Restarts the runtime with the given HCE_DEVICES / HCE_SIM (empty = unset),
// so one test binary can try several device sets.
inline void use_devices(const std::string &devices, const std::string &sim = "") {
  hce_finalize();
  if (devices.empty())
    unsetenv("HCE_DEVICES");
  else
    setenv("HCE_DEVICES", devices.c_str(), 1);
  if (sim.empty())
    unsetenv("HCE_SIM");
  else
    setenv("HCE_SIM", sim.c_str(), 1);
  unsetenv("HCE_SCHEDULE");
  unsetenv("HCE_CO");
}

// Sets an environment variable for a scope and restores its earlier value
// (or unsets it) on the way out, a failed ASSERT included.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  std::string name_, old_;
  bool had_ = false;
};

// Uniform random doubles in [-1, 1): never all zero.
inline std::vector<double> random_vector(size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto &x : v)
    x = dist(gen);
  return v;
}

// Assertions on what was learnt from measured times (shares, bytes moved by
// an adaptive partition) hold on an ordinary build; in the sanitizer builds
// (HCE_TEST_SANITIZED, tests/runtime/CMakeLists.txt) or with
// HCE_TEST_TIMING=off the slowdown is uneven across threads and they are
// skipped: correctness is still checked.
inline bool timing_checks() {
#if HCE_TEST_SANITIZED
  return false;
#else
  const char *v = std::getenv("HCE_TEST_TIMING");
  return !(v && std::string(v) == "off");
#endif
}

inline hce_map row_map(const char *name, void *host, int kind, int64_t n) {
  hce_map m{};
  m.name = name;
  m.host = host;
  m.elem_size = sizeof(double);
  m.kind = kind;
  m.scale = n;
  m.offset = 0;
  m.len = n;
  m.blocks = 1;
  m.stride = 0;
  return m;
}

// Simulated devices fast enough that every scheduler gives them a share.
constexpr const char *kFastSims = "sim=bw:1e12,lat:0,iter_time:1e-9";

// Every scheduler on the CPU and two simulated devices, and on the two
// simulated devices alone (whose chunks must then make up the whole
// result).
struct SchedConfig {
  std::string devices, schedule;
  // The simulated devices must have done work: always without the CPU, and
  // with static's equal shares (the adaptive schedulers may rightly give a
  // small problem to the CPU alone).
  bool sims_must_work() const {
    return devices.rfind("cpu", 0) != 0 || schedule == "static";
  }
  std::string label() const { return devices + " " + schedule; }
};

inline std::vector<SchedConfig> every_scheduler() {
  std::vector<SchedConfig> out;
  for (const char *devices : {"cpu,sim:0,sim:1", "sim:0,sim:1"})
    for (const std::string &s : hce::scheduler_names())
      if (s != "fdets_inc") // chosen by the runtime inside data regions
        out.push_back({devices, s});
  return out;
}

// The iterations sim:0 and sim:1 did in the site's last execution.
inline int64_t sim_iterations(void **site) {
  return hce_last_iterations(site, "sim:0") + hce_last_iterations(site, "sim:1");
}

// A region as the translator emits it: `maps`, the captured scalars `args`
// and the CPU variant; `schedule` must outlive it.
template <class Args>
hce_region region_of(const char *name, hce_map *maps, int num_maps, int64_t iters,
                     const Args &args, hce_cpu_variant cpu, void **site,
                     const std::string &schedule) {
  hce_region r{};
  r.name = name;
  r.schedule = schedule.c_str();
  r.iterations = iters;
  r.num_maps = num_maps;
  r.maps = maps;
  r.args = &args;
  r.args_size = sizeof args;
  r.cpu = cpu;
  r.site = site;
  return r;
}

// Fresh anonymous memory no page of exists yet (what malloc gives a large
// array the program has not touched), unmapped at the end of its scope.
struct FreshMapping {
  explicit FreshMapping(size_t n) : bytes(n) {
    p = static_cast<char *>(
        mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  }
  ~FreshMapping() {
    if (p != MAP_FAILED)
      munmap(p, bytes);
  }
  FreshMapping(const FreshMapping &) = delete;
  FreshMapping &operator=(const FreshMapping &) = delete;
  char *p;
  size_t bytes;
};

} // namespace hce_test
