// Every scheduler, every device count 1..4, degenerate and large W: every
// iteration is handed out exactly once, nobody deadlocks -- also with the
// pipelined lookahead, on re-execution, and when devices are dropped.
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

// Heterogeneous devices: a host and accelerators of growing speed, with a
// per-chunk overhead so that chunk size matters.
std::vector<SimDevice> mixed_devices(int p) {
  std::vector<SimDevice> d;
  for (int i = 0; i < p; ++i)
    d.push_back(SimDevice::constant(1e6 * (1 + 3 * i), 1e-5 * i, i == 0));
  return d;
}

TEST(SchedRegistry, NamesAndFactory) {
  const std::vector<std::string> want = {"static", "quick", "split", "hguided", "logfit",
                                         "fdets",  "adets", "eft",   "auto",  "profile"};
  EXPECT_EQ(scheduler_names(), want);
  for (const std::string &n : all_names()) {
    auto s = make_scheduler(n);
    ASSERT_NE(s, nullptr) << n;
    EXPECT_EQ(s->name(), n);
  }
  EXPECT_EQ(make_scheduler("nope"), nullptr);
  EXPECT_EQ(make_scheduler(""), nullptr);
}

struct CoverageCase {
  std::string name;
  bool lookahead;
};

class SchedCoverage : public ::testing::TestWithParam<CoverageCase> {};

TEST_P(SchedCoverage, EveryIterationOnce) {
  const CoverageCase &cc = GetParam();
  for (int p = 1; p <= 4; ++p) {
    const std::vector<int64_t> sizes = {0,    1,     p - 1,        p,
                                        1000, 12345, 1'000'000'000};
    for (int64_t W : sizes) {
      auto s = make_scheduler(cc.name);
      ASSERT_NE(s, nullptr);
      auto devs = mixed_devices(p);
      SimOptions opt;
      opt.lookahead = cc.lookahead;
      // Three executions on the same object: the learning paths too.
      for (int exec = 0; exec < 3; ++exec) {
        auto params = make_params(W, devs, 0, 0.1, {}, cc.lookahead);
        auto r = simulate(*s, params, devs, opt);
        EXPECT_EQ(check_coverage(r, W), "")
            << cc.name << " p=" << p << " W=" << W << " exec=" << exec;
        if (W == 0)
          EXPECT_TRUE(r.chunks.empty()) << cc.name;
      }
    }
  }
}

TEST_P(SchedCoverage, HugeIterationSpace) {
  const CoverageCase &cc = GetParam();
  const int64_t W = 1'000'000'000'000; // 1e12
  for (int p : {1, 3}) {
    auto s = make_scheduler(cc.name);
    auto devs = mixed_devices(p);
    SimOptions opt;
    opt.lookahead = cc.lookahead;
    for (int exec = 0; exec < 2; ++exec) {
      auto r = simulate(*s, make_params(W, devs, 0, 0.1, {}, cc.lookahead),
                        devs, opt);
      EXPECT_EQ(check_coverage(r, W), "") << cc.name << " p=" << p;
      EXPECT_LT(r.chunks.size(), 100000u) << cc.name;
    }
  }
}

TEST_P(SchedCoverage, GivenRatiosAndChunk) {
  const CoverageCase &cc = GetParam();
  auto devs = mixed_devices(3);
  for (int64_t chunk : {1, 7, 5000, 200000}) {
    auto s = make_scheduler(cc.name);
    auto params =
        make_params(30000, devs, chunk, 0.2, {0.1, 0.0, 0.9}, cc.lookahead);
    SimOptions opt;
    opt.lookahead = cc.lookahead;
    for (int exec = 0; exec < 2; ++exec) {
      auto r = simulate(*s, params, devs, opt);
      EXPECT_EQ(check_coverage(r, 30000), "") << cc.name << " chunk=" << chunk;
    }
  }
}

// Irregular, per-chunk varying speeds (deterministic pseudo-random).
TEST_P(SchedCoverage, VaryingSpeeds) {
  const CoverageCase &cc = GetParam();
  uint64_t seed = 12345;
  auto rnd = [&] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>((seed >> 33) % 1000) / 1000.0;
  };
  for (int p = 1; p <= 4; ++p) {
    std::vector<SimDevice> devs;
    for (int i = 0; i < p; ++i) {
      std::vector<double> v;
      for (int k = 0; k < 64; ++k)
        v.push_back(1e5 * (1 + 10 * rnd()) * (i + 1));
      devs.push_back(SimDevice::per_chunk(v, 1e-4 * rnd()));
    }
    auto s = make_scheduler(cc.name);
    SimOptions opt;
    opt.lookahead = cc.lookahead;
    for (int exec = 0; exec < 2; ++exec) {
      auto r = simulate(*s, make_params(54321, devs, 0, 0.1, {}, cc.lookahead),
                        devs, opt);
      EXPECT_EQ(check_coverage(r, 54321), "") << cc.name << " p=" << p;
    }
  }
}

TEST_P(SchedCoverage, DropMidWay) {
  const CoverageCase &cc = GetParam();
  const int64_t W = 100000;
  for (int p = 2; p <= 4; ++p) {
    auto devs = mixed_devices(p);
    auto params = make_params(W, devs, 0, 0.1, {}, cc.lookahead);
    SimOptions base;
    base.lookahead = cc.lookahead;
    double span;
    {
      auto s = make_scheduler(cc.name);
      span = simulate(*s, params, devs, base).makespan;
    }
    for (int victim = 0; victim < p; ++victim) {
      for (double when : {0.0, span * 0.01, span * 0.3, span * 0.9}) {
        auto s = make_scheduler(cc.name);
        SimOptions opt = base;
        opt.drops = {{victim, when}};
        auto r = simulate(*s, params, devs, opt);
        EXPECT_EQ(check_coverage(r, W), "")
            << cc.name << " p=" << p << " drop " << victim << " at " << when;
        // The dropped device gets nothing after the drop.
        for (const auto &c : r.chunks)
          if (c.device == victim)
            EXPECT_LE(c.issued, when) << cc.name;
        // And the same object still works in the next execution.
        auto r2 = simulate(*s, params, devs, base);
        EXPECT_EQ(check_coverage(r2, W), "") << cc.name << " re-execution";
      }
    }
    // All but the last device dropped at different times.
    auto s = make_scheduler(cc.name);
    SimOptions opt = base;
    for (int victim = 0; victim + 1 < p; ++victim)
      opt.drops.push_back({victim, span * 0.2 * (victim + 1)});
    auto r = simulate(*s, params, devs, opt);
    EXPECT_EQ(check_coverage(r, W), "") << cc.name << " p=" << p;
  }
}

std::vector<CoverageCase> cases() {
  std::vector<CoverageCase> c;
  for (const std::string &n : all_names()) {
    c.push_back({n, false});
    c.push_back({n, true});
  }
  return c;
}

INSTANTIATE_TEST_SUITE_P(
    All, SchedCoverage, ::testing::ValuesIn(cases()),
    [](const ::testing::TestParamInfo<CoverageCase> &info) {
      return info.param.name + (info.param.lookahead ? "_lookahead" : "");
    });

} // namespace
} // namespace hce
