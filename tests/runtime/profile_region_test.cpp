// End to end: schedule(profile), and auto seeded by a profile file, on sim devices whose
// speeds are scripted with iter_time (modelled chunk times, so the measured
// ratios do not depend on the machine's load), HCE_PROFILE persistence
// across runtimes, a corrupt profile file, memory-bound ranges on a sim
// device with a small capacity, and results against a sequential reference
// on random data.
#include "profile/profile_hook.hpp"
#include "profile/profile_sched.hpp"
#include "profile/profile_store.hpp"
#include "runtime.hpp"
#include "sim_device.hpp"
#include "sched/common.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace {

// out[k] = x[k] * x[k] * 0.5 + y[k]
void body(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *) {
  const double *x = static_cast<const double *>(ptrs[0]);
  const double *y = static_cast<const double *>(ptrs[1]);
  double *out = static_cast<double *>(ptrs[2]);
  for (int64_t k = lb; k < ub; ++k)
    out[k] = x[k] * x[k] * 0.5 + y[k];
}

struct Loop {
  int64_t W;
  std::vector<double> x, y, out;
  hce_map maps[3];
  void *site = nullptr;
  hce_region region{};

  Loop(int64_t w, const char *name, const char *schedule, unsigned seed = 1)
      : W(w), x(hce_test::random_vector(size_t(w), seed)),
        y(hce_test::random_vector(size_t(w), seed + 100)), out(size_t(w)) {
    maps[0] = {"x", x.data(), sizeof(double), HCE_MAP_TO, 1, 0, 1, 1, 0};
    maps[1] = {"y", y.data(), sizeof(double), HCE_MAP_TO, 1, 0, 1, 1, 0};
    maps[2] = {"out", out.data(), sizeof(double), HCE_MAP_FROM, 1, 0, 1, 1, 0};
    region.name = name;
    region.schedule = schedule;
    region.iterations = W;
    region.num_maps = 3;
    region.maps = maps;
    region.cpu = body;
    region.site = &site;
  }
  // Runs once and checks every element against the sequential loop.
  void run_and_check() {
    std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
    ASSERT_EQ(hce_co_exec(&region), 0);
    size_t bad = 0;
    for (int64_t k = 0; k < W; ++k)
      if (out[size_t(k)] != x[size_t(k)] * x[size_t(k)] * 0.5 + y[size_t(k)])
        ++bad;
    ASSERT_EQ(bad, 0u) << "of " << W;
  }
  int64_t last(const char *dev) { return hce_last_iterations(&site, dev); }
  const hce::SiteState &state() { return *static_cast<const hce::SiteState *>(site); }
  const hce::profile::Plan *plan() { return hce::profile::plan_of(*state().scheduler); }
};

std::string temp_path(const std::string &name) {
  return testing::TempDir() + "hce_profile_e2e_" + name + "_" + std::to_string(getpid()) +
         ".txt";
}

class ProfileRegion : public testing::Test {
protected:
  void TearDown() override {
    hce_finalize();
    unsetenv("HCE_PROFILE");
    if (!path_.empty())
      std::remove(path_.c_str());
  }
  void use_profile(const std::string &name) {
    path_ = temp_path(name);
    std::remove(path_.c_str());
    setenv("HCE_PROFILE", path_.c_str(), 1);
  }
  std::string path_;
};

// sim:1 is 4x faster than sim:0 (modelled: 40 us per iteration at speed 1).
const char *kSpeeds = "sim:0=iter_time:40e-6;sim:1=iter_time:40e-6,speed:4";

// What the store keys sim:`ordinal`'s samples by under HCE_SIM=`sims`
// ("sim:0@sim speed:1,...": its name and parameters).
std::string key_of(int ordinal, const char *sims = kSpeeds) {
  std::string why;
  auto params = hce::parse_sim_params(sims, ordinal, why);
  EXPECT_TRUE(params) << why;
  return hce::profile::device_key(hce::SimDevice(ordinal, params.value_or(hce::SimParams{})));
}

