// The profile model's partition (runtime/src/profile/profile_plan.*) against
// hand-computed values, and the `profile` scheduler (sched/profile.cpp) and
// `auto`'s refusal of it, driven by the discrete-event harness with
// scripted device speeds: after one execution recorded in the store, the
// next is split by the measured speeds.
#include "profile/profile_plan.hpp"
#include "profile/profile_sched.hpp"
#include "sched/common.hpp"
#include "sched_harness.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace {

using hce::Range;
using hce::profile::DeviceModel;
using hce::profile::Plan;
using hce::profile::PlanOptions;
using hce::profile::ProfileContext;
using hce::profile::Sample;
using hce::profile::Store;
namespace simtest = hce::simtest;

Sample S(int64_t it, double exec, double xfer = 0) {
  Sample s;
  s.iterations = it;
  s.exec_s = exec;
  s.xfer_s = xfer;
  return s;
}

DeviceModel M(std::vector<Sample> samples, int64_t cap = 0, bool host = false,
              std::string name = "dev") {
  DeviceModel d;
  d.name = std::move(name);
  d.samples = std::move(samples);
  d.max_iterations = cap;
  d.is_host = host;
  return d;
}

// Every iteration of [0, W) in exactly one range, ranges within caps.
void expect_layout(const Plan &plan, int64_t W, const std::vector<int64_t> &caps = {}) {
  std::vector<Range> all;
  for (size_t d = 0; d < plan.ranges.size(); ++d) {
    int64_t sum = 0;
    for (const Range &r : plan.ranges[d]) {
      EXPECT_FALSE(r.empty());
      if (d < caps.size() && caps[d] > 0)
        EXPECT_LE(r.size(), caps[d]) << "device " << d;
      sum += r.size();
      all.push_back(r);
    }
    EXPECT_EQ(sum, plan.shares[d]) << "device " << d;
  }
  std::sort(all.begin(), all.end(),
            [](const Range &a, const Range &b) { return a.lb < b.lb; });
  int64_t at = 0;
  for (const Range &r : all) {
    EXPECT_EQ(r.lb, at);
    at = r.ub;
  }
  EXPECT_EQ(at, W);
}

TEST(ProfilePlan, PredictChargesEveryMemoryBoundRange) {
  // T(w) = 0.5 + 0.01 w from (100, 1.5) and (200, 2.5); memory bound 150:
  // 400 iterations = ranges of 150, 150, 100 = 2.0 + 2.0 + 1.5 s.
  DeviceModel d = M({S(100, 1.0, 0.5), S(200, 2.0, 0.5)}, 150);
  EXPECT_DOUBLE_EQ(hce::profile::predict(d, 400), 5.5);
  EXPECT_DOUBLE_EQ(hce::profile::predict(d, 150), 2.0);
  EXPECT_DOUBLE_EQ(hce::profile::predict(d, 300), 4.0);
  EXPECT_DOUBLE_EQ(hce::profile::predict(d, 0), 0.0);
  d.max_iterations = 0; // no bound: one range
  EXPECT_DOUBLE_EQ(hce::profile::predict(d, 400), 4.5);
  EXPECT_TRUE(std::isinf(hce::profile::predict(M({}), 1)));
}

TEST(ProfilePlan, SplitRangesAtTheMemoryBound) {
  auto r = hce::profile::split_ranges({10, 360}, 100);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], (Range{10, 110}));
  EXPECT_EQ(r[1], (Range{110, 210}));
  EXPECT_EQ(r[2], (Range{210, 310}));
  EXPECT_EQ(r[3], (Range{310, 360}));
  EXPECT_EQ(hce::profile::split_ranges({0, 50}, 0).size(), 1u);
  EXPECT_EQ(hce::profile::split_ranges({5, 5}, 10).size(), 0u);
}

