// The profile store (runtime/src/profile/profile_store.*): the seed's linear
// interpolation against hand-computed values, the text file's round trip,
// merging with a file another process wrote, atomic replacement, and what
// happens with a corrupt file (a warning naming the file and line, then the
// file is ignored).
#include "profile/profile_store.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace {

using hce::profile::interpolate;
using hce::profile::Sample;
using hce::profile::Store;

Sample S(int64_t it, double exec, double xfer = 0, double bytes = 0, double weight = 1) {
  Sample s;
  s.iterations = it;
  s.exec_s = exec;
  s.xfer_s = xfer;
  s.bytes = bytes;
  s.weight = weight;
  return s;
}

std::string temp_path(const std::string &name) {
  return testing::TempDir() + "hce_profile_" + name + "_" + std::to_string(getpid()) +
         ".txt";
}

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

void write(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

TEST(ProfileInterp, BetweenAndAtMeasuredSizes) {
  // exec: 1.0 s at 100, 2.0 s at 300; xfer 0.2 / 0.6; bytes 800 / 2400.
  std::vector<Sample> v = {S(100, 1.0, 0.2, 800), S(300, 2.0, 0.6, 2400)};
  auto e = interpolate(v, 200);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->exec_s, 1.5);
  EXPECT_DOUBLE_EQ(e->xfer_s, 0.4);
  EXPECT_DOUBLE_EQ(e->bytes, 1600);
  EXPECT_DOUBLE_EQ(e->total_s(), 1.9);
  EXPECT_DOUBLE_EQ(interpolate(v, 100)->exec_s, 1.0);
  EXPECT_DOUBLE_EQ(interpolate(v, 300)->exec_s, 2.0);
  EXPECT_DOUBLE_EQ(interpolate(v, 150)->exec_s, 1.25);
}

TEST(ProfileInterp, ThreeSamplesUseTheirOwnSegment) {
  // 1.0 at 100, 2.0 at 200, 6.0 at 400: at 300 the second segment -> 4.0
  std::vector<Sample> v = {S(100, 1.0), S(200, 2.0), S(400, 6.0)};
  EXPECT_DOUBLE_EQ(interpolate(v, 300)->exec_s, 4.0);
  EXPECT_DOUBLE_EQ(interpolate(v, 150)->exec_s, 1.5);
  // Beyond the largest: the last segment extended (slope 0.02 s/it).
  EXPECT_DOUBLE_EQ(interpolate(v, 500)->exec_s, 8.0);
}

TEST(ProfileInterp, ExtrapolatesAlongTheEndSegments) {
  // T(w) = 0.5 + 0.005 w measured at 100 and 300.
  std::vector<Sample> v = {S(100, 1.0), S(300, 2.0)};
  EXPECT_DOUBLE_EQ(interpolate(v, 400)->exec_s, 2.5);
  EXPECT_DOUBLE_EQ(interpolate(v, 1000)->exec_s, 5.5);
  EXPECT_DOUBLE_EQ(interpolate(v, 50)->exec_s, 0.75);
  EXPECT_DOUBLE_EQ(interpolate(v, 0)->exec_s, 0.0);
}

TEST(ProfileInterp, NonGrowingOrNegativeExtrapolationIsProportional) {
  // Noise: the end segment falls; beyond it the end point scales with w.
  std::vector<Sample> fall = {S(100, 2.0), S(200, 1.8)};
  EXPECT_DOUBLE_EQ(interpolate(fall, 400)->exec_s, 3.6); // 1.8 * 400/200
  EXPECT_DOUBLE_EQ(interpolate(fall, 50)->exec_s, 1.0);  // 2.0 * 50/100
  // Steep first segment: the line is negative at 40 -> 1.0 * 40/100.
  std::vector<Sample> steep = {S(100, 1.0), S(200, 3.0)};
  EXPECT_DOUBLE_EQ(interpolate(steep, 40)->exec_s, 0.4);
}

