// Every device named gets work (issue 15): with at least as many iterations
// as devices, every scheduler gives every device at least one iteration over
// a site's executions (the first one it takes part in), unless it
// deliberately leaves the device out (idle(), gave_nothing(): reported as
// left_out in HCE_STATS).  Later executions follow the papers' shares, 0
// included: forcing an iteration on a 500x slower device in every execution
// is what the papers avoid.  The H100 matrix found split and quick
// giving the CPU nothing at small W (few iterations: each step went to one
// device); these tests cover every scheduler at small W, in the simulator
// (devices that start late too) here and end to end in
// starvation_region_test.cpp.
#include "sched/common.hpp"
#include "sched_harness.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hce {
namespace {

using simtest::check_coverage;
using simtest::make_params;
using simtest::SimDevice;
using simtest::SimOptions;
using simtest::simulate;

std::vector<std::string> all_names() {
  std::vector<std::string> n = scheduler_names();
  n.push_back("fdets_inc");
  return n;
}

// The CPU, a fast accelerator with a per-chunk overhead, a slow one.
std::vector<SimDevice> three_devices() {
  return {SimDevice::constant(1e6, 2e-6, true), SimDevice::constant(8e6, 20e-6),
          SimDevice::constant(0.25e6, 10e-6)};
}

struct StarveCase {
  std::string name;
  bool lookahead;
};

class SchedNoStarvation : public ::testing::TestWithParam<StarveCase> {
protected:
  // Runs 4 executions of every W on one scheduler object; every device
  // must complete >= 1 iteration in the first, or be reported left out.
  void check(const std::vector<double> &start_at, const std::vector<double> &ratios) {
    const StarveCase &sc = GetParam();
    for (int64_t W : {3, 7, 64, 200}) {
      auto s = make_scheduler(sc.name);
      ASSERT_NE(s, nullptr);
      auto devs = three_devices();
      SimOptions opt;
      opt.lookahead = sc.lookahead;
      opt.start_at = start_at;
      opt.drop_idle = true;
      for (int exec = 0; exec < 4; ++exec) {
        auto params = make_params(W, devs, 0, 0.1, ratios, sc.lookahead);
        auto r = simulate(*s, params, devs, opt);
        const std::string where =
            sc.name + " W=" + std::to_string(W) + " exec=" + std::to_string(exec);
        ASSERT_EQ(check_coverage(r, W), "") << where;
        // Left out and reported: idle() before, gave_nothing() after.
        for (int d = 0; exec == 0 && d < 3; ++d)
          if (!r.idle[d] && !s->gave_nothing(d))
            EXPECT_GE(r.iterations[d], 1) << where << ": device " << d << " starved";
      }
    }
  }
};

TEST_P(SchedNoStarvation, EqualRatiosAllStartTogether) { check({}, {}); }

// A device whose first request comes late (controller woken late, image
// loaded at first use): the others must not take its last iteration.
TEST_P(SchedNoStarvation, OneDeviceStartsLate) {
  check({0, 0, 0.05}, {});
  check({0.05, 0, 0}, {});
}

// Skewed ratios (a ratio(...) clause): a small positive share still gets an
// iteration.
TEST_P(SchedNoStarvation, SkewedRatios) { check({}, {0.02, 0.96, 0.02}); }

std::vector<StarveCase> starve_cases() {
  std::vector<StarveCase> v;
  for (const std::string &n : all_names())
    for (bool la : {false, true})
      v.push_back({n, la});
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, SchedNoStarvation, ::testing::ValuesIn(starve_cases()),
                         [](const ::testing::TestParamInfo<StarveCase> &i) {
                           return i.param.name + (i.param.lookahead ? "_lookahead" : "");
                         });

// A user ratio of exactly 0 means no share: that device is not starved but
// excluded, and the others still each get an iteration.
TEST(SchedNoStarvation, ZeroRatioMeansNoShare) {
  for (const char *name : {"static", "quick", "split", "fdets"}) {
    auto s = make_scheduler(name);
    auto devs = three_devices();
    auto r = simulate(*s, make_params(7, devs, 0, 0.1, {0.5, 0.5, 0}), devs);
    ASSERT_EQ(check_coverage(r, 7), "") << name;
    EXPECT_EQ(r.iterations[2], 0) << name;
    EXPECT_GE(r.iterations[0], 1) << name;
    EXPECT_GE(r.iterations[1], 1) << name;
  }
}

// split at small W: every step has at least p iterations (equal steps), so
// no step is too small to split among the devices.
// Once every device has run at the site, the papers' shares apply again: a
// device far slower than the others gets nothing from fdets in later
// executions (not one forced iteration each time).
TEST(SchedNoStarvation, OnlyTheFirstExecutionForcesAnIteration) {
  auto s = make_scheduler("fdets");
  std::vector<SimDevice> devs = {SimDevice::constant(1e6, 2e-6, true),
                                 SimDevice::constant(1e3, 50e-6)};
  int64_t slow_total = 0, slow_later = 0;
  for (int exec = 0; exec < 6; ++exec) {
    auto r = simulate(*s, make_params(40, devs), devs);
    ASSERT_EQ(check_coverage(r, 40), "") << exec;
    slow_total += r.iterations[1];
    if (exec > 0)
      slow_later += r.iterations[1];
  }
  EXPECT_GE(slow_total, 1);
  EXPECT_LT(slow_later, 5) << "the slow device is handed work in every execution";
}

TEST(SchedNoStarvation, SplitStepsHoldEveryDevice) {
  auto s = make_scheduler("split");
  auto devs = three_devices();
  auto r = simulate(*s, make_params(64, devs), devs);
  ASSERT_EQ(check_coverage(r, 64), "");
  const auto &sync = dynamic_cast<const sched::SyncChunkScheduler &>(*s);
  ASSERT_FALSE(sync.rounds().empty());
  for (const sched::RoundRecord &rec : sync.rounds())
    EXPECT_GE(rec.size, 3) << "step at " << rec.lb;
  // The first step gives every device one iteration.
  EXPECT_EQ(sync.rounds()[0].shares, (std::vector<int64_t>{1, 1, 1}));
}

} // namespace
} // namespace hce
