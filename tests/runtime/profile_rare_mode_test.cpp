// What the profile cache keeps beyond its sampled executions: a mode the
// scheduler measures rarely -- an arm explored once, a retried runner-up --
// whatever the execution's number (profile::record_mode; the others are
// sampled, recorded_execution()); and an accelerator's first-execution
// sample when it was left out after (profile::record_execution).
// The H100's lud (call FA, 24 warm runs): the GPU alone was explored once
// per run, at an execution the profile does not sample, so no run ever
// stored it and each paid for it again (~1.5 ms of 12 ms).
#include "chunk_loop.hpp"
#include "profile/profile_hook.hpp"
#include "profile/profile_store.hpp"
#include "runtime.hpp"
#include "sched/scheduler.hpp"
#include "sched_harness.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace hce;
using namespace hce::simtest;

// eft, lud's shape reversed: an earlier run's model (a seed) has the CPU
// 100x slower than it is, so the GPU alone runs first and the CPU alone is
// explored once the exploration budget allows it
// (SchedEft.AnArmNeverMeasuredIsTriedWithinAnExplorationBudget).  (A seed,
// not a slow start: a model learnt in this run is probed again while no
// measured wall backs it, which finds a slow start out without exploring.)
// The execution that measures the explored arm says so (measured_rarely()),
// with that arm as its mode; the executions of the mode in use do not.
// Inside a data region: outside one, a seeded host left out is probed alone
// from the 16th execution instead (SchedEft.ASeededHostLeftOutIsProbedAlone).
TEST(SchedEftRareMode, AnExploredArmsMeasurementIsRare) {
  auto exec = std::make_shared<int>(0);
  std::vector<SimDevice> devs = {SimDevice::constant(5e7, 0, true),
                                 SimDevice::constant(1e12, 0.2e-3)};
  const int64_t W = 500;
  auto s = make_scheduler("eft");
  auto *seedable = dynamic_cast<Seedable *>(s.get());
  ASSERT_NE(seedable, nullptr);
  seedable->seed(0, 0, 100 / 5e7);
  seedable->seed(1, 0.2e-3, 1e-12);
  int rare = 0, measured = 0, first_rare = -1;
  SchedParams params = make_params(W, devs);
  params.data_region = true;
  for (*exec = 0; *exec < 1000; ++*exec) {
    ASSERT_EQ(check_coverage(simulate(*s, params, devs), W), "") << "execution " << *exec;
    int device = -2;
    double wall = 0;
    const bool m = seedable->measured_mode(device, wall);
    measured += m ? 1 : 0;
    if (seedable->measured_rarely()) {
      ASSERT_TRUE(m) << "execution " << *exec << ": rare but not a measurement";
      if (first_rare < 0) {
        first_rare = *exec;
        // The explored arm: the CPU alone, measured at its (fast) cost.
        EXPECT_EQ(device, 0) << s->explain();
        EXPECT_LT(wall, 10 * double(W) / 5e7) << s->explain();
      }
      ++rare;
    }
  }
  EXPECT_GE(first_rare, 1) << "the CPU alone was never explored";
  // The GPU alone, then the CPU alone, each measured every execution but for
  // a few explorations and retries.
  EXPECT_GE(measured, 900);
  EXPECT_LE(rare, 20);
}

// A scheduler that reports one measured mode: device 1 alone, `wall` s.
class OneMode : public Scheduler, public Seedable {
public:
  explicit OneMode(bool rare) : rare_(rare) {}
  std::string_view name() const override { return "one-mode"; }
  Seedable *seedable() override { return this; }
  void begin(const SchedParams &) override {}
  Decision next(int) override { return Decision::done(); }
  void complete(int, Range, double) override {}
  void drop(int) override {}
  void seed(int, double, double) override {}
  bool measured_mode(int &device, double &wall_s) const override {
    device = 1;
    wall_s = 0.25;
    return true;
  }
  bool measured_rarely() const override { return rare_; }

private:
  bool rare_;
};