TEST(ProfileInterp, OneSampleIsALineThroughZero) {
  std::vector<Sample> v = {S(200, 1.0, 0.1)};
  EXPECT_DOUBLE_EQ(interpolate(v, 50)->exec_s, 0.25);
  EXPECT_DOUBLE_EQ(interpolate(v, 800)->exec_s, 4.0);
  EXPECT_DOUBLE_EQ(interpolate(v, 800)->xfer_s, 0.4);
  EXPECT_FALSE(interpolate({}, 100));
}

// `earlier` saved to a fresh file and a later run's measurement `later` of
// ("r", device) merged into the file at its save: `after` is the file as the
// next run reads it.
void through_file(const std::string &name, Store &earlier, const std::string &device,
                  const Sample &later, Store &after) {
  const std::string path = temp_path(name);
  std::remove(path.c_str());
  ASSERT_TRUE(earlier.save(path));
  Store next;
  ASSERT_TRUE(next.load(path));
  next.record("r", device, later);
  ASSERT_TRUE(next.save(path));
  ASSERT_TRUE(after.load(path));
  std::remove(path.c_str());
}

TEST(ProfileStore, CloseSizesMergeWeighted) {
  Store s;
  s.record("r", "sim:0", S(1000, 1.0));
  s.record("r", "sim:0", S(1010, 2.0)); // within 2%: one sample
  s.record("r", "sim:0", S(1100, 5.0)); // 10% away: its own
  auto v = s.samples("r", "sim:0");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].iterations, 1005);
  EXPECT_DOUBLE_EQ(v[0].exec_s, 1.5);
  EXPECT_DOUBLE_EQ(v[0].weight, 2);
  EXPECT_EQ(v[1].iterations, 1100);
  EXPECT_TRUE(s.has("r", "sim:0"));
  EXPECT_FALSE(s.has("r", "sim:1"));
  EXPECT_FALSE(s.has("other", "sim:0"));
}

TEST(ProfileStore, WeightIsCappedSoNewRunsCount) {
  Store s;
  for (int i = 0; i < 20; ++i)
    s.record("r", "cpu", S(500, 1.0));
  s.record("r", "cpu", S(500, 1.9));
  auto v = s.samples("r", "cpu");
  ASSERT_EQ(v.size(), 1u);
  // weight 8 (cap) + 1: (8 * 1 + 1.9) / 9 = 1.1
  EXPECT_DOUBLE_EQ(v[0].exec_s, 1.1);
  EXPECT_DOUBLE_EQ(v[0].weight, hce::profile::kMaxWeight);
  // A speedup counts in full: (8 * 1.1 + 0.2) / 9 = 1.0
  s.record("r", "cpu", S(500, 0.2));
  EXPECT_DOUBLE_EQ(s.samples("r", "cpu")[0].exec_s, 1.0);
}

// Of a sample's first two measurements the faster is kept (a slow moment
// only ever slows an execution): the H200's matadd (call MC) stored the CPU
// alone at 36 ms from a fresh machine's first process, 23 ms in other calls;
// the mean of the two (29.5 ms) still lost to co-execution's 27.5.  Through
// the file too (a later run's measurement merged at save), and a slower
// second measurement is still a mean.
TEST(ProfileStore, OfTheFirstTwoMeasurementsTheFasterIsKept) {
  Store s;
  s.record("r", "=alone:cpu", S(8192, 36e-3));
  s.record("r", "=alone:cpu", S(8192, 23e-3));
  auto v = s.samples("r", "=alone:cpu");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_DOUBLE_EQ(v[0].exec_s, 23e-3);
  EXPECT_DOUBLE_EQ(v[0].weight, 2);
  s.record("r", "=alone:cpu", S(8192, 17e-3)); // the third: a mean again
  EXPECT_DOUBLE_EQ(s.samples("r", "=alone:cpu")[0].exec_s, (2 * 23e-3 + 17e-3) / 3);

  Store slower;
  slower.record("r", "cpu", S(8192, 23e-3));
  slower.record("r", "cpu", S(8192, 36e-3));
  EXPECT_DOUBLE_EQ(slower.samples("r", "cpu")[0].exec_s, (23e-3 + 36e-3) / 2);

  Store first, after;
  first.record("r", "=alone:cpu", S(8192, 36e-3));
  through_file("second", first, "=alone:cpu", S(8192, 23e-3), after);
  auto e = after.estimate("r", "=alone:cpu", 8192);
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(e->exec_s, 23e-3);
  EXPECT_DOUBLE_EQ(e->measurements, 2);
}

