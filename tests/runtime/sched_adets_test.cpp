// ADETS (Alg. 2 of fdets-adets-inter-device-scheduling.txt, Alg. 4 of
// hce-runtime-cooperative-execution.txt), HGuided (EngineCL), LogFit and
// auto: chunk sequences checked against the papers' rules; a very slow
// device gets almost nothing.
#include "sched/common.hpp"
#include "sched_harness.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace hce {
namespace {

using simtest::check_coverage;
using simtest::make_params;
using simtest::SimDevice;
using simtest::SimOptions;
using simtest::SimResult;
using simtest::simulate;

std::vector<int64_t> prefix(std::vector<int64_t> v, size_t n) {
  if (v.size() > n)
    v.resize(n);
  return v;
}

// Speed 1e6 * f^k on the device's k-th chunk.
SimDevice geometric(double f) {
  std::vector<double> v;
  for (int k = 0; k < 40; ++k)
    v.push_back(1e6 * std::pow(f, k));
  return SimDevice::per_chunk(v);
}

SimResult run(const std::string &name, const std::vector<SimDevice> &devs,
              int64_t W, int64_t c, bool lookahead = false,
              Scheduler *reuse = nullptr) {
  auto own = make_scheduler(name);
  Scheduler &s = reuse ? *reuse : *own;
  SimOptions opt;
  opt.lookahead = lookahead;
  auto r = simulate(s, make_params(W, devs, c, 0.1, {}, lookahead), devs, opt);
  EXPECT_EQ(check_coverage(r, W), "") << name;
  return r;
}

TEST(SchedAdets, PerDeviceDoubleKeepHalve) {
  // Device 0 speeds up, 1 is steady, 2 slows down: each adapts its own
  // chunk (Alg. 2 l.19-27) after two chunks of W/n (l.16-17).
  std::vector<SimDevice> devs = {geometric(2.0), geometric(1.0),
                                 geometric(0.5)};
  auto r = run("adets", devs, 1'000'000'000, 1000);
  EXPECT_EQ(prefix(r.sizes(0), 6),
            (std::vector<int64_t>{1000, 1000, 2000, 4000, 8000, 16000}));
  EXPECT_EQ(prefix(r.sizes(1), 6), std::vector<int64_t>(6, 1000));
  // Halving stops at max(1, (W/n)/8) = 125.
  EXPECT_EQ(prefix(r.sizes(2), 6),
            (std::vector<int64_t>{1000, 1000, 500, 250, 125, 125}));
}

TEST(SchedAdets, EndOfSpaceRule) {
  // Two equal devices: once W_r <= sum_j W_curr.j every chunk is
  // W_r * RV_i = W_r / 2 (Alg. 2 l.12-14).
  std::vector<SimDevice> devs = {SimDevice::constant(1e6),
                                 SimDevice::constant(1e6)};
  const int64_t W = 10000;
  auto r = run("adets", devs, W, 1000);
  std::vector<int64_t> last(2, 0);
  std::vector<int> seen(2, 0);
  int64_t assigned = 0;
  int checked = 0;
  for (const auto &c : r.chunks) {
    const int64_t w_r = W - assigned;
    const int64_t sum = last[0] + last[1];
    if (seen[0] >= 1 && seen[1] >= 1 && seen[c.device] >= 2 && w_r <= sum) {
      // RV_i = 0.5 up to rounding of the measured speeds.
      EXPECT_NEAR(static_cast<double>(c.range.size()),
                  static_cast<double>(std::max<int64_t>(1, w_r / 2)), 1.0)
          << "at " << c.range.lb;
      ++checked;
    } else if (seen[0] >= 1 && seen[1] >= 1 && seen[c.device] >= 2) {
      EXPECT_LE(c.range.size(), w_r - sum); // l.29-31
    }
    last[c.device] = c.range.size();
    ++seen[c.device];
    assigned += c.range.size();
  }
  EXPECT_GE(checked, 4);
  EXPECT_NEAR(r.makespan, W / 2e6, 0.05 * r.makespan);
}

TEST(SchedAdets, ReExecutionStartsWithFastestChunk) {
  // Chunk 4 (size 4000) is the fastest: the next execution starts with
  // two chunks of 4000 (per device, W_fs.i).
  std::vector<SimDevice> devs = {
      SimDevice::per_chunk({1e6, 2e6, 4e6, 8e6, 1e6})};
  auto s = make_scheduler("adets");
  auto r = run("adets", devs, 1'000'000, 1000, false, s.get());
  EXPECT_EQ(prefix(r.sizes(0), 5),
            (std::vector<int64_t>{1000, 1000, 2000, 4000, 8000}));
  r = run("adets", devs, 1'000'000, 1000, false, s.get());
  EXPECT_EQ(prefix(r.sizes(0), 2), (std::vector<int64_t>{4000, 4000}));
}

TEST(SchedAdetsPipelined, NextNextChunkFromSpeedChange) {
  // Alg. 4: chunks 1-3 are W/n; when chunk k completes the size of chunk
  // k+2 is W_curr + W_next (faster), (W_curr + W_next)/2 (same speed),
  // (W_curr + W_next)/4 (slower).
  auto r = run("adets", {geometric(2.0)}, 1'000'000'000, 1000, true);
  EXPECT_EQ(prefix(r.sizes(0), 7),
            (std::vector<int64_t>{1000, 1000, 1000, 2000, 3000, 5000, 8000}));
  r = run("adets", {geometric(1.0)}, 100'000, 1000, true);
  EXPECT_EQ(prefix(r.sizes(0), 6), std::vector<int64_t>(6, 1000));
  r = run("adets", {geometric(0.5)}, 100'000, 1000, true);
  EXPECT_EQ(prefix(r.sizes(0), 8),
            (std::vector<int64_t>{1000, 1000, 1000, 500, 375, 218, 148, 125}));
}

TEST(SchedAdetsPipelined, NextChunkRequestedWhileOneInFlight) {
  auto s = make_scheduler("adets");
  SchedParams p;
  p.iterations = 100000;
  p.num_devices = 1;
  p.initial_chunk = 100;
  p.lookahead = true;
  s->begin(p);
  Decision a = s->next(0);
  Decision b = s->next(0); // pre-assigned while a is in flight
  ASSERT_EQ(a.kind, Decision::Run);
  ASSERT_EQ(b.kind, Decision::Run);
  EXPECT_EQ(a.range, (Range{0, 100}));
  EXPECT_EQ(b.range, (Range{100, 200}));
  s->complete(0, a.range, 1e-4);
  Decision c = s->next(0);
  ASSERT_EQ(c.kind, Decision::Run);
  EXPECT_EQ(c.range, (Range{200, 300}));
}

TEST(SchedHGuided, PacketSizesMatchFormula) {
  // P_i proportional to the speeds (3:1); k = 2; n = 2.
  std::vector<SimDevice> devs = {SimDevice::constant(1e6),
                                 SimDevice::constant(3e6)};
  const int64_t W = 1'000'000;
  const int64_t c = W / 128;
  auto s = make_scheduler("hguided");
  auto r = simulate(*s, make_params(W, devs, 0, 0.1, {0.25, 0.75}), devs);
  ASSERT_EQ(check_coverage(r, W), "");
  const double share[2] = {0.25, 0.75};
  const int64_t m = c / 4; // accelerators' minimum packet
  int64_t assigned = 0;
  for (size_t i = 0; i < r.chunks.size(); ++i) {
    const auto &ch = r.chunks[i];
    bool measured = false;
    for (size_t j = 0; j < i; ++j)
      if (r.chunks[j].device == ch.device && r.chunks[j].completed &&
          r.chunks[j].end <= ch.issued)
        measured = true;
    const int64_t g_r = W - assigned;
    int64_t want =
        static_cast<int64_t>(std::floor(g_r * share[ch.device] / (2.0 * 2)));
    want = std::max(want, m);
    if (!measured)
      want = std::min(want, c); // probe packet
    want = std::min(want, g_r);
    EXPECT_NEAR(static_cast<double>(ch.range.size()), static_cast<double>(want),
                1.0)
        << "packet " << i << " G_r=" << g_r;
    assigned += ch.range.size();
  }
  // Packets shrink as the work runs out.
  auto s1 = r.sizes(1);
  ASSERT_GE(s1.size(), 4u);
  EXPECT_GT(s1[1], s1[s1.size() - 2]);
  EXPECT_NEAR(r.makespan, W / 4e6, 0.05 * r.makespan);
}

TEST(SchedLogFit, ExploreThenStableGpuChunkSmallCpuChunks) {
  // Accelerator with a 50 ms launch overhead: throughput grows with the
  // chunk and saturates (the logarithmic curve LogFit fits).
  SimDevice host = SimDevice::constant(1e6, 0, true);
  SimDevice gpu = SimDevice::constant(3e7, 0.05);
  const int64_t W = 400'000'000;
  const int64_t g0 = (W / 128) / 4;
  auto s = make_scheduler("logfit");
  auto r = simulate(*s, make_params(W, {host, gpu}), {host, gpu});
  ASSERT_EQ(check_coverage(r, W), "");
  auto g = r.sizes(1);
  ASSERT_GE(g.size(), 8u);
  // Warm-up chunk (not recorded), then doubling exploration.
  EXPECT_EQ(prefix(g, 5),
            (std::vector<int64_t>{g0, g0, 2 * g0, 4 * g0, 8 * g0}));
  // Stable phase: the chunk stops doubling and stays at the model's size.
  int64_t biggest = *std::max_element(g.begin(), g.end());
  EXPECT_LT(biggest, W / 4);
  int steady = 0;
  for (size_t i = 1; i < g.size(); ++i)
    steady += g[i] == g[i - 1] ? 1 : 0;
  EXPECT_GE(steady, 2);
  // The CPU takes small chunks.
  for (int64_t x : r.sizes(0))
    EXPECT_LT(x, biggest);
  // And the GPU does most of the work, as its speed dictates.
  EXPECT_GT(r.iterations[1], W * 8 / 10);
}

// A launch-bound accelerator beside a host that takes the rest: cg's dot in
// hce-sim's H100 profile, GPU chunks ~32 us whatever their size up to ~1 M
// (its first 220 us), the host's 5 us plus its rate.  The search that runs
// out of work in an execution goes on in the next: ended there, the GPU kept
// chunks of W/6 for good and the host did 30% of the work at a 13th of the
// GPU's rate (in hce-sim, cg's dot ran 0.7 ms an execution against 0.16;
// V12 on the H100, 2048-iteration GPU chunks for good, 3.5-7.5 ms against
// <= 0.4 for every other schedule).  The warm-up chunk's throughput is not
// recorded (the reference's rule), so it does not size the host's chunks.
TEST(SchedLogFit, SearchCutShortByTheHostGoesOnInTheNextExecution) {
  const int64_t W = 1 << 20, h0 = (W / 128) / 16;
  SimDevice host = SimDevice::constant(2.3e9, 5e-6, true);
  bool warm = false;
  SimDevice gpu;
  gpu.time_fn = [&warm](Range r, int) {
    const double t = (warm ? 32e-6 : 220e-6) + double(r.size()) / 3e10;
    warm = true;
    return t;
  };
  auto s = make_scheduler("logfit");
  SimResult first, last;
  for (int e = 0; e < 6; ++e) {
    SimResult r = simulate(*s, make_params(W, {host, gpu}), {host, gpu});
    ASSERT_EQ(check_coverage(r, W), "") << "execution " << e;
    (e == 0 ? first : last) = r;
  }
  // Until the GPU's first chunk after its warm-up completes, the host runs
  // h0 chunks.
  double measured = 0;
  int gpu_chunks = 0;
  for (const simtest::SimChunk &c : first.chunks) // (in issue order)
    if (c.device == 1 && ++gpu_chunks == 2)
      measured = c.end;
  ASSERT_GT(measured, 0);
  int early = 0;
  for (const simtest::SimChunk &c : first.chunks)
    if (c.device == 0 && c.issued < measured) {
      EXPECT_EQ(c.range.size(), h0) << "issued at " << c.issued;
      ++early;
    }
  EXPECT_GT(early, 10);
  // By the last execution the GPU's chunk is most of the loop.
  auto g = last.sizes(1);
  ASSERT_FALSE(g.empty());
  EXPECT_GE(*std::max_element(g.begin(), g.end()), W / 2);
  EXPECT_GT(last.iterations[1], W * 9 / 10);
}

TEST(SchedAuto, ChoiceRule) {
  auto s = make_scheduler("auto");
  std::vector<SimDevice> devs(3, SimDevice::constant(1e6));
  simulate(*s, make_params(2, devs), devs); // W < p
  EXPECT_EQ(sched::auto_choice(*s), "static");
  auto a = make_scheduler("auto");
  simulate(*a, make_params(1'000'000, devs), devs);
  EXPECT_EQ(sched::auto_choice(*a), "eft"); // first execution
  simulate(*a, make_params(1'000'000, devs), devs);
  EXPECT_EQ(sched::auto_choice(*a), "eft"); // re-execution
  auto b = make_scheduler("auto");
  simulate(*b, make_params(1000, devs), devs);
  EXPECT_EQ(sched::auto_choice(*b), "eft"); // small W
}

// Fewer iterations than devices after eft has left a device out: eft keeps
// choosing, and the iteration runs where it runs best (lud's last execution,
// one row, went to the GPU by static's one-each rule: 1 ms against 18 us).
TEST(SchedAuto, FewerIterationsThanDevicesGoWhereEftChooses) {
  auto s = make_scheduler("auto");
  std::vector<SimDevice> devs = {SimDevice::constant(1e6, 0, true),
                                 SimDevice::constant(1e3, 1e-3)};
  for (int e = 0; e < 12; ++e)
    simulate(*s, make_params(1000, devs), devs);
  ASSERT_TRUE(s->idle(1)) << s->explain();
  SimResult r = simulate(*s, make_params(1, devs), devs);
  ASSERT_EQ(check_coverage(r, 1), "");
  EXPECT_EQ(sched::auto_choice(*s), "eft");
  EXPECT_EQ(r.iterations[0], 1) << s->explain();
}

// A device 100x slower than the others gets almost no work.
class SchedSlowDevice : public ::testing::TestWithParam<std::string> {};

TEST_P(SchedSlowDevice, GetsAlmostNothing) {
  const int64_t W = 1'000'000;
  for (int p : {2, 3, 4}) {
    for (int slow = 0; slow < p; ++slow) {
      for (double overhead : {0.0, 1e-5}) {
        std::vector<SimDevice> devs;
        for (int i = 0; i < p; ++i)
          devs.push_back(SimDevice::constant(i == slow ? 1e5 : 1e7, overhead));
        auto s = make_scheduler(GetParam());
        for (int exec = 0; exec < 2; ++exec) {
          auto r = simulate(*s, make_params(W, devs), devs);
          ASSERT_EQ(check_coverage(r, W), "");
          EXPECT_LT(r.iterations[slow], W * 3 / 100)
              << GetParam() << " p=" << p << " slow=" << slow
              << " overhead=" << overhead << " exec=" << exec;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, SchedSlowDevice,
                         ::testing::Values("fdets", "adets", "hguided"));

} // namespace
} // namespace hce