TEST_F(ProfileRegion, OneProfiledRunGivesTheMeasuredRatiosAndPersists) {
  use_profile("persist");
  hce_test::use_devices("sim:0,sim:1", kSpeeds);
  {
    Loop loop(4000, "profile-e2e", "profile");
    loop.run_and_check();
    // No profile yet: the default split (equal shares).
    EXPECT_EQ(loop.last("sim:0"), 2000);
    EXPECT_EQ(loop.last("sim:1"), 2000);
    ASSERT_TRUE(loop.plan());
    EXPECT_FALSE(loop.plan()->from_model);
    loop.run_and_check();
    ASSERT_TRUE(loop.plan()->from_model);
    // 1:4 by the model (transfers and sleep overshoot blur it a little).
    double share = double(loop.last("sim:1")) / 4000;
    if (hce_test::timing_checks()) {
      EXPECT_GT(share, 0.72) << loop.last("sim:1");
      EXPECT_LT(share, 0.86) << loop.last("sim:1");
    }
    // The partition is the model's: shares as planned.
    EXPECT_EQ(loop.plan()->shares[1], loop.last("sim:1"));
  }
  hce_finalize(); // writes HCE_PROFILE
  hce::profile::Store saved;
  ASSERT_TRUE(saved.load(path_));
  EXPECT_FALSE(saved.has("profile-e2e", "sim:0")); // keyed with the hardware
  EXPECT_TRUE(saved.has("profile-e2e", key_of(0)));
  EXPECT_TRUE(saved.has("profile-e2e", key_of(1)));
  // The measured rates are the modelled ones: sim:0 40 us/it, sim:1 10.
  auto s0 = saved.samples("profile-e2e", key_of(0));
  auto e0 = hce::profile::interpolate(s0, 1000);
  ASSERT_TRUE(e0);
  EXPECT_GT(e0->exec_s, 0.039);
  if (hce_test::timing_checks())
    EXPECT_LT(e0->exec_s, 0.060);

  // A new runtime (a new run of the program) starts from the file.
  hce_test::use_devices("sim:0,sim:1", kSpeeds);
  Loop again(3000, "profile-e2e", "profile", 9); // a size not measured
  again.run_and_check();
  ASSERT_TRUE(again.plan());
  EXPECT_TRUE(again.plan()->from_model);
  double share = double(again.last("sim:1")) / 3000;
  if (hce_test::timing_checks()) {
    EXPECT_GT(share, 0.72);
    EXPECT_LT(share, 0.86);
  }
}

// A profile file named by HCE_PROFILE is the per-user cache moved: auto
// stays eft, seeded from it as from the default cache (no learning
// execution in the next run), and never hands the region to `profile`'s
// static partition (issue 12; the H100's warm lud took 32-36 ms under it
// against 5.7, call V23).
TEST_F(ProfileRegion, AProfileFileSeedsAutoLikeTheDefaultCache) {
  use_profile("auto");
  hce_test::use_devices("sim:0,sim:1", kSpeeds);
  {
    Loop loop(4000, "profile-auto", "auto");
    for (int exec = 0; exec < 8; ++exec) {
      loop.run_and_check();
      EXPECT_EQ(hce::sched::auto_choice(*loop.state().scheduler), "eft");
      EXPECT_EQ(loop.plan(), nullptr);
    }
  }
  hce_finalize(); // writes HCE_PROFILE
  hce::profile::Store saved;
  ASSERT_TRUE(saved.load(path_));
  EXPECT_TRUE(saved.has("profile-auto", key_of(0)));
  EXPECT_TRUE(saved.has("profile-auto", key_of(1)));

  hce_test::use_devices("sim:0,sim:1", kSpeeds);
  Loop again(4000, "profile-auto", "auto", 7);
  again.run_and_check();
  EXPECT_EQ(hce::sched::auto_choice(*again.state().scheduler), "eft");
  EXPECT_EQ(again.plan(), nullptr);
  EXPECT_EQ(again.state().stats.choice.find("learning"), std::string::npos)
      << again.state().stats.choice;
}

TEST_F(ProfileRegion, AutoUnchangedWithoutAProfileFile) {
  setenv("HCE_PROFILE", "off", 1);
  hce_test::use_devices("sim:0,sim:1", kSpeeds);
  Loop loop(4000, "profile-auto-off", "auto");
  loop.run_and_check();
  loop.run_and_check();
  EXPECT_EQ(hce::sched::auto_choice(*loop.state().scheduler), "eft");
}

TEST_F(ProfileRegion, CorruptProfileFileWarnsAndIsReplaced) {
  use_profile("corrupt");
  {
    std::ofstream out(path_);
    out << "hce-profile 1\nprofile-bad\t" << key_of(0) << "\t100\t0\t0.1\t0\t1\n"
        << "profile-bad\t" << key_of(1) << "\tlots\t0\t0.1\t0\t1\n";
  }
  hce_test::use_devices("sim:0,sim:1", kSpeeds);
  testing::internal::CaptureStderr();
  {
    Loop loop(2000, "profile-bad", "profile");
    loop.run_and_check();
    EXPECT_FALSE(loop.plan()->from_model); // the file's sample was ignored
  }
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("hce: warning: profile " + path_ + ":3: iterations"),
            std::string::npos)
      << err;
  hce_finalize();
  hce::profile::Store saved;
  testing::internal::CaptureStderr();
  EXPECT_TRUE(saved.load(path_));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(saved.has("profile-bad", key_of(1)));
}