TEST(ProfilePlan, SharesFollowTheMeasuredSpeeds) {
  // 1 ms / iteration vs 1/3 ms: 1:3.
  Plan p =
      hce::profile::plan_from_model(10000, {M({S(1000, 1.0)}), M({S(1000, 1.0 / 3)})});
  ASSERT_TRUE(p.from_model);
  EXPECT_NEAR(p.shares[0], 2500, 1);
  EXPECT_NEAR(p.shares[1], 7500, 1);
  EXPECT_NEAR(p.makespan, 2.5, 0.002);
  expect_layout(p, 10000);
  // Speeds 1:2:5, with transfer time part of the cost: 1250/2500/6250.
  Plan q = hce::profile::plan_from_model(
      10000, {M({S(1000, 0.8, 0.2)}), M({S(1000, 0.4, 0.1)}), M({S(1000, 0.1, 0.1)})});
  EXPECT_NEAR(q.shares[0], 1250, 1);
  EXPECT_NEAR(q.shares[1], 2500, 1);
  EXPECT_NEAR(q.shares[2], 6250, 1);
  expect_layout(q, 10000);
  // A fixed cost per execution (0.5 s) on the fast device shifts work to
  // the slow one: 0.001 a = 0.5 + 0.0005 (W - a) -> a = 3667 of 10000.
  Plan r = hce::profile::plan_from_model(
      10000, {M({S(1000, 1.0), S(2000, 2.0)}), M({S(1000, 1.0), S(2000, 1.5)})});
  EXPECT_NEAR(r.shares[0], 3667, 1);
  EXPECT_NEAR(r.shares[1], 6333, 1);
}

TEST(ProfilePlan, GridPlanWithoutRefinement) {
  PlanOptions opt;
  opt.refine = false;
  opt.num_rates = 20;
  // 1:2 is not on the grid of 1/20: the grid plan takes multiples of 500.
  std::vector<DeviceModel> devs = {M({S(1000, 1.0)}), M({S(1000, 0.5)})};
  Plan g = hce::profile::plan_from_model(10000, devs, opt);
  EXPECT_EQ(g.shares[0] % 500, 0);
  EXPECT_EQ(g.shares[0] + g.shares[1], 10000);
  EXPECT_NEAR(g.makespan, 3.5, 1e-9); // 0.30/0.70 or 0.35/0.65: 3.5 s
  Plan f = hce::profile::plan_from_model(10000, devs);
  EXPECT_NEAR(f.shares[0], 3333, 1);
  EXPECT_LT(f.makespan, g.makespan);
}

TEST(ProfilePlan, TenPercentThresholdKeepsEverythingOnTheCpu) {
  // The accelerator is 20x slower: its best share (1/21 < 10%) is ignored.
  Plan p = hce::profile::plan_from_model(
      10000, {M({S(1000, 1.0)}, 0, true, "cpu"), M({S(1000, 20.0)})});
  EXPECT_EQ(p.shares[0], 10000);
  EXPECT_EQ(p.shares[1], 0);
  EXPECT_NE(p.note.find("10% threshold"), std::string::npos) << p.note;
  // 4x slower: 20% > 10%, kept.
  Plan q = hce::profile::plan_from_model(
      10000, {M({S(1000, 1.0)}, 0, true, "cpu"), M({S(1000, 4.0)})});
  EXPECT_NEAR(q.shares[1], 2000, 1);
  // Without a host device the rule does not apply.
  Plan r = hce::profile::plan_from_model(10000, {M({S(1000, 1.0)}), M({S(1000, 20.0)})});
  EXPECT_NEAR(r.shares[1], 476, 1);
}

TEST(ProfilePlan, MemoryBoundRangesCostTheirOverheads) {
  // A: 1 ms/it.  B: the same speed plus 0.1 s per range, memory bound 500.
  // Equal finish: 0.001 a = 0.1 k + 0.001 (2000 - a) with k = 2 ranges:
  // a = 1100, B = 900 as [1100, 1600) + [1600, 2000).
  std::vector<DeviceModel> devs = {M({S(1000, 1.0)}),
                                   M({S(100, 0.2), S(1000, 1.1)}, 500)};
  Plan p = hce::profile::plan_from_model(2000, devs);
  EXPECT_NEAR(p.shares[0], 1100, 1);
  EXPECT_NEAR(p.shares[1], 900, 1);
  ASSERT_EQ(p.ranges[1].size(), 2u);
  EXPECT_EQ(p.ranges[1][0].size(), 500);
  expect_layout(p, 2000, {0, 500});
  EXPECT_NEAR(p.makespan, 1.1, 0.002);
}

TEST(ProfilePlan, UnprofiledDevicesGetNothing) {
  Plan p = hce::profile::plan_from_model(1000, {M({S(100, 1.0)}), M({})});
  EXPECT_EQ(p.shares[0], 1000);
  EXPECT_EQ(p.shares[1], 0);
  Plan none = hce::profile::plan_from_model(1000, {M({}), M({})});
  EXPECT_EQ(none.shares[0] + none.shares[1], 1000);
}