// An estimate says how many measurements it reads when it is one sample's
// (the sample at its size, within kMergeTolerance), 0 when interpolated.
TEST(ProfileStore, AnEstimateCountsTheMeasurementsOfItsSample) {
  Store s;
  s.record("r", "cpu", S(1000, 1.0));
  s.record("r", "cpu", S(4000, 3.0));
  s.record("r", "cpu", S(4000, 3.0));
  EXPECT_DOUBLE_EQ(s.estimate("r", "cpu", 1000)->measurements, 1);
  EXPECT_DOUBLE_EQ(s.estimate("r", "cpu", 4010)->measurements, 2);
  EXPECT_DOUBLE_EQ(s.estimate("r", "cpu", 2000)->measurements, 0);
}

// Call GA (H100, lud): one run's CPU stalled at 11.5 ms per execution
// against ~40 us.  Merged as it was, it seeded the CPU alone at 1.35 ms, and
// 80 runs ran the GPU, 25x slower.  It counts as twice the sample at most.
TEST(ProfileStore, AStalledMeasurementRaisesASampleAtMostTwofold) {
  Store s;
  for (int i = 0; i < 8; ++i)
    s.record("r", "cpu", S(500, 40e-6, 10e-6));
  s.record("r", "cpu", S(500, 11.5e-3, 1e-3));
  auto v = s.samples("r", "cpu");
  ASSERT_EQ(v.size(), 1u);
  // Counted as 100 us (2 x 50 us), exec and transfer scaled alike:
  // (8 * 50 + 100) / 9 us.
  EXPECT_NEAR(v[0].total_s(), 500e-6 / 9, 1e-12);
  EXPECT_NEAR(v[0].exec_s / v[0].xfer_s,
              (8 * 40 + 2 * 50 * 11.5 / 12.5) / (8 * 10 + 2 * 50 * 1 / 12.5), 1e-9);
  // The same through the file: a later run's stall merged at save.
  Store after;
  through_file("stall", s, "cpu", S(500, 11.5e-3), after);
  EXPECT_LT(after.estimate("r", "cpu", 500)->total_s(), 2.2 * 500e-6 / 9);
}

// A stall that found no sample to merge into (lud measures each size once
// per run) is not read back: kImplausibleRise times what a larger size took
// and what the smaller sizes' best time per iteration gives.
TEST(ProfileInterp, AnIsolatedStallIsSkipped) {
  // t(w) = 10 us + 0.1 us * w; a stall of 3 ms at 19 iterations.
  auto t = [](int64_t w) { return 10e-6 + 0.1e-6 * double(w); };
  std::vector<Sample> v = {S(16, t(16)), S(19, 3e-3), S(22, t(22)), S(100, t(100))};
  EXPECT_NEAR(interpolate(v, 19)->exec_s, t(19), 1e-12);
  // At the largest size (nothing larger to compare): by the rate alone.
  std::vector<Sample> end = {S(420, t(420)), S(454, t(454)), S(489, 0.98e-3)};
  EXPECT_NEAR(interpolate(end, 489)->exec_s, t(489), 1e-12);
  EXPECT_NEAR(interpolate(end, 511)->exec_s, t(511), 1e-12);
  // At the smallest: slower than a larger size took.
  std::vector<Sample> start = {S(10, 1e-3), S(100, t(100)), S(200, t(200))};
  EXPECT_NEAR(interpolate(start, 50)->exec_s, t(50), 1e-12);
}