TEST_F(ProfileRegion, MemoryBoundSharesRunAsRanges) {
  // 3 doubles per iteration: 16384 bytes hold floor(16384 / 24) = 682.
  const std::string sim = "sim:0=mem:16384,iter_time:40e-6,speed:4;sim:1=iter_time:40e-6";
  EXPECT_EQ(hce::profile::iterations_fitting(Loop(8, "x", "static").region, 16384), 682);
  use_profile("membound");
  hce_test::use_devices("sim:0,sim:1", sim);
  // static: sim:0's 2000 iterations are one chunk (the runtime cuts it
  // into pieces itself).
  Loop st(4000, "profile-mem-static", "static");
  st.run_and_check();
  EXPECT_EQ(st.state().stats.devices.at("sim:0").chunks, 1);

  Loop loop(4000, "profile-mem", "profile");
  loop.run_and_check(); // default split, cut at the memory bound
  EXPECT_EQ(loop.last("sim:0"), 2000);
  EXPECT_EQ(loop.state().stats.devices.at("sim:0").chunks, 3); // 682+682+636
  for (const hce::Range &r : loop.plan()->ranges[0])
    EXPECT_LE(r.size(), 682);
  int64_t chunks_before = loop.state().stats.devices.at("sim:0").chunks;
  loop.run_and_check(); // from the model: sim:0 is 4x faster
  ASSERT_TRUE(loop.plan()->from_model);
  const int64_t share = loop.last("sim:0");
  EXPECT_GT(share, 2400); // about 0.8 of 4000: more than the 2000 before
  const int64_t ranges = (share + 681) / 682;
  EXPECT_EQ(loop.state().stats.devices.at("sim:0").chunks - chunks_before, ranges);
  ASSERT_EQ(int64_t(loop.plan()->ranges[0].size()), ranges);
  for (const hce::Range &r : loop.plan()->ranges[0])
    EXPECT_LE(r.size(), 682);
}

TEST_F(ProfileRegion, AMemoryBoundFollowsANewShape) {
  // x[k : len]: with len 1 three doubles an iteration, 682 of them in 16384
  // bytes; with len 901 the window also holds x's 900 more, 382 fit.  Only
  // the shape changes (the site keeps its plan, PlanKey::reshape): the
  // profile's memory bound must follow it.
  const std::string sim = "sim:0=mem:16384,iter_time:40e-6,speed:4;sim:1=iter_time:40e-6";
  use_profile("membound-reshape");
  hce_test::use_devices("sim:0,sim:1", sim);
  Loop loop(2000, "profile-mem-reshape", "profile");
  loop.x = hce_test::random_vector(2900, 7);
  loop.maps[0].host = loop.x.data();
  loop.run_and_check();
  for (const hce::Range &r : loop.plan()->ranges[0])
    EXPECT_LE(r.size(), 682);
  loop.maps[0].len = 901;
  EXPECT_EQ(hce::profile::iterations_fitting(loop.region, 16384), 382);
  loop.run_and_check();
  ASSERT_FALSE(loop.plan()->ranges[0].empty()) << "sim:0 did no work";
  for (const hce::Range &r : loop.plan()->ranges[0])
    EXPECT_LE(r.size(), 382) << "a memory bound of the earlier shape";
}

TEST_F(ProfileRegion, RandomDataMatchesSequentialReference) {
  use_profile("random");
  hce_test::use_devices("cpu,sim:0,sim:1", "sim:0=mem:40000;sim:1=speed:0.5");
  // Several sizes (most never measured: interpolated), several executions.
  unsigned seed = 3;
  for (int64_t W : {int64_t(1), int64_t(2), int64_t(3), int64_t(997), int64_t(5000),
                    int64_t(20011)}) {
    Loop loop(W, "profile-random", "profile", seed++);
    for (int exec = 0; exec < 3; ++exec) {
      loop.run_and_check();
      int64_t total = loop.last("cpu") + loop.last("sim:0") + loop.last("sim:1");
      EXPECT_EQ(total, W);
    }
  }
}

} // namespace