TEST(ProfilePlan, ManyDevicesStayTractable) {
  std::vector<DeviceModel> devs;
  for (int d = 0; d < 8; ++d)
    devs.push_back(M({S(1000, 1.0 / (d + 1))}));
  Plan p = hce::profile::plan_from_model(360000, devs);
  // Speeds 1..8 (sum 36): device d gets (d + 1) * 10000.
  for (int d = 0; d < 8; ++d)
    EXPECT_NEAR(p.shares[size_t(d)], (d + 1) * 10000, 2) << d;
  expect_layout(p, 360000);
}

// Random samples (sorted, distinct sizes) with a stall now and then: the
// planner reads each device's samples for stalls once per plan, and must
// predict what predict() does (which reads them at every call).
std::vector<Sample> random_samples(std::mt19937 &rng, int n) {
  std::uniform_int_distribution<int64_t> gap(1, 400);
  std::uniform_real_distribution<double> rate(1e-6, 5e-6), fixed(1e-5, 1e-4), u(0, 1);
  std::vector<Sample> v;
  int64_t it = 0;
  for (int i = 0; i < n; ++i) {
    it += gap(rng);
    Sample s = S(it, fixed(rng) + rate(rng) * double(it), 1e-6 * u(rng));
    if (u(rng) < 0.15)
      s.exec_s *= 10; // a stall: implausibly slow
    s.weight = 1 + std::floor(3 * u(rng));
    v.push_back(s);
  }
  return v;
}

TEST(ProfilePlan, PlannerPredictsWhatPredictDoesWithStalledSamples) {
  std::mt19937 rng(12);
  for (int round = 0; round < 40; ++round) {
    const int64_t cap = round % 4 == 0 ? 700 : 0;
    std::vector<DeviceModel> devs;
    for (int d = 0; d < 3; ++d)
      devs.push_back(M(random_samples(rng, 2 + round % 30), cap, d == 0));
    const int64_t W = 1 + int64_t(rng() % 20000);
    Plan p = hce::profile::plan_from_model(W, devs);
    ASSERT_EQ(p.predicted.size(), devs.size());
    double makespan = 0;
    for (size_t d = 0; d < devs.size(); ++d) {
      EXPECT_DOUBLE_EQ(p.predicted[d], hce::profile::predict(devs[d], p.shares[d]))
          << "round " << round << " device " << d;
      makespan = std::max(makespan, p.predicted[d]);
    }
    EXPECT_DOUBLE_EQ(p.makespan, makespan);
    expect_layout(p, W, {cap, cap, cap});
  }
}

// interpolate() against the definition (docs in profile_store.hpp) written
// out the slow way: every segment scanned, every sample checked for the
// measurement count.
TEST(ProfileStore, InterpolateMatchesALinearScan) {
  std::mt19937 rng(5);
  for (int round = 0; round < 30; ++round) {
    const std::vector<Sample> v =
        hce::profile::plausible_samples(random_samples(rng, 1 + round % 32));
    const int64_t top = v.back().iterations;
    for (int64_t w = 1; w <= top + 50; w += 1 + w / 40) {
      auto e = hce::profile::interpolate_plausible(v, w);
      ASSERT_TRUE(e.has_value());
      double want = 0;
      if (v.size() == 1) {
        want = v[0].exec_s * double(w) / double(v[0].iterations);
      } else if (w >= v.front().iterations && w <= top) {
        size_t hi = 1;
        while (hi < v.size() - 1 && v[hi].iterations < w)
          ++hi;
        const Sample &a = v[hi - 1], &b = v[hi];
        want = std::max(0.0, a.exec_s + (b.exec_s - a.exec_s) * double(w - a.iterations) /
                                            double(b.iterations - a.iterations));
      }
      if (v.size() == 1 || (w >= v.front().iterations && w <= top))
        EXPECT_DOUBLE_EQ(e->exec_s, want) << "w " << w;
      double measurements = 0;
      for (const Sample &s : v)
        if (std::fabs(double(s.iterations - w)) <=
            hce::profile::kMergeTolerance * double(std::max(s.iterations, w)))
          measurements = s.weight;
      EXPECT_EQ(e->measurements, measurements) << "w " << w;
    }
  }
}