// What a loop may do is kept: a per-chunk overhead (small sizes cost far
// more per iteration), lanes (a flat start), a cost per iteration rising
// less than kImplausibleRise times, and a time 0 (it bounds nothing).
TEST(ProfileInterp, PlausibleCurvesAreReadAsTheyAre) {
  std::vector<Sample> overhead = {S(1, 50e-6), S(10, 51e-6), S(1000, 150e-6)};
  EXPECT_DOUBLE_EQ(interpolate(overhead, 1)->exec_s, 50e-6);
  std::vector<Sample> lanes = {S(100, 1e-3), S(1000, 1e-3), S(4000, 4e-3)};
  EXPECT_DOUBLE_EQ(interpolate(lanes, 100)->exec_s, 1e-3);
  EXPECT_DOUBLE_EQ(interpolate(lanes, 4000)->exec_s, 4e-3);
  std::vector<Sample> cache = {S(1000, 1e-3), S(2000, 7e-3)}; // 3.5x per iteration
  EXPECT_DOUBLE_EQ(interpolate(cache, 2000)->exec_s, 7e-3);
  std::vector<Sample> zero = {S(10, 0), S(100, 1e-3), S(200, 2e-3)};
  EXPECT_DOUBLE_EQ(interpolate(zero, 200)->exec_s, 2e-3);
}

TEST(ProfileStore, SampleCountIsBounded) {
  Store s;
  for (int i = 0; i < 100; ++i)
    s.record("r", "cpu", S(int64_t(1000 * std::pow(1.05, i)), 0.001 * i));
  auto v = s.samples("r", "cpu");
  EXPECT_LE(v.size(), hce::profile::kMaxSamples);
  for (size_t i = 1; i < v.size(); ++i)
    EXPECT_LT(v[i - 1].iterations, v[i].iterations);
}

// Store::add puts a new or merged sample back in its place instead of
// sorting: sizes recorded in any order (shrinking like lud's, growing,
// random, some within kMergeTolerance of one recorded before) stay distinct
// and increasing, and the line they lie on is read back.
TEST(ProfileStore, SamplesRecordedInAnyOrderStaySortedAndDistinct) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> size(100, 1000000);
  std::uniform_real_distribution<double> jitter(0.99, 1.01);
  Store s;
  std::vector<int64_t> recorded;
  for (int i = 0; i < 400; ++i) {
    int64_t w = i < 100   ? 500000 - 4000 * i // shrinking
                : i < 200 ? size(rng)
                          : int64_t(double(recorded[size_t(rng() % recorded.size())]) *
                                    jitter(rng)); // near an earlier size
    recorded.push_back(w);
    s.record("r", "cpu", S(w, 1e-9 * double(w) + 1e-6));
    const std::vector<Sample> v = s.samples("r", "cpu");
    ASSERT_LE(v.size(), hce::profile::kMaxSamples);
    for (size_t k = 1; k < v.size(); ++k)
      ASSERT_LT(v[k - 1].iterations, v[k].iterations) << "after record " << i;
  }
  for (int64_t w : {int64_t(123456), int64_t(654321)}) {
    auto e = s.estimate("r", "cpu", w);
    ASSERT_TRUE(e.has_value());
    EXPECT_NEAR(e->exec_s, 1e-9 * double(w) + 1e-6, 0.05 * (1e-9 * double(w) + 1e-6))
        << w;
  }
}

TEST(ProfileStore, RoundTripThroughTheFile) {
  const std::string path = temp_path("roundtrip");
  std::remove(path.c_str());
  Store a;
  a.record("matadd.c:12", "cpu", S(4096, 0.0123, 0, 0, 3));
  a.record("matadd.c:12", "sim:0", S(1024, 0.5, 0.25, 65536));
  a.record("odd\tname\\x", "sim:1", S(7, 1e-7, 2.5e-3, 12));
  ASSERT_TRUE(a.save(path));
  EXPECT_EQ(slurp(path).rfind("hce-profile 1\n", 0), 0u);
  Store b;
  ASSERT_TRUE(b.load(path));
  EXPECT_EQ(b.size(), 3u);
  for (auto [region, dev] : {std::pair{"matadd.c:12", "cpu"},
                             {"matadd.c:12", "sim:0"},
                             {"odd\tname\\x", "sim:1"}}) {
    auto x = a.samples(region, dev), y = b.samples(region, dev);
    ASSERT_EQ(x.size(), 1u) << region << " " << dev;
    ASSERT_EQ(y.size(), 1u) << region << " " << dev;
    EXPECT_EQ(x[0].iterations, y[0].iterations);
    EXPECT_NEAR(x[0].exec_s, y[0].exec_s, 1e-8 * x[0].exec_s);
    EXPECT_NEAR(x[0].xfer_s, y[0].xfer_s, 1e-8 * x[0].xfer_s);
    EXPECT_DOUBLE_EQ(x[0].bytes, y[0].bytes);
    EXPECT_DOUBLE_EQ(x[0].weight, y[0].weight);
  }
  // No temporary file is left behind.
  EXPECT_FALSE(std::ifstream(path + ".tmp." + std::to_string(getpid())));
  std::remove(path.c_str());
}