namespace {

// The default per-user cache (no HCE_PROFILE) in a directory of the test's
// own: XDG_CACHE_HOME points there while the test runs.
class ProfileCache : public testing::Test {
protected:
  void SetUp() override {
    dir_ = testing::TempDir() + "hce_cache_" +
           testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
           std::to_string(getpid());
    std::filesystem::remove_all(dir_);
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
    unsetenv("HCE_PROFILE");
  }
  void TearDown() override {
    hce_finalize();
    unsetenv("XDG_CACHE_HOME");
    std::filesystem::remove_all(dir_);
  }
  // The program's cache file ("" when there is none yet).
  std::string file() const {
    for (const auto &entry : std::filesystem::recursive_directory_iterator(dir_))
      if (entry.path().extension() == ".profile")
        return entry.path().string();
    return "";
  }
  std::string text() const {
    std::ifstream in(file());
    return std::string(std::istreambuf_iterator<char>(in),
                       std::istreambuf_iterator<char>());
  }
  void load(hce::profile::Store &saved) const {
    const std::string f = file();
    ASSERT_TRUE(saved.load(f)) << f;
  }
  std::string dir_;
};

// The default per-user cache keeps, beside the devices' samples, the wall
// time auto measured co-executing and with one device alone
// ("=co:sim:0+sim:1", "=alone:sim:1") and the cost models it learnt
// ("=model:sim:0+sim:1/sim:0"); the next run seeds them and starts in the
// faster mode, with no learning execution.
TEST_F(ProfileCache, ModeWallsPersistAndSeedTheNextRun) {
  hce_test::use_devices("sim:0,sim:1", kSpeeds);
  {
    Loop loop(4000, "mode-cache", "auto");
    for (int exec = 0; exec < 8; ++exec)
      loop.run_and_check();
  }
  hce_finalize(); // writes the cache
  const std::string text = this->text();
  const std::string both = key_of(0) + "+" + key_of(1);
  const bool has_mode = text.find("mode-cache\t=co:" + both + "\t") != std::string::npos ||
                        text.find("mode-cache\t=alone:sim:") != std::string::npos;
  EXPECT_TRUE(has_mode) << text;
  // eft's models as learnt beside each other, preferred by the next run's
  // seeds to the devices' own samples.
  for (int dev : {0, 1})
    EXPECT_NE(text.find("mode-cache\t=model:" + both + "/" + key_of(dev) + "\t"),
              std::string::npos)
        << text;

  hce_test::use_devices("sim:0,sim:1", kSpeeds);
  {
    Loop loop(4000, "mode-cache", "auto");
    loop.run_and_check();
    EXPECT_EQ(loop.state().stats.choice.find("learning"), std::string::npos)
        << loop.state().stats.choice;
  }
}

// A run on one device (HCE_DEVICES=sim:1, any scheduler) keeps its wall as
// that device's arm alone ("=alone:sim:1@..."): a later co-execution on
// sim:0,sim:1 starts with the arms alone measured instead of predicted, so
// the GPU alone of a `gpu` run is not taken for its cost beside the CPU.
TEST_F(ProfileCache, AOneDeviceRunKeepsItsWallAsThatDeviceAlone) {
  for (const char *one : {"sim:0", "sim:1"}) { // a `cpu` and a `gpu` run
    hce_test::use_devices(one, kSpeeds);
    {
      Loop loop(1000, "alone-one", "static");
      for (int exec = 0; exec < 3; ++exec)
        loop.run_and_check();
      EXPECT_EQ(loop.last(one), 1000);
    }
    hce_finalize(); // writes the cache
  }
  hce::profile::Store saved;
  load(saved);
  for (int dev : {0, 1}) {
    const std::string alone = "=alone:" + key_of(dev);
    ASSERT_TRUE(saved.has("alone-one", alone)) << saved.serialize();
    // Its wall: 1000 iterations at 40 or 10 us (and the sim's copies).
    auto wall = saved.estimate("alone-one", alone, 1000);
    ASSERT_TRUE(wall);
    const double compute = dev == 0 ? 0.040 : 0.010;
    EXPECT_GT(wall->exec_s, 0.95 * compute);
    if (hce_test::timing_checks())
      EXPECT_LT(wall->exec_s, 2 * compute);
  }
  EXPECT_FALSE(saved.has("alone-one", "=co:" + key_of(0) + "+" + key_of(1)));

  hce_test::use_devices("sim:0,sim:1", kSpeeds);
  {
    Loop loop(1000, "alone-one", "auto");
    loop.run_and_check();
    // eft's arms ("arms: co Xp0 0 Ym1 1 Zm1"): each device alone measured
    // once (the seeded walls), co-execution predicted.
    const std::string &choice = loop.state().stats.choice;
    const size_t co = choice.find("arms: co "), arm0 = choice.find(" 0 "),
                 arm1 = choice.find(" 1 ");
    ASSERT_NE(co, std::string::npos) << choice;
    ASSERT_NE(arm0, std::string::npos) << choice;
    ASSERT_NE(arm1, std::string::npos) << choice;
    EXPECT_NE(choice.substr(co, arm0 - co).find("p0"), std::string::npos) << choice;
    EXPECT_NE(choice.substr(arm0, arm1 - arm0).find("m1"), std::string::npos) << choice;
    EXPECT_NE(choice.substr(arm1).find("m1"), std::string::npos) << choice;
  }
}

// A region that runs once per program: its only execution is a first one,
// which eft's seeds chose (here co-execution, the two sims alike).  Its
// wall goes to the cache as "=co:..." (Store::record keeps a first
// execution's sample when the region never runs again); without it the
// next run of the program decided on predictions again (matadd on the
// H100: one co-executed run at 2.7x the CPU alone in every fresh cache).
TEST_F(ProfileCache, AOneExecutionProgramKeepsTheWallOfItsMode) {
  const char *alike = "sim:0=iter_time:40e-6;sim:1=iter_time:40e-6";
  for (const char *one : {"sim:0", "sim:1"}) { // each device's own samples
    hce_test::use_devices(one, alike);
    {
      Loop loop(500, "one-exec", "static");
      loop.run_and_check();
    }
    hce_finalize();
  }
  const std::string co = "=co:" + key_of(0, alike) + "+" + key_of(1, alike);
  {
    hce::profile::Store saved;
    load(saved);
    EXPECT_FALSE(saved.has("one-exec", co));
  }
  hce_test::use_devices("sim:0,sim:1", alike);
  {
    Loop loop(500, "one-exec", "auto");
    loop.run_and_check();
    // Seeded, the first execution is planned: co-execution, half each --
    // unless a controller starts late and the other takes its block's tail
    // (a loaded ASan build in CI: 67 of 500; the split's bound of 100 failed
    // under load in sessions 52-53 too), so only that both worked is
    // asserted, where timings count.  What the test is about is the wall.
    EXPECT_EQ(loop.last("sim:0") + loop.last("sim:1"), 500);
    if (hce_test::timing_checks()) {
      EXPECT_GT(loop.last("sim:0"), 0);
      EXPECT_GT(loop.last("sim:1"), 0);
    }
    EXPECT_EQ(loop.state().stats.choice.find("learning"), std::string::npos)
        << loop.state().stats.choice;
  }
  hce_finalize();
  hce::profile::Store saved;
  load(saved);
  ASSERT_TRUE(saved.has("one-exec", co)) << saved.serialize();
  auto wall = saved.estimate("one-exec", co, 500);
  ASSERT_TRUE(wall);
  EXPECT_GT(wall->exec_s, 0.009); // 250 iterations at 40 us on each
  if (hce_test::timing_checks())
    EXPECT_LT(wall->exec_s, 0.030);
}

// A cache shared between machines (an NFS home), or a run with other
// devices under the same names: samples of sim:0 at 1 us per iteration are
// not what sim:0 at 1 ms costs.  Replayed, they gave the slow device half
// of 65536 iterations (65 s where the CPU alone takes milliseconds).
TEST_F(ProfileCache, AnotherDevicesSamplesAreNotReplayed) {
  const char *fast = "sim:0=iter_time:1e-6;sim:1=iter_time:1e-6";
  const char *slow = "sim:0=iter_time:1e-3;sim:1=iter_time:1e-6";
  ASSERT_NE(key_of(0, fast), key_of(0, slow));
  hce_test::use_devices("sim:0,sim:1", fast);
  {
    Loop loop(4000, "other-hw", "auto");
    for (int exec = 0; exec < 8; ++exec)
      loop.run_and_check();
  }
  hce_finalize(); // writes the cache
  hce_test::use_devices("sim:0,sim:1", slow);
  {
    Loop loop(4000, "other-hw", "auto");
    loop.run_and_check();
    // Nothing seeded for the slow sim:0: eft probes it, a small chunk.
    EXPECT_NE(loop.state().stats.choice.find("learning"), std::string::npos)
        << loop.state().stats.choice;
    EXPECT_LT(loop.last("sim:0"), 400);
  }
}

} // namespace
