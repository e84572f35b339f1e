// Helpers shared by the runtime tests: a fresh runtime per environment,
// random data, and hand-written regions shaped like the translator's output.
#pragma once

#include "hce/hce.h"

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

} // namespace hce_test
