// The typed settings (runtime/src/settings.cpp): every HCE_* tuning variable
// is validated, and a bad value stops the region with a message naming the
// variable instead of silently falling back to a default.
#include "settings.hpp"

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