TEST(ProfilePlan, OneDeviceTakesEverythingWithoutASearch) {
  Plan p = hce::profile::plan_from_model(5000, {M({S(100, 1.0), S(1000, 4.0)}, 2000)});
  ASSERT_EQ(p.shares.size(), 1u);
  EXPECT_EQ(p.shares[0], 5000);
  EXPECT_EQ(p.note, "one device");
  EXPECT_DOUBLE_EQ(p.predicted[0],
                   hce::profile::predict(M({S(100, 1.0), S(1000, 4.0)}, 2000), 5000));
  expect_layout(p, 5000, {2000});
}

// ---- the scheduler ----

ProfileContext context(const Store &store, const std::string &region, int p,
                       std::vector<int64_t> caps = {}) {
  ProfileContext ctx;
  ctx.region = region;
  for (int d = 0; d < p; ++d)
    ctx.devices.push_back("sim:" + std::to_string(d));
  ctx.max_iterations = caps.empty() ? std::vector<int64_t>(size_t(p), 0) : caps;
  ctx.store = &store;
  return ctx;
}

// Records one simulated execution the way profile::record_execution does.
void record(Store &store, const ProfileContext &ctx, const simtest::SimResult &res) {
  std::vector<double> secs(ctx.devices.size(), 0.0);
  for (const simtest::SimChunk &c : res.chunks)
    if (c.completed)
      secs[size_t(c.device)] += c.end - c.start;
  for (size_t d = 0; d < ctx.devices.size(); ++d)
    if (res.iterations[d] > 0)
      store.record(ctx.region, ctx.devices[d], S(res.iterations[d], secs[d]));
}

TEST(ProfileSched, RegisteredByName) {
  auto s = hce::make_scheduler("profile");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name(), "profile");
  const auto &names = hce::scheduler_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "profile"), names.end());
}

TEST(ProfileSched, ConvergesToTheMeasuredRatiosAfterOneRun) {
  Store store;
  ProfileContext ctx = context(store, "converge", 2);
  auto s = hce::make_scheduler("profile");
  hce::profile::set_context(*s, ctx);
  // sim:1 is 4x faster.
  std::vector<simtest::SimDevice> devs = {simtest::SimDevice::constant(1e6),
                                          simtest::SimDevice::constant(4e6)};
  auto params = simtest::make_params(100000, devs);
  testing::internal::CaptureStderr();
  auto first = simtest::simulate(*s, params, devs);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("region converge: schedule(profile) has no profile for "
                     "sim:0, sim:1 yet"),
            std::string::npos)
      << err;
  ASSERT_EQ(simtest::check_coverage(first, 100000), "");
  EXPECT_EQ(first.iterations, (std::vector<int64_t>{50000, 50000}));
  ASSERT_TRUE(hce::profile::plan_of(*s));
  EXPECT_FALSE(hce::profile::plan_of(*s)->from_model);
  record(store, ctx, first);

  auto second = simtest::simulate(*s, params, devs);
  ASSERT_EQ(simtest::check_coverage(second, 100000), "");
  EXPECT_NEAR(second.iterations[0], 20000, 1);
  EXPECT_NEAR(second.iterations[1], 80000, 1);
  EXPECT_TRUE(hce::profile::plan_of(*s)->from_model);
  EXPECT_EQ(second.sizes(0).size(), 1u); // one range each: no memory bound
  EXPECT_LT(second.makespan, 0.45 * first.makespan);
  auto r = s->current_ratios();
  EXPECT_NEAR(r[1], 0.8, 1e-4);
}

TEST(ProfileSched, RangesRespectTheMemoryBound) {
  Store store;
  store.record("caps", "sim:0", S(1000, 1e-3));
  store.record("caps", "sim:1", S(1000, 0.25e-3));
  ProfileContext ctx = context(store, "caps", 2, {0, 7000});
  auto s = hce::make_scheduler("profile");
  hce::profile::set_context(*s, ctx);
  std::vector<simtest::SimDevice> devs = {simtest::SimDevice::constant(1e6),
                                          simtest::SimDevice::constant(4e6)};
  auto res = simtest::simulate(*s, simtest::make_params(100000, devs), devs);
  ASSERT_EQ(simtest::check_coverage(res, 100000), "");
  EXPECT_NEAR(res.iterations[1], 80000, 1);
  auto sizes = res.sizes(1);
  ASSERT_EQ(sizes.size(), 12u); // ceil(80000 / 7000)
  for (int64_t n : sizes)
    EXPECT_LE(n, 7000);
}

