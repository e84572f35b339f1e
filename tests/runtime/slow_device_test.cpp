// "A device too slow to help (its share below what the overheads cost) is
// dropped, so co-execution is never slower than the best device"
// (BRIEF §3).  cpu + sim:0 where sim:0 runs at 1/100 of the CPU's speed: the
// adaptive schedulers must give sim:0 almost nothing, and the co-executed
// region must take about as long as the CPU alone.
//
// Timing on a 2-core CI VM is noisy, so each side is the minimum of eight
// interleaved runs, and the tolerance is 1.15x rather than the 1.05x the
// requirement implies.  Measured on the 2-core VM under build load (load
// average 6-9): two *identical* CPU-only configurations differed by up to 5%
// (minimum of three runs) and 3.5% (minimum of five); with a runtime that
// does drop the slow device, this test's ratio ranged over 0.86x-1.11x, so
// 1.05x or 1.10x would flake even when the requirement is met.  Without the
// drop (sim:0 kept at ~1-2% of the iterations, near its break-even share of
// 1/101) the ratio ranged over 0.92x-1.64x, so the timing check alone
// catches a missing drop only part of the time; the deterministic check is
// that after learning (the last execution of the site) sim:0 runs at most
// 0.1% of the iterations (room for a probe chunk), besides the brief's <3%
// over all executions.  The co-executed runs use the same site, so the
// later ones can use what the scheduler learnt in the first, as the papers'
// schedulers do.
//
// The variant is deliberately sequential (no `omp parallel for`): with one
// accelerator the CPU device's team is one thread smaller, which on a 2-core
// machine would halve the CPU's speed whatever the scheduler does; this test
// is about the scheduling decision only.
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kInner = 400; // work per iteration

// out[k] = sum_j sin(in[k] * j) / (j + 1): ~5-10 us per iteration.
void heavy_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *,
               void *) {
  const double *in = static_cast<const double *>(ptrs[0]);
  double *out = static_cast<double *>(ptrs[1]);
  for (int64_t k = lb; k < ub; ++k) {
    double s = 0;
    for (int j = 0; j < kInner; ++j)
      s += std::sin(in[k] * j) / (j + 1);
    out[k] = s;
  }
}

double heavy_ref(double x) {
  double s = 0;
  for (int j = 0; j < kInner; ++j)
    s += std::sin(x * j) / (j + 1);
  return s;
}

struct Heavy {
  int64_t W;
  std::vector<double> in, out;
  hce_map maps[2];
  void *site = nullptr;
  hce_region region{};

  Heavy(int64_t w, const char *schedule)
      : W(w), in(hce_test::random_vector(size_t(w), 17)), out(size_t(w), 0) {
    maps[0] = {"in", in.data(), sizeof(double), HCE_MAP_TO, 1, 0, 1, 1, 0};
    maps[1] = {"out", out.data(), sizeof(double), HCE_MAP_FROM, 1, 0, 1, 1, 0};
    region.name = "heavy";
    region.schedule = schedule;
    region.iterations = W;
    region.num_maps = 2;
    region.maps = maps;
    region.cpu = heavy_cpu;
    region.site = &site;
  }
  // Seconds of one execution (checked for correctness).
  double run() {
    std::fill(out.begin(), out.end(), 0.0);
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(hce_co_exec(&region), 0);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                   .count();
    for (int64_t k = 0; k < W; k += 97)
      EXPECT_EQ(out[size_t(k)], heavy_ref(in[size_t(k)])) << "element " << k;
    return s;
  }
};

// Sized for ~50-200 ms on one core of the CI VM (measured: see the output).
constexpr int64_t kW = 12000;
constexpr double kTolerance = 1.15;
constexpr double kMaxSlowShare = 0.03;      // over all executions
constexpr double kMaxSlowShareLast = 0.001; // after learning: dropped
constexpr int kRuns = 8; // the slow device is left out from the 4th run on

void expect_slow_device_dropped(const char *schedule) {
  // One runtime with both devices; the baseline region is restricted to the
  // CPU by its devices(...) clause, so baseline and co-executed runs can be
  // interleaved and load spikes on the VM hit both alike.
  hce_test::use_devices("cpu,sim:0", "sim:0=speed:0.01,bw:1e11,lat:0");
  Heavy alone(kW, schedule), co(kW, schedule);
  alone.region.name = "heavy_cpu_only";
  alone.region.devices = "cpu";
  alone.run(); // warm-up (page faults, libm, OpenMP start)
  double cpu_best = 1e30, co_best = 1e30;
  int64_t slow_total = 0, slow_last = 0;
  std::vector<double> times;
  for (int r = 0; r < kRuns; ++r) {
    cpu_best = std::min(cpu_best, alone.run());
    EXPECT_EQ(hce_last_iterations(&alone.site, "cpu"), kW);
    double t = co.run();
    times.push_back(t);
    co_best = std::min(co_best, t);
    slow_last = hce_last_iterations(&co.site, "sim:0");
    slow_total += slow_last;
    EXPECT_EQ(hce_last_iterations(&co.site, "cpu") + slow_last, kW);
  }
  hce_finalize();

  std::string list;
  for (double t : times)
    list += (list.empty() ? "" : " / ") + std::to_string(int(t * 1e3 + 0.5));
  std::printf("[ %-7s ] cpu alone best %.1f ms; cpu+sim:0 (speed 0.01) %s ms, "
              "best %.2fx the CPU alone; sim:0 ran %lld of %lld iterations "
              "over %d runs, %lld in the last\n",
              schedule, cpu_best * 1e3, list.c_str(), co_best / cpu_best,
              static_cast<long long>(slow_total),
              static_cast<long long>(kRuns * kW), kRuns,
              static_cast<long long>(slow_last));
  EXPECT_LT(double(slow_total), kMaxSlowShare * double(kRuns * kW))
      << "a device 100x slower than the CPU got too many iterations";
  EXPECT_LE(double(slow_last), kMaxSlowShareLast * double(kW))
      << "after learning (last execution) a device 100x slower than the CPU "
         "should be dropped";
  // Wall-time comparisons fail whenever something else runs on a 2-core
  // machine (seen: 1.33x while a compiler ran beside the test), so CI
  // asserts the scheduling decisions above and this only when asked
  // (HCE_TIMING_TESTS=1, e.g. on an idle or larger machine); the measured
  // ratio is printed either way and recorded in docs/benchmarks.md.
  if (std::getenv("HCE_TIMING_TESTS"))
    EXPECT_LE(co_best, kTolerance * cpu_best)
        << "co-execution with a useless device is slower than the CPU alone: "
        << co_best * 1e3 << " ms vs " << cpu_best * 1e3 << " ms";
}

TEST(SlowDevice, FdetsDropsADeviceTooSlowToHelp) {
  expect_slow_device_dropped("fdets");
}

TEST(SlowDevice, AdetsDropsADeviceTooSlowToHelp) {
  expect_slow_device_dropped("adets");
}

TEST(SlowDevice, HguidedDropsADeviceTooSlowToHelp) {
  expect_slow_device_dropped("hguided");
}

} // namespace