TEST(ProfileStore, SaveMergesWithWhatAnotherProcessWrote) {
  const std::string path = temp_path("merge");
  std::remove(path.c_str());
  Store mine;
  ASSERT_TRUE(mine.load(path)); // a missing file is an empty profile
  Store other;                  // "another process", saving first
  other.record("r", "cpu", S(1000, 1.0));
  other.record("q", "sim:0", S(10, 0.1));
  ASSERT_TRUE(other.save(path));
  mine.record("r", "cpu", S(1000, 1.8)); // same size: merged, weights 1 + 1
  mine.record("r", "sim:0", S(500, 0.5));
  ASSERT_TRUE(mine.save(path));
  Store back;
  ASSERT_TRUE(back.load(path));
  ASSERT_EQ(back.samples("r", "cpu").size(), 1u);
  EXPECT_DOUBLE_EQ(back.samples("r", "cpu")[0].exec_s, 1.4);
  EXPECT_DOUBLE_EQ(back.samples("r", "cpu")[0].weight, 2);
  EXPECT_TRUE(back.has("q", "sim:0"));
  EXPECT_TRUE(back.has("r", "sim:0"));
  // `mine` now holds the merged contents and nothing pending: saving again
  // does not count its samples twice.
  EXPECT_EQ(mine.pending(), 0u);
  EXPECT_TRUE(mine.has("q", "sim:0"));
  ASSERT_TRUE(mine.save(path));
  Store again;
  ASSERT_TRUE(again.load(path));
  EXPECT_DOUBLE_EQ(again.samples("r", "cpu")[0].weight, 2);
  std::remove(path.c_str());
}

// A region's first execution carries one-time costs (the H100's lud: one
// CPU row 10^4 times its steady cost): its samples are held back, dropped
// once the region executes again, and saved only for a region that ran once.
TEST(ProfileStore, FirstExecutionSamplesAreKeptOnlyForARegionThatRanOnce) {
  const std::string path = temp_path("first");
  std::remove(path.c_str());
  Store store;
  ASSERT_TRUE(store.load(path));
  store.record("loop", "cpu", S(511, 1.9e-3), /*first_execution=*/true);
  store.record("loop", "=alone:cpu", S(511, 2e-3), true);
  store.record("once", "cpu", S(100, 0.5), true);
  EXPECT_EQ(store.pending(), 3u); // held samples are saved if nothing follows
  EXPECT_TRUE(store.has("loop", "cpu")); // this run plans with it
  store.record("loop", "cpu", S(510, 5e-5)); // the second execution
  ASSERT_TRUE(store.save(path));
  Store back;
  ASSERT_TRUE(back.load(path));
  ASSERT_EQ(back.samples("loop", "cpu").size(), 1u);
  EXPECT_EQ(back.samples("loop", "cpu")[0].iterations, 510);
  EXPECT_FALSE(back.has("loop", "=alone:cpu")) << "the first execution's wall was kept";
  ASSERT_EQ(back.samples("once", "cpu").size(), 1u);
  EXPECT_DOUBLE_EQ(back.samples("once", "cpu")[0].exec_s, 0.5);
  std::remove(path.c_str());
}

