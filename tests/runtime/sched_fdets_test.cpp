// FDETS (Alg. 1 of fdets-adets-inter-device-scheduling.txt) and the other
// synchronous schedulers (static, quick, split, fdets_inc): chunk sequences
// checked against the papers' rules.
#include "sched/common.hpp"
#include "sched_harness.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace hce {
namespace {

using sched::RoundRecord;
using sched::SyncChunkScheduler;
using simtest::check_coverage;
using simtest::make_params;
using simtest::SimDevice;
using simtest::SimOptions;
using simtest::simulate;

std::vector<int64_t> round_sizes(const Scheduler &s) {
  auto *sync = dynamic_cast<const SyncChunkScheduler *>(&s);
  EXPECT_NE(sync, nullptr);
  std::vector<int64_t> out;
  if (sync)
    for (const RoundRecord &r : sync->rounds())
      out.push_back(r.size);
  return out;
}

const std::vector<RoundRecord> &rounds(const Scheduler &s) {
  return dynamic_cast<const SyncChunkScheduler &>(s).rounds();
}

std::vector<int64_t> prefix(std::vector<int64_t> v, size_t n) {
  if (v.size() > n)
    v.resize(n);
  return v;
}

// One device whose k-th chunk runs at v[k] * 1e6 iterations/second: the
// cooperative speed V_curr of chunk k is exactly that.
std::vector<SimDevice> one_device(std::vector<double> v) {
  for (double &x : v)
    x *= 1e6;
  return {SimDevice::per_chunk(v)};
}

std::vector<int64_t> fdets_run(std::vector<double> v, int64_t W,
                               int64_t c = 1000) {
  auto s = make_scheduler("fdets");
  auto devs = one_device(v);
  auto r = simulate(*s, make_params(W, devs, c), devs);
  EXPECT_EQ(check_coverage(r, W), "");
  return round_sizes(*s);
}

TEST(SchedFdets, SecondChunkDoubledThenKeepDoubleAtSteadySpeed) {
  // l.16: W_next = 2 W/n; then at steady speed l.25-28 keeps once and
  // doubles when W_curr == W_prev >= W_prev_prev.
  auto sizes = fdets_run({1.0}, 1'000'000);
  std::vector<int64_t> want = {1000, 2000, 2000,  4000, 4000,
                               8000, 8000, 16000, 16000};
  EXPECT_EQ(prefix(sizes, want.size()), want);
}

TEST(SchedFdets, DoublesWhenFasterAndNotSmaller) {
  // l.18-20: V_curr > V_prev (1 + alpha) and W_curr >= W_prev -> double.
  auto sizes = fdets_run({1, 2, 4, 8, 16, 32, 64}, 1'000'000);
  std::vector<int64_t> want = {1000, 2000, 4000, 8000, 16000};
  EXPECT_EQ(prefix(sizes, want.size()), want);
}

TEST(SchedFdets, KeepsWhenFasterAfterShrinking) {
  // j=4 slower with W_curr > W_prev -> halve (l.35); j=5 faster with
  // W_prev_prev <= W_curr < W_prev -> keep (l.21-22); then steady: keep
  // (W_curr < W_prev_prev), then double (l.26-27).
  auto sizes = fdets_run({1, 1, 1, 0.5, 1, 1, 1, 1}, 1'000'000);
  std::vector<int64_t> want = {1000, 2000, 2000, 4000, 2000, 2000, 2000, 4000};
  EXPECT_EQ(prefix(sizes, want.size()), want);
}

TEST(SchedFdets, HalvesWhenSlower) {
  // j=2 slower, W_curr > W_prev -> W_prev / 2 (l.33-34); then steady:
  // keep, keep, double.
  auto sizes = fdets_run({1, 0.5, 0.5, 0.5, 0.5, 0.5}, 1'000'000);
  std::vector<int64_t> want = {1000, 2000, 500, 500, 500, 1000};
  EXPECT_EQ(prefix(sizes, want.size()), want);
  // l.31-32: slower again with W_curr < W_prev -> double.
  sizes = fdets_run({1, 0.5, 0.25, 0.25}, 1'000'000);
  want = {1000, 2000, 500, 1000};
  EXPECT_EQ(prefix(sizes, want.size()), want);
  // l.23: faster but W_curr < W_prev and W_curr < W_prev_prev -> halve.
  sizes = fdets_run({1, 0.5, 1, 1}, 1'000'000);
  want = {1000, 2000, 500, 250};
  EXPECT_EQ(prefix(sizes, want.size()), want);
  // l.35: slower with W_curr == W_prev (j > 2) -> halve.
  sizes = fdets_run({1, 1, 1, 1, 0.5, 0.5}, 1'000'000);
  want = {1000, 2000, 2000, 4000, 4000, 2000};
  EXPECT_EQ(prefix(sizes, want.size()), want);
}

TEST(SchedFdets, EndRule) {
  // l.40-42: W_next > W_r or W_r - W_next <= W_curr -> W_next = W_r.
  EXPECT_EQ(fdets_run({1.0}, 10000),
            (std::vector<int64_t>{1000, 2000, 2000, 5000}));
  EXPECT_EQ(fdets_run({1.0}, 7000), (std::vector<int64_t>{1000, 2000, 4000}));
  EXPECT_EQ(fdets_run({1.0}, 1500), (std::vector<int64_t>{1000, 500}));
  EXPECT_EQ(fdets_run({1.0}, 800), (std::vector<int64_t>{800}));
}

TEST(SchedFdets, DefaultInitialChunkIsW128) {
  auto sizes = fdets_run({1.0}, 128000, 0);
  ASSERT_GE(sizes.size(), 2u);
  EXPECT_EQ(sizes[0], 1000);
  EXPECT_EQ(sizes[1], 2000);
}

TEST(SchedFdets, RatiosFollowRelativeSpeeds) {
  // l.10-11: R_i = V_i / sum V_j, used to split the next chunk (l.5).
  std::vector<SimDevice> devs = {SimDevice::constant(1e6),
                                 SimDevice::constant(3e6)};
  auto s = make_scheduler("fdets");
  auto r = simulate(*s, make_params(1'000'000, devs, 1000), devs);
  ASSERT_EQ(check_coverage(r, 1'000'000), "");
  const auto &rs = rounds(*s);
  ASSERT_GE(rs.size(), 3u);
  EXPECT_EQ(rs[0].shares, (std::vector<int64_t>{500, 500})); // initial R
  EXPECT_NEAR(rs[1].ratios[0], 0.25, 1e-9);
  EXPECT_EQ(rs[1].shares, (std::vector<int64_t>{500, 1500}));
  // Balanced: both devices finish every chunk together.
  EXPECT_NEAR(r.makespan, 1'000'000 / 4e6, 0.01 * r.makespan);
}

TEST(SchedFdets, ReExecutionUsesFastestChunk) {
  // Chunk 3 (size 2000) runs 4x faster than the others: the next
  // execution starts with chunks of 2000, 2000.
  auto s = make_scheduler("fdets");
  auto devs = one_device({1, 1, 4, 1});
  simulate(*s, make_params(1'000'000, devs, 1000), devs);
  auto first = round_sizes(*s);
  ASSERT_GE(first.size(), 4u);
  EXPECT_EQ(prefix(first, 3), (std::vector<int64_t>{1000, 2000, 2000}));
  auto r = simulate(*s, make_params(1'000'000, devs, 1000), devs);
  EXPECT_EQ(check_coverage(r, 1'000'000), "");
  auto second = round_sizes(*s);
  ASSERT_GE(second.size(), 2u);
  EXPECT_EQ(second[0], 2000);
  EXPECT_EQ(second[1], 2000);
}

TEST(SchedFdets, ReExecutionUsesFastestChunksRatios) {
  // Two devices; device 1 is fast only on its third chunk.
  std::vector<SimDevice> devs = {SimDevice::constant(1e6),
                                 SimDevice::per_chunk({1e6, 1e6, 8e6, 1e6})};
  auto s = make_scheduler("fdets");
  auto params = make_params(1'000'000, devs, 1000);
  simulate(*s, params, devs);
  std::vector<RoundRecord> prev = rounds(*s);
  std::vector<int64_t> sizes;
  std::vector<double> speeds;
  for (const auto &r : prev) {
    sizes.push_back(r.size);
    speeds.push_back(r.coop_speed);
  }
  int f = sched::fastest_chunk(sizes, speeds, params.alpha);
  ASSERT_GE(f, 0);
  // Between executions current_ratios() announces the next start ratios.
  auto announced = s->current_ratios();
  ASSERT_EQ(announced.size(), 2u);
  EXPECT_NEAR(announced[1], prev[f].ratios[1], 1e-12);
  simulate(*s, params, devs);
  const auto &now = rounds(*s);
  ASSERT_GE(now.size(), 2u);
  EXPECT_EQ(now[0].size, prev[f].size);
  EXPECT_EQ(now[1].size, prev[f].size);
  EXPECT_NEAR(now[0].ratios[0], prev[f].ratios[0], 1e-12);
  EXPECT_NEAR(now[0].ratios[1], prev[f].ratios[1], 1e-12);
}

TEST(SchedFdets, WaitUntilEveryDeviceReported) {
  auto s = make_scheduler("fdets");
  SchedParams p;
  p.iterations = 100;
  p.num_devices = 2;
  p.initial_chunk = 10;
  s->begin(p);
  Decision a = s->next(0);
  ASSERT_EQ(a.kind, Decision::Run);
  EXPECT_EQ(a.range, (Range{0, 5}));
  EXPECT_EQ(s->next(0).kind, Decision::Wait); // own share taken
  Decision b = s->next(1);
  ASSERT_EQ(b.kind, Decision::Run);
  EXPECT_EQ(b.range, (Range{5, 10}));
  s->complete(0, a.range, 1.0);
  EXPECT_EQ(s->next(0).kind, Decision::Wait); // device 1 not reported
  s->complete(1, b.range, 1.0);
  Decision c = s->next(0);
  ASSERT_EQ(c.kind, Decision::Run);
  EXPECT_EQ(c.range, (Range{10, 20})); // second chunk 2 W/n, half each
}

TEST(SchedFdets, ZeroShareCountsAsReported) {
  auto s = make_scheduler("fdets");
  SchedParams p;
  p.iterations = 40;
  p.num_devices = 2;
  p.initial_chunk = 10;
  p.ratios = {1.0, 0.0};
  s->begin(p);
  EXPECT_EQ(s->next(1).kind, Decision::Wait); // nothing for 1, 0 busy
  Decision a = s->next(0);
  ASSERT_EQ(a.kind, Decision::Run);
  EXPECT_EQ(a.range, (Range{0, 10}));
  s->complete(0, a.range, 1.0);
  Decision b = s->next(0);
  ASSERT_EQ(b.kind, Decision::Run);
  EXPECT_EQ(b.range, (Range{10, 40})); // end rule: 2000 > W_r - ... -> W_r
  s->complete(0, b.range, 1.0);
  EXPECT_EQ(s->next(1).kind, Decision::Done);
  EXPECT_EQ(s->next(0).kind, Decision::Done);
}

TEST(SchedFdets, DropRedistributesUntakenShare) {
  auto s = make_scheduler("fdets");
  SchedParams p;
  p.iterations = 100;
  p.num_devices = 3;
  p.initial_chunk = 30;
  s->begin(p);
  Decision a = s->next(0);
  ASSERT_EQ(a.kind, Decision::Run); // [0,10)
  s->drop(2);                       // its [20,30) was never taken
  Decision b = s->next(1);
  ASSERT_EQ(b.kind, Decision::Run);
  EXPECT_EQ(b.range, (Range{10, 20}));
  Decision c = s->next(0); // half of device 2's share
  ASSERT_EQ(c.kind, Decision::Run);
  EXPECT_EQ(c.range, (Range{20, 25}));
  Decision d = s->next(1);
  ASSERT_EQ(d.kind, Decision::Run);
  EXPECT_EQ(d.range, (Range{25, 30}));
  EXPECT_EQ(s->next(2).kind, Decision::Done);
}

TEST(SchedStatic, HonoursRatios) {
  std::vector<SimDevice> devs(3, SimDevice::constant(1e6));
  auto s = make_scheduler("static");
  auto r = simulate(*s, make_params(1000, devs, 0, 0.1, {0.2, 0.3, 0.5}), devs);
  ASSERT_EQ(check_coverage(r, 1000), "");
  EXPECT_EQ(r.sizes(0), (std::vector<int64_t>{200}));
  EXPECT_EQ(r.sizes(1), (std::vector<int64_t>{300}));
  EXPECT_EQ(r.sizes(2), (std::vector<int64_t>{500}));
  EXPECT_EQ(r.chunks[0].range, (Range{0, 200}));
  // Equal when none given; nothing learnt on re-execution.
  r = simulate(*s, make_params(999, devs), devs);
  EXPECT_EQ(r.sizes(0), (std::vector<int64_t>{333}));
  EXPECT_EQ(r.sizes(2), (std::vector<int64_t>{333}));
}

TEST(SchedQuick, ProfilingPhaseThenRest) {
  std::vector<SimDevice> devs = {SimDevice::constant(1e6),
                                 SimDevice::constant(3e6)};
  auto s = make_scheduler("quick");
  auto r = simulate(*s, make_params(100000, devs, 1000), devs);
  ASSERT_EQ(check_coverage(r, 100000), "");
  const auto &rs = rounds(*s);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].size, 1000); // profiling size = the chunk
  EXPECT_EQ(rs[0].shares, (std::vector<int64_t>{500, 500}));
  EXPECT_EQ(rs[1].size, 99000);
  EXPECT_EQ(rs[1].shares, (std::vector<int64_t>{24750, 74250}));
  // Re-execution: all of W by the previous ratios, no profiling.
  r = simulate(*s, make_params(100000, devs, 1000), devs);
  ASSERT_EQ(check_coverage(r, 100000), "");
  ASSERT_EQ(rounds(*s).size(), 1u);
  EXPECT_EQ(rounds(*s)[0].shares, (std::vector<int64_t>{25000, 75000}));
  // Default profiling size W/128.
  auto q = make_scheduler("quick");
  simulate(*q, make_params(128000, devs), devs);
  EXPECT_EQ(rounds(*q)[0].size, 1000);
}