class ProfileRareMode : public testing::Test {
protected:
  void SetUp() override {
    dir_ = testing::TempDir() + "hce_rare_mode_" + std::to_string(getpid());
    std::filesystem::remove_all(dir_);
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
    unsetenv("HCE_PROFILE");
  }
  void TearDown() override {
    hce_finalize();
    unsetenv("XDG_CACHE_HOME");
    std::filesystem::remove_all(dir_);
  }
  // Whether the store holds a wall of sim:1 alone for region `name` after
  // record_mode at execution `nth` of a scheduler whose measurement is rare
  // or not.
  bool records(const char *name, int64_t nth, bool rare) {
    hce_test::use_devices("sim:0,sim:1");
    Runtime &rt = Runtime::get();
    EXPECT_TRUE(rt.init_error().empty()) << rt.init_error();
    if (!profile::recording())
      return false;
    hce_region r{};
    r.name = name;
    r.iterations = 128;
    OneMode s(rare);
    profile::record_mode(s, r, rt, {0, 1}, 0, nth, 0.25);
    return profile::global().has(name, "=alone:" + profile::device_key(*rt.devices()[1]));
  }
  std::string dir_;
};

TEST_F(ProfileRareMode, ARareMeasurementIsKeptAtAnyExecution) {
  ASSERT_TRUE(records("rare-383", 383, true));
}

// lud's shape on the H100 (call FE): the GPU (here sim:0) probed in the
// first execution, then left out; the CPU alone from the second on.  The
// GPU's probe reaches the file, so that the next run seeds it and does not
// probe it again; the CPU's first execution (its team's creation) does not.
TEST_F(ProfileRareMode, AnAcceleratorLeftOutAfterItsProbeKeepsIt) {
  hce_test::use_devices("cpu,sim:0");
  Runtime &rt = Runtime::get();
  ASSERT_TRUE(rt.init_error().empty()) << rt.init_error();
  ASSERT_TRUE(profile::recording());
  ASSERT_EQ(rt.devices().size(), 2u);
  hce_region r{};
  r.name = "left-out";
  std::vector<ChunkWorker> w(2);
  w[0].device = 0;
  w[1].device = 1;
  auto execute = [&](int64_t nth, int64_t W, int64_t gpu) {
    r.iterations = W;
    w[0].iterations = W - gpu;
    w[0].compute_busy = w[0].busy = 1e-5 * double(W - gpu);
    w[1].iterations = gpu;
    w[1].compute_busy = w[1].busy = gpu ? 7e-4 : 0;
    profile::record_execution(r, rt, w, {{}, {}}, 0, nth);
  };
  execute(0, 511, 255); // the probe
  for (int64_t nth = 1; nth < 4; ++nth)
    execute(nth, 511 - nth, 0);
  const std::string cpu = profile::device_key(*rt.devices()[0]),
                    gpu = profile::device_key(*rt.devices()[1]);
  hce_finalize(); // writes the cache
  profile::Store saved;
  std::string file;
  for (const auto &e : std::filesystem::recursive_directory_iterator(dir_))
    if (e.path().extension() == ".profile")
      file = e.path().string();
  ASSERT_TRUE(saved.load(file)) << file;
  ASSERT_EQ(saved.samples("left-out", gpu).size(), 1u) << saved.serialize();
  EXPECT_EQ(saved.samples("left-out", gpu)[0].iterations, 255);
  for (const profile::Sample &s : saved.samples("left-out", cpu))
    EXPECT_NE(s.iterations, 256) << "the CPU's first execution was kept";
}

TEST_F(ProfileRareMode, AnOrdinaryMeasurementIsSampled) {
  EXPECT_FALSE(records("plain-383", 383, false)); // 383: not sampled
  EXPECT_TRUE(records("plain-384", 384, false));  // 384 = 24 * 16: sampled
}

} // namespace