// An accelerator that ran only in the region's first execution and was left
// out of a later one keeps that execution's sample (the H100's lud, call
// FE: without it each warm run probed the GPU again); one that runs again
// does not, and the other devices' first samples are dropped as before.
TEST(ProfileStore, ALeftOutDevicesOnlySampleIsKept) {
  const std::string path = temp_path("left-out");
  std::remove(path.c_str());
  Store store;
  ASSERT_TRUE(store.load(path));
  store.record("lud", "cpu", S(511, 1.9e-3), /*first_execution=*/true);
  store.record("lud", "gpu", S(255, 0.7e-3), true);
  store.record("back", "cpu", S(511, 1.9e-3), true);
  store.record("back", "gpu", S(255, 0.7e-3), true);
  // The second execution: the CPU alone.
  store.keep_held_of_left_out("lud", "gpu");
  store.keep_held_of_left_out("back", "gpu");
  store.keep_held_of_left_out("lud", "nothing-held"); // no-op
  store.record("lud", "cpu", S(510, 5e-5));
  store.record("back", "cpu", S(510, 5e-5));
  store.record("back", "gpu", S(300, 0.1e-3)); // "back": the GPU ran again
  ASSERT_TRUE(store.save(path));
  Store saved;
  ASSERT_TRUE(saved.load(path));
  ASSERT_EQ(saved.samples("lud", "gpu").size(), 1u) << saved.serialize();
  EXPECT_EQ(saved.samples("lud", "gpu")[0].iterations, 255);
  ASSERT_EQ(saved.samples("lud", "cpu").size(), 1u) << saved.serialize();
  EXPECT_EQ(saved.samples("lud", "cpu")[0].iterations, 510);
  ASSERT_EQ(saved.samples("back", "gpu").size(), 1u) << saved.serialize();
  EXPECT_EQ(saved.samples("back", "gpu")[0].iterations, 300);
  EXPECT_FALSE(saved.has("lud", "nothing-held"));
  std::remove(path.c_str());
}

struct CorruptCase {
  const char *text;
  int line;
  const char *what;
};

TEST(ProfileStore, CorruptFileWarnsWithFileAndLineAndIsIgnored) {
  const std::string path = temp_path("corrupt");
  const CorruptCase cases[] = {
      {"hce-profile 1\nr\tcpu\t100\t0\t0.1\t0\t1\nr\tcpu\t200\t0\n", 3,
       "7 tab-separated"},
      {"# comment\nnot a profile\n", 2, "header"},
      {"hce-profile 1\nr\tcpu\t-5\t0\t0.1\t0\t1\n", 2, "iterations"},
      {"hce-profile 1\nr\tcpu\t10\t0\tnan\t0\t1\n", 2, "exec_seconds"},
      {"hce-profile 1\nr\tcpu\t10\t0\t0.1\t-1\t1\n", 2, "transfer_seconds"},
      {"hce-profile 1\n\nr\tcpu\t10\t0\t0.1\t0\t0\n", 3, "weight"},
      {"hce-profile 1\nbad\\q\tcpu\t10\t0\t0.1\t0\t1\n", 2, "region"},
      {"hce-profile 1\nr\tcpu\t1.5\t0\t0.1\t0\t1\n", 2, "iterations"},
  };
  for (const CorruptCase &c : cases) {
    write(path, c.text);
    Store s;
    s.record("keep", "cpu", S(1, 1)); // a failed load leaves it as it was
    testing::internal::CaptureStderr();
    EXPECT_FALSE(s.load(path)) << c.text;
    std::string err = testing::internal::GetCapturedStderr();
    std::string where = path + ":" + std::to_string(c.line) + ":";
    EXPECT_NE(err.find("hce: warning: profile " + where), std::string::npos) << err;
    EXPECT_NE(err.find(c.what), std::string::npos) << err;
    EXPECT_NE(err.find("ignored"), std::string::npos) << err;
    EXPECT_EQ(s.size(), 1u); // nothing from the corrupt file
  }
  // Saving over a corrupt file replaces it with a valid one.
  write(path, "garbage\n");
  Store s;
  s.record("r", "cpu", S(100, 1));
  testing::internal::CaptureStderr();
  EXPECT_TRUE(s.save(path));
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find(path + ":1:"), std::string::npos) << err;
  Store back;
  EXPECT_TRUE(back.load(path));
  EXPECT_TRUE(back.has("r", "cpu"));
  std::remove(path.c_str());
}

TEST(ProfileStore, CommentsAndEmptyFileAreAnEmptyProfile) {
  const std::string path = temp_path("empty");
  for (const char *text : {"", "# just a comment\n\n", "hce-profile 1\n"}) {
    write(path, text);
    Store s;
    testing::internal::CaptureStderr();
    EXPECT_TRUE(s.load(path));
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(s.size(), 0u);
  }
  std::remove(path.c_str());
}

} // namespace

