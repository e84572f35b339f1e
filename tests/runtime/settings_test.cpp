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
#include <utility>

namespace {

struct EnvGuard {
  ~EnvGuard() {
    for (const char *v : {"HCE_SCHEDULE",
                          "HCE_CO",
                          "HCE_CHUNK",
                          "HCE_ALPHA",
                          "HCE_MIN_SHARE",
                          "HCE_CUDA_MEM_LIMIT",
                          "HCE_OMP_MEM_LIMIT",
                          "HCE_CUDA_PIN",
                          "HCE_CUDA_P2P",
                          "HCE_TASK_THRESHOLD",
                          "HCE_OMP_POISON",
                          "HCE_TASK_MAP",
                          "HCE_TASK_PARTITION",
                          "HCE_TASK_SPEED",
                          "HCE_TASK_LOG",
                          "HCE_HUGE_PAGES",
                          "HCE_COPY_THREADS_BESIDE",
                          "HCE_PREFAULT",
                          "HCE_CORES_PER_ACCELERATOR",
                          "HCE_CORES_LEFT_FREE"})
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
  EXPECT_FALSE(s.cuda_mem_limit);
  EXPECT_FALSE(s.omp_mem_limit);
  EXPECT_EQ(s.cuda_pin, hce::PinPolicy::Region);
  EXPECT_TRUE(s.cuda_p2p);
  EXPECT_TRUE(s.huge_pages);
  EXPECT_FALSE(s.prefault_threads);
  EXPECT_FALSE(s.task_threshold);
  EXPECT_FALSE(s.copy_threads_beside);
  EXPECT_FALSE(s.cores_per_accelerator);
}

TEST(Settings, CoresPerAcceleratorIsACount) {
  EnvGuard g;
  hce::Settings s;
  std::string why;
  setenv("HCE_CORES_PER_ACCELERATOR", "0", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(s.cores_per_accelerator, 0);
  setenv("HCE_CORES_PER_ACCELERATOR", "3", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(s.cores_per_accelerator, 3);
  setenv("HCE_CORES_PER_ACCELERATOR", "-1", 1);
  EXPECT_FALSE(hce::Settings::from_env(s, why));
  EXPECT_NE(why.find("HCE_CORES_PER_ACCELERATOR='-1'"), std::string::npos) << why;
}

TEST(Settings, CoresLeftFreeIsACount) {
  EnvGuard g;
  hce::Settings s;
  std::string why;
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_FALSE(s.cores_left_free.has_value());
  setenv("HCE_CORES_LEFT_FREE", "1", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(s.cores_left_free, 1);
  setenv("HCE_CORES_LEFT_FREE", "0", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(s.cores_left_free, 0);
}

TEST(Settings, CopyThreadsBesideIsACount) {
  EnvGuard g;
  hce::Settings s;
  std::string why;
  setenv("HCE_COPY_THREADS_BESIDE", "0", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(s.copy_threads_beside, 0);
  setenv("HCE_COPY_THREADS_BESIDE", "8", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(s.copy_threads_beside, 8);
  setenv("HCE_COPY_THREADS_BESIDE", "65", 1);
  EXPECT_FALSE(hce::Settings::from_env(s, why));
  EXPECT_NE(why.find("HCE_COPY_THREADS_BESIDE"), std::string::npos) << why;
}

TEST(Settings, HugePagesIsAFlag) {
  EnvGuard g;
  hce::Settings s;
  std::string why;
  setenv("HCE_HUGE_PAGES", "0", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_FALSE(s.huge_pages);
  setenv("HCE_HUGE_PAGES", "1", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_TRUE(s.huge_pages);
  setenv("HCE_HUGE_PAGES", "yes", 1);
  EXPECT_FALSE(hce::Settings::from_env(s, why));
  EXPECT_NE(why.find("HCE_HUGE_PAGES='yes'"), std::string::npos) << why;
}

TEST(Settings, PrefaultIsAThreadCount) {
  EnvGuard g;
  hce::Settings s;
  std::string why;
  setenv("HCE_PREFAULT", "0", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(s.prefault_threads, 0);
  setenv("HCE_PREFAULT", "6", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(s.prefault_threads, 6);
  for (const char *bad : {"65", "-1", "on", "2x"}) {
    setenv("HCE_PREFAULT", bad, 1);
    EXPECT_FALSE(hce::Settings::from_env(s, why)) << bad;
    EXPECT_NE(why.find("HCE_PREFAULT='" + std::string(bad) + "'"), std::string::npos)
        << why;
  }
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

// HCE_CUDA_MEM_LIMIT and HCE_OMP_MEM_LIMIT share one parser: bytes, k/m/g
// as powers of 1024, then optionally B or iB.
TEST(Settings, ByteSizes) {
  const std::pair<const char *, size_t> good[] = {
      {"4096", 4096},
      {"0", 0},
      {"4096B", 4096},
      {"64k", 65536},
      {"64K", 65536},
      {"64kB", 65536},
      {"64KiB", 65536},
      {"512MiB", size_t(512) << 20},
      {"512m", size_t(512) << 20},
      {"1.5g", 1610612736},
      {"1.5G", 1610612736},
      {"2GB", size_t(2) << 30},
      {"2GiB", size_t(2) << 30},
      {".5k", 512},
  };
  for (const auto &[text, bytes] : good) {
    SCOPED_TRACE(text);
    auto v = hce::parse_byte_size(text);
    ASSERT_TRUE(v);
    EXPECT_EQ(*v, bytes);
  }
  for (const char *text :
       {"", "12x", "lots", "-1", "-1k", "+1k", " 64k", "64k ", "0x10", "inf", "nan",
        "4096iB", "64kk", "64kb", "64Ki", "k", "B", "1e30g", "64 k"}) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(hce::parse_byte_size(text));
  }
}

TEST(Settings, DeviceAndTaskValuesAreParsed) {
  EnvGuard g;
  setenv("HCE_CUDA_MEM_LIMIT", "1.5g", 1);
  setenv("HCE_OMP_MEM_LIMIT", "512MiB", 1);
  setenv("HCE_CUDA_PIN", "stage", 1);
  setenv("HCE_CUDA_P2P", "0", 1);
  setenv("HCE_TASK_THRESHOLD", "5", 1);
  hce::Settings s;
  std::string why;
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(*s.cuda_mem_limit, size_t(1610612736));
  EXPECT_EQ(*s.omp_mem_limit, size_t(512) << 20);
  EXPECT_EQ(s.cuda_pin, hce::PinPolicy::Stage);
  EXPECT_FALSE(s.cuda_p2p);
  EXPECT_EQ(*s.task_threshold, 5);

  setenv("HCE_CUDA_MEM_LIMIT", "4096", 1);
  setenv("HCE_OMP_MEM_LIMIT", "0", 1); // no cap, as before
  setenv("HCE_CUDA_P2P", "1", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(*s.cuda_mem_limit, size_t(4096));
  EXPECT_EQ(*s.omp_mem_limit, size_t(0));
  EXPECT_TRUE(s.cuda_p2p);
  for (const char *p : {"region", "keep", "stage", "off"}) {
    setenv("HCE_CUDA_PIN", p, 1);
    ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
    EXPECT_STREQ(hce::pin_policy_name(s.cuda_pin), p);
    EXPECT_EQ(hce::parse_pin_policy(p), s.cuda_pin);
  }
  // An empty variable is an unset one.
  setenv("HCE_CUDA_MEM_LIMIT", "", 1);
  setenv("HCE_CUDA_P2P", "", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_FALSE(s.cuda_mem_limit);
  EXPECT_TRUE(s.cuda_p2p);
}

// The task system's and omp:N's variables, read by the runtime with the
// others (they used to be read where used, a bad value taken as a default:
// HCE_TASK_SPEED=cpu=fast ignored, HCE_TASK_PARTITION=soon the default).
TEST(Settings, TaskAndOffloadValuesAreParsed) {
  EnvGuard g;
  hce::Settings s;
  std::string why;
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(s.task_map, "ratio");
  EXPECT_FALSE(s.task_partition);
  EXPECT_TRUE(s.task_speed.empty());
  EXPECT_FALSE(s.task_log);
  EXPECT_FALSE(s.omp_poison);
  setenv("HCE_TASK_MAP", "heft", 1);
  setenv("HCE_TASK_PARTITION", "0.005", 1);
  setenv("HCE_TASK_SPEED", "cpu=1,cuda=8,sim:1=2.5", 1);
  setenv("HCE_TASK_LOG", "1", 1);
  setenv("HCE_OMP_POISON", "1", 1);
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(s.task_map, "heft");
  EXPECT_DOUBLE_EQ(*s.task_partition, 0.005);
  ASSERT_EQ(s.task_speed.size(), 3u);
  EXPECT_EQ(s.task_speed[1], (std::pair<std::string, double>{"cuda", 8}));
  EXPECT_EQ(s.task_speed[2], (std::pair<std::string, double>{"sim:1", 2.5}));
  EXPECT_TRUE(s.task_log);
  EXPECT_TRUE(s.omp_poison);
  for (const char *off : {"off", "0"}) {
    setenv("HCE_TASK_PARTITION", off, 1);
    ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
    EXPECT_EQ(*s.task_partition, 0) << off;
  }
}

// A bad value leaves every setting at its default, not half-parsed.
TEST(Settings, BadValueLeavesTheDefaults) {
  EnvGuard g;
  setenv("HCE_CHUNK", "64", 1);
  setenv("HCE_CUDA_MEM_LIMIT", "1g", 1);
  setenv("HCE_TASK_THRESHOLD", "abc", 1);
  hce::Settings s;
  std::string why;
  EXPECT_FALSE(hce::Settings::from_env(s, why));
  EXPECT_FALSE(s.chunk);
  EXPECT_FALSE(s.cuda_mem_limit);
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
  EXPECT_NE(why.find(std::string(GetParam().var) + "='" + GetParam().value + "'"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find(GetParam().mentions), std::string::npos) << why;
}

INSTANTIATE_TEST_SUITE_P(
    Values, SettingsBad,
    ::testing::Values(
        Bad{"HCE_CO", "maybe", "pipelined"}, Bad{"HCE_MIN_SHARE", "x", "[0, 1)"},
        Bad{"HCE_COPY_THREADS_BESIDE", "-1", "0 to 64"},
        Bad{"HCE_COPY_THREADS_BESIDE", "4x", "0 to 64"},
        Bad{"HCE_CORES_PER_ACCELERATOR", "65", "0 to 64"},
        Bad{"HCE_CORES_PER_ACCELERATOR", "two", "0 to 64"},
        Bad{"HCE_CORES_LEFT_FREE", "65", "0 to 64"},
        Bad{"HCE_CORES_LEFT_FREE", "1.5", "0 to 64"},
        Bad{"HCE_MIN_SHARE", "1.5", "[0, 1)"}, Bad{"HCE_SCHEDULE", "fastest", "eft"},
        Bad{"HCE_CHUNK", "-3", "integer"}, Bad{"HCE_CHUNK", "12k", "integer"},
        Bad{"HCE_ALPHA", "1", "(0, 1)"}, Bad{"HCE_CUDA_MEM_LIMIT", "12x", "byte count"},
        Bad{"HCE_CUDA_MEM_LIMIT", "-1", "byte count"},
        Bad{"HCE_OMP_MEM_LIMIT", "lots", "byte count"},
        Bad{"HCE_OMP_MEM_LIMIT", "4096iB", "iB"},
        Bad{"HCE_CUDA_PIN", "sometimes", "stage"},
        Bad{"HCE_CUDA_P2P", "yes", "0 (off) or 1"},
        Bad{"HCE_TASK_THRESHOLD", "-3", "integer > 0"},
        Bad{"HCE_TASK_THRESHOLD", "abc", "integer > 0"},
        Bad{"HCE_TASK_THRESHOLD", "0", "integer > 0"},
        Bad{"HCE_TASK_MAP", "fastest", "heft"},
        Bad{"HCE_TASK_PARTITION", "soon", "or off"},
        Bad{"HCE_TASK_PARTITION", "-1", "> 0"}, Bad{"HCE_TASK_PARTITION", "inf", "> 0"},
        Bad{"HCE_TASK_SPEED", "cpu=fast", "NAME=SPEED"},
        Bad{"HCE_TASK_SPEED", "cpu=1,cuda", "NAME=SPEED"},
        Bad{"HCE_TASK_SPEED", "=2", "NAME=SPEED"}, Bad{"HCE_TASK_SPEED", "cuda=0", "> 0"},
        Bad{"HCE_TASK_LOG", "yes", "0 (off) or 1"},
        Bad{"HCE_OMP_POISON", "true", "0 (off) or 1"}),
    // A stable name: gtest_discover_tests lists the tests
    // once, and a name printed from the parameter's
    // pointers (ASLR) would match nothing when ctest runs
    // it, which passes with no test run.
    [](const ::testing::TestParamInfo<Bad> &info) {
      std::string name =
          std::string(info.param.var + 4) + "_" + std::to_string(info.index);
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

// A runtime on the CPU alone whose first region or task sees var=value, and
// a region to run on it.
hce_region cpu_runtime_with(const char *var, const char *value, void **site) {
  hce_test::use_devices("cpu");
  setenv(var, value, 1);
  return noop_region(site);
}

TEST(RuntimeSettings, BadValueAtStartFailsTheFirstRegionNamingTheVariable) {
  RuntimeEnvGuard g;
  void *site = nullptr;
  hce_region r = cpu_runtime_with("HCE_CO", "maybe", &site);
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

// The device and task variables take the same path: the runtime reads them
// before it makes its devices, and a bad one fails every region.
TEST(RuntimeSettings, BadDeviceValueFailsTheRegionNamingTheVariable) {
  const std::pair<const char *, const char *> bad[] = {
      {"HCE_CUDA_MEM_LIMIT", "12x"},  {"HCE_OMP_MEM_LIMIT", "lots"},
      {"HCE_CUDA_PIN", "sometimes"},  {"HCE_CUDA_P2P", "yes"},
      {"HCE_TASK_THRESHOLD", "-3"},   {"HCE_TASK_MAP", "fastest"},
      {"HCE_TASK_PARTITION", "soon"}, {"HCE_TASK_SPEED", "cpu=fast"},
      {"HCE_TASK_LOG", "yes"},        {"HCE_OMP_POISON", "true"},
  };
  for (const auto &[var, value] : bad) {
    SCOPED_TRACE(var);
    RuntimeEnvGuard g;
    void *site = nullptr;
    hce_region r = cpu_runtime_with(var, value, &site);
    testing::internal::CaptureStderr();
    EXPECT_NE(hce_co_exec(&r), 0);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("hce: error: " + std::string(var) + "='" + value + "': expected "),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("noop"), std::string::npos) << err;
  }
  // Unset (the guards did), the runtime runs regions again.
  RuntimeEnvGuard g;
  hce_test::use_devices("cpu");
  void *site = nullptr;
  hce_region r = noop_region(&site);
  EXPECT_EQ(hce_co_exec(&r), 0);
  EXPECT_EQ(hce_last_iterations(&site, "cpu"), 64);
}

// A task (hce_co_exec_nowait) stops on them too: HCE_TASK_SPEED=cpu=fast
// was ignored, and the mapper planned with its defaults.
TEST(RuntimeSettings, BadTaskValueFailsTheTaskNamingTheVariable) {
  RuntimeEnvGuard g;
  void *site = nullptr;
  hce_region r = cpu_runtime_with("HCE_TASK_SPEED", "cpu=fast", &site);
  testing::internal::CaptureStderr();
  const int submitted = hce_co_exec_nowait(&r, 0, nullptr);
  const int waited = hce_taskwait();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(submitted != 0 || waited != 0);
  EXPECT_NE(err.find("hce: error: HCE_TASK_SPEED='cpu=fast': expected relative speeds"),
            std::string::npos)
      << err;
}

TEST(RuntimeSettings, BadMemLimitMessageSaysWhatIsAccepted) {
  RuntimeEnvGuard g;
  void *site = nullptr;
  hce_region r = cpu_runtime_with("HCE_CUDA_MEM_LIMIT", "12x", &site);
  testing::internal::CaptureStderr();
  EXPECT_NE(hce_co_exec(&r), 0);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(
      err.find("hce: error: HCE_CUDA_MEM_LIMIT='12x': expected a byte count (4096, "
               "64k, 512MiB, 1.5g: k, m, g are powers of 1024, then optionally B or "
               "iB)"),
      std::string::npos)
      << err;
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