TEST(SchedSplit, NEqualChunksByLatestRatios) {
  std::vector<SimDevice> devs = {SimDevice::constant(1e6),
                                 SimDevice::constant(3e6)};
  auto s = make_scheduler("split");
  auto r = simulate(*s, make_params(12800, devs, 100), devs);
  ASSERT_EQ(check_coverage(r, 12800), "");
  auto sizes = round_sizes(*s);
  EXPECT_EQ(sizes, std::vector<int64_t>(128, 100));
  const auto &rs = rounds(*s);
  EXPECT_EQ(rs[0].shares, (std::vector<int64_t>{50, 50}));
  for (size_t k = 1; k < rs.size(); ++k)
    EXPECT_EQ(rs[k].shares, (std::vector<int64_t>{25, 75})) << k;
  // Not a multiple: n = floor(W / chunk) chunks, sizes within one.
  auto s2 = make_scheduler("split");
  r = simulate(*s2, make_params(1050, devs, 100), devs);
  ASSERT_EQ(check_coverage(r, 1050), "");
  auto sz = round_sizes(*s2);
  EXPECT_EQ(sz.size(), 10u);
  for (int64_t x : sz)
    EXPECT_TRUE(x == 105) << x;
}

TEST(SchedFdetsIncremental, RatiosDecidedOneExecutionAhead) {
  std::vector<SimDevice> devs = {SimDevice::constant(1e6),
                                 SimDevice::constant(3e6)};
  auto s = make_scheduler("fdets_inc");
  ASSERT_NE(s, nullptr);
  auto params = make_params(1000, devs, 0, 0.1, {0.5, 0.5});
  std::vector<std::vector<int64_t>> shares;
  for (int t = 0; t < 5; ++t) {
    auto r = simulate(*s, params, devs);
    ASSERT_EQ(check_coverage(r, 1000), "");
    ASSERT_EQ(rounds(*s).size(), 1u); // one chunk W per execution
    shares.push_back(rounds(*s)[0].shares);
  }
  // Executions 1 and 2 use the initial ratios; in the paper 3 uses those
  // measured in 1, but the first (cold) execution's times are not used:
  // 3 keeps the initial ratios and 4 uses those measured in 2.
  EXPECT_EQ(shares[0], (std::vector<int64_t>{500, 500}));
  EXPECT_EQ(shares[1], (std::vector<int64_t>{500, 500}));
  EXPECT_EQ(shares[2], (std::vector<int64_t>{500, 500}));
  EXPECT_EQ(shares[3], (std::vector<int64_t>{250, 750}));
  EXPECT_EQ(shares[4], (std::vector<int64_t>{250, 750}));
}

} // namespace
} // namespace hce