TEST(ProfileSched, CoverageWithDropsCapsAndLookahead) {
  std::mt19937 gen(7);
  for (int p = 1; p <= 4; ++p)
    for (int64_t W : {int64_t(0), int64_t(1), int64_t(3), int64_t(1000), int64_t(12345)})
      for (bool profiled : {false, true})
        for (bool lookahead : {false, true})
          for (int drop = -1; drop < (p > 1 ? p : 0); ++drop) {
            Store store;
            std::vector<simtest::SimDevice> devs;
            std::vector<int64_t> caps;
            for (int d = 0; d < p; ++d) {
              double speed = 1e5 * (1 + d * 3);
              devs.push_back(simtest::SimDevice::constant(speed, 1e-5));
              caps.push_back(d % 2 ? int64_t(1 + gen() % 3000) : 0);
              if (profiled)
                store.record("cov", "sim:" + std::to_string(d), S(1000, 1000 / speed));
            }
            auto s = hce::make_scheduler("profile");
            hce::profile::set_context(*s, context(store, "cov", p, caps));
            simtest::SimOptions opt;
            opt.lookahead = lookahead;
            if (drop >= 0)
              opt.drops.push_back({drop, drop == 0 ? 0.0 : 1e-3});
            auto params = simtest::make_params(W, devs, 0, 0.1, {}, lookahead);
            for (int exec = 0; exec < 2; ++exec) {
              auto res = simtest::simulate(*s, params, devs, opt);
              ASSERT_EQ(simtest::check_coverage(res, W), "")
                  << "p=" << p << " W=" << W << " profiled=" << profiled
                  << " lookahead=" << lookahead << " drop=" << drop;
              for (const auto &c : res.chunks)
                if (caps[size_t(c.device)] > 0 && drop < 0)
                  EXPECT_LE(c.range.size(), caps[size_t(c.device)]);
            }
          }
}

TEST(ProfileSched, DroppedDevicesWorkGoesToTheOthers) {
  Store store;
  store.record("drop", "sim:0", S(1000, 1e-3));
  store.record("drop", "sim:1", S(1000, 1e-3));
  store.record("drop", "sim:2", S(1000, 0.5e-3));
  auto s = hce::make_scheduler("profile");
  hce::profile::set_context(*s, context(store, "drop", 3, {0, 0, 1000}));
  std::vector<simtest::SimDevice> devs = {simtest::SimDevice::constant(1e6),
                                          simtest::SimDevice::constant(1e6),
                                          simtest::SimDevice::constant(2e6)};
  simtest::SimOptions opt;
  opt.drops.push_back({2, 1.2e-3}); // after sim:2's first range of 1000
  auto res = simtest::simulate(*s, simtest::make_params(20000, devs), devs, opt);
  ASSERT_EQ(simtest::check_coverage(res, 20000), "");
  // sim:2's 10000 minus what it completed or had in flight went to the two
  // others, split by their (equal) ratios.
  int64_t rerun = 0;
  for (const Range &r : res.rerun)
    rerun += r.size();
  EXPECT_EQ(res.iterations[0] + res.iterations[1] + res.iterations[2] + rerun, 20000);
  EXPECT_GT(res.iterations[0], 5000);
  EXPECT_NEAR(double(res.iterations[0]), double(res.iterations[1]), 1);
}

// auto never hands a region to `profile`, whatever the store holds: it
// takes no profile context at all (docs/schedulers.md, "auto").
TEST(ProfileAuto, NeverHandsOverToTheProfilePartition) {
  Store store;
  ProfileContext ctx = context(store, "auto-no-hand-over", 2);
  auto s = hce::make_scheduler("auto");
  EXPECT_EQ(s->profile_aware(), nullptr);
  hce::profile::set_context(*s, ctx); // a no-op
  std::vector<simtest::SimDevice> devs = {simtest::SimDevice::constant(1e6),
                                          simtest::SimDevice::constant(4e6)};
  auto params = simtest::make_params(100000, devs);
  auto first = simtest::simulate(*s, params, devs);
  record(store, ctx, first);
  ASSERT_TRUE(hce::profile::has_profile(ctx));
  for (int exec = 0; exec < 3; ++exec) {
    auto res = simtest::simulate(*s, params, devs);
    EXPECT_EQ(hce::sched::auto_choice(*s), "eft");
    EXPECT_EQ(hce::profile::plan_of(*s), nullptr);
    ASSERT_EQ(simtest::check_coverage(res, 100000), "");
  }
}

} // namespace
