// The typed settings (runtime/src/settings.cpp): every HCE_* tuning variable
// is validated, and a bad value stops the region with a message naming the
// variable instead of silently falling back to a default.  The runtime reads
// them once, when it starts; Runtime::reload_settings() reads them again.
#include "settings.hpp"

#include "runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

struct EnvGuard {
  ~EnvGuard() {
    for (const char *v :
         {"HCE_SCHEDULE", "HCE_CO", "HCE_CHUNK", "HCE_ALPHA", "HCE_MIN_SHARE"})
      unsetenv(v);
  }
};

TEST(Settings, DefaultsWithoutEnvironment) {
  EnvGuard g;
  hce::Settings s;
  std::string why;
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_FALSE(s.schedule);
  EXPECT_FALSE(s.co);
  EXPECT_FALSE(s.chunk);
  EXPECT_FALSE(s.alpha);
  EXPECT_DOUBLE_EQ(s.min_share, 0.03);
}

TEST(Settings, GoodValuesAreParsed) {
  EnvGuard g;
  setenv("HCE_SCHEDULE", "eft", 1);
  setenv("HCE_CO", "pipelined", 1);
  setenv("HCE_CHUNK", "64", 1);
  setenv("HCE_ALPHA", "0.25", 1);
  setenv("HCE_MIN_SHARE", "0", 1);
  hce::Settings s;
  std::string why;
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(*s.schedule, "eft");
  EXPECT_EQ(*s.co, hce::CoMode::Pipelined);
  EXPECT_EQ(*s.chunk, 64);
  EXPECT_DOUBLE_EQ(*s.alpha, 0.25);
  EXPECT_DOUBLE_EQ(s.min_share, 0.0);
}

struct Bad {
  const char *var, *value, *mentions;
};

class SettingsBad : public ::testing::TestWithParam<Bad> {};

TEST_P(SettingsBad, IsRejectedNamingTheVariable) {
  EnvGuard g;
  setenv(GetParam().var, GetParam().value, 1);
  hce::Settings s;
  std::string why;
  EXPECT_FALSE(hce::Settings::from_env(s, why));
  EXPECT_NE(why.find(GetParam().var), std::string::npos) << why;
  EXPECT_NE(why.find(GetParam().mentions), std::string::npos) << why;
}

INSTANTIATE_TEST_SUITE_P(Values, SettingsBad,
                         ::testing::Values(Bad{"HCE_CO", "maybe", "pipelined"},
                                           Bad{"HCE_MIN_SHARE", "x", "[0, 1)"},
                                           Bad{"HCE_MIN_SHARE", "1.5", "[0, 1)"},
                                           Bad{"HCE_SCHEDULE", "fastest", "eft"},
                                           Bad{"HCE_CHUNK", "-3", "integer"},
                                           Bad{"HCE_CHUNK", "12k", "integer"},
                                           Bad{"HCE_ALPHA", "1", "(0, 1)"}),
                         // A stable name: gtest_discover_tests lists the tests
                         // once, and a name printed from the parameter's
                         // pointers (ASLR) would match nothing when ctest runs
                         // it, which passes with no test run.
                         [](const ::testing::TestParamInfo<Bad> &info) {
                           std::string name = std::string(info.param.var + 4) + "_" +
                                              std::to_string(info.index);
                           return name;
                         });

} // namespace

// ---- Read once, by the runtime ---------------------------------------------------

namespace {

void noop_cpu(int64_t, int64_t, void *const *, const void *, void *) {}

hce_region noop_region(void **site) {
  hce_region r{};
  r.name = "noop";
  r.iterations = 64;
  r.cpu = noop_cpu;
  r.site = site;
  return r;
}

struct RuntimeEnvGuard : EnvGuard {
  ~RuntimeEnvGuard() { hce_finalize(); }
};

TEST(RuntimeSettings, BadValueAtStartFailsTheFirstRegionNamingTheVariable) {
  RuntimeEnvGuard g;
  hce_test::use_devices("cpu");
  setenv("HCE_CO", "maybe", 1);
  void *site = nullptr;
  hce_region r = noop_region(&site);
  testing::internal::CaptureStderr();
  EXPECT_NE(hce_co_exec(&r), 0);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("hce: error: HCE_CO='maybe': expected none, off, incremental or "
                     "pipelined"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("noop"), std::string::npos) << err;
  // Fixed and reloaded: regions run again.
  unsetenv("HCE_CO");
  std::string why;
  ASSERT_TRUE(hce::Runtime::get().reload_settings(why)) << why;
  EXPECT_EQ(hce_co_exec(&r), 0);
  EXPECT_EQ(hce_last_iterations(&site, "cpu"), 64);
}

TEST(RuntimeSettings, BadValueExitsNonZeroAtTheFirstRegion) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  RuntimeEnvGuard g;
  hce_test::use_devices("cpu");
  setenv("HCE_MIN_SHARE", "x", 1);
  void *site = nullptr;
  hce_region r = noop_region(&site);
  EXPECT_EXIT(hce_co_exec_or_exit(&r), testing::ExitedWithCode(1),
              "hce: error: HCE_MIN_SHARE='x': expected a share in \\[0, 1\\)");
}

TEST(RuntimeSettings, ReadOnceUntilReloaded) {
  RuntimeEnvGuard g;
  hce_test::use_devices("cpu");
  setenv("HCE_CHUNK", "16", 1);
  EXPECT_EQ(*hce::Runtime::get().settings().chunk, 16);
  setenv("HCE_CHUNK", "32", 1); // not seen until a reload
  EXPECT_EQ(*hce::Runtime::get().settings().chunk, 16);
  std::string why;
  ASSERT_TRUE(hce::Runtime::get().reload_settings(why)) << why;
  EXPECT_EQ(*hce::Runtime::get().settings().chunk, 32);
  // A bad value on reload is reported, and fails regions until fixed.
  setenv("HCE_ALPHA", "2", 1);
  EXPECT_FALSE(hce::Runtime::get().reload_settings(why));
  EXPECT_NE(why.find("HCE_ALPHA='2'"), std::string::npos) << why;
  void *site = nullptr;
  hce_region r = noop_region(&site);
  testing::internal::CaptureStderr();
  EXPECT_NE(hce_co_exec(&r), 0);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("HCE_ALPHA='2'"), std::string::npos) << err;
  unsetenv("HCE_ALPHA");
  ASSERT_TRUE(hce::Runtime::get().reload_settings(why)) << why;
  EXPECT_EQ(hce_co_exec(&r), 0);
}

} // namespace