namespace {

// The hooks record a region's first 16 executions, then every 16th up to
// the 256th, every 64th after: recording costs as much as a resident
// execution (lud runs 511).
TEST(ProfileStore, LongRunningRegionsAreSampled) {
  int recorded = 0;
  for (int64_t n = 0; n < 511; ++n)
    recorded += hce::profile::recorded_execution(n) ? 1 : 0;
  EXPECT_EQ(recorded, 16 + 15 + 4);
  EXPECT_TRUE(hce::profile::recorded_execution(0));
  EXPECT_TRUE(hce::profile::recorded_execution(15));
  EXPECT_FALSE(hce::profile::recorded_execution(17));
  EXPECT_TRUE(hce::profile::recorded_execution(32));
  EXPECT_TRUE(hce::profile::recorded_execution(240));
  EXPECT_FALSE(hce::profile::recorded_execution(272));
  EXPECT_TRUE(hce::profile::recorded_execution(320));
  int later = 0; // a long run's: one in 64
  for (int64_t n = 1 << 20; n < (1 << 20) + 6400; ++n)
    later += hce::profile::recorded_execution(n) ? 1 : 0;
  EXPECT_EQ(later, 100);
}

} // namespace

// The per-user cache keeps one file per executable, not per name: two
// programs called a.out (or two tests' `prog`) measured different loops,
// and one's models must not seed the other's schedulers.
TEST(ProfileCacheFile, TwoProgramsOfOneNameKeepApart) {
  const std::string a = hce::profile::cache_file_name("/home/u/one/a.out");
  const std::string b = hce::profile::cache_file_name("/home/u/two/a.out");
  EXPECT_NE(a, b);
  EXPECT_EQ(a, hce::profile::cache_file_name("/home/u/one/a.out")); // stable
  for (const std::string &name : {a, b}) {
    EXPECT_EQ(name.rfind("a.out-", 0), 0u) << name;
    EXPECT_EQ(name.size(),
              std::string("a.out-").size() + 16 + std::string(".profile").size())
        << name;
    EXPECT_EQ(name.substr(name.size() - 8), ".profile") << name;
  }
  EXPECT_EQ(hce::profile::cache_file_name(""), "program.profile");
}

// The process-wide store loaded by start_loading()'s thread (what a runtime
// starts while CUDA makes its context): the file's samples are there when
// the first region asks, a second start is harmless, and shutdown_global()
// straight after a start waits for the loader before it saves and forgets.
TEST(ProfileGlobal, TheStoreLoadsOnAThreadOfItsOwn) {
  const std::string path = temp_path("loader");
  write(path, "hce-profile 1\n"
              "r\tcpu\t100\t0\t0.001\t0\t1\n"
              "r\tsim:0\t100\t0\t0.0005\t0\t1\n");
  const char *before = std::getenv("HCE_PROFILE");
  const std::string saved = before ? before : "";
  hce::profile::shutdown_global();
  setenv("HCE_PROFILE", path.c_str(), 1);
  for (int round = 0; round < 20; ++round) {
    hce::profile::start_loading();
    hce::profile::start_loading();
    if (round % 2) // forgotten before anything asked: nothing to save
      hce::profile::shutdown_global();
    else
      EXPECT_EQ(hce::profile::global().samples("r", "sim:0").size(), 1u) << round;
    hce::profile::shutdown_global();
  }
  hce::profile::start_loading();
  auto e = hce::profile::global().estimate("r", "cpu", 200);
  ASSERT_TRUE(e.has_value());
  EXPECT_NEAR(e->exec_s, 0.002, 1e-12);
  EXPECT_TRUE(hce::profile::profile_requested());
  hce::profile::shutdown_global(); // nothing recorded: the file stays as it was
  if (before)
    setenv("HCE_PROFILE", saved.c_str(), 1);
  else
    unsetenv("HCE_PROFILE");
  EXPECT_EQ(slurp(path).rfind("hce-profile 1\nr\tcpu\t100", 0), 0u);
  std::remove(path.c_str());
}
