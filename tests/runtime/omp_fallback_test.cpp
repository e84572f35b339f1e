// omp:N without libomptarget (part of hce_runtime_tests, which is not
// linked with OpenMP offload): zero omp devices, exactly one notice naming
// the request, no error, and a correct CPU run.  The tests of the device
// itself are in omp_offload_tests.cpp (hce_omp_tests, linked with offload).
#include "omp/omp_device.hpp"
#include "omp/omp_jit.hpp"
#include "runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace {

size_t count_of(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
    ++n;
  return n;
}

bool libomptarget_loaded() { return dlsym(RTLD_DEFAULT, "omp_target_alloc") != nullptr; }

void twice_cpu(int64_t lb, int64_t ub, void *const *p, const void *, void *red) {
  const double *x = static_cast<const double *>(p[0]);
  double *y = static_cast<double *>(p[1]);
  double s = *static_cast<double *>(red);
  for (int64_t i = lb; i < ub; ++i) {
    y[i] = 2 * x[i] + 1;
    s += x[i];
  }
  *static_cast<double *>(red) = s;
}

int never_called_omp(int64_t, int64_t, void *const *, const void *, void *, int) {
  std::fprintf(stderr, "FAILED: the omp variant ran without libomptarget\n");
  std::abort();
}

// Runs a region with a reduction on `devices`; true when every element and
// the sum are right.
bool run_twice(const std::string &devices, unsigned seed) {
  hce_test::use_devices(devices);
  const int64_t n = 5003;
  std::vector<double> x = hce_test::random_vector(size_t(n), seed), y(size_t(n), -1.0);
  double sum = 1.5, ref = 1.5;
  for (double v : x)
    ref += v;
  hce_map maps[2] = {{"x", x.data(), 8, HCE_MAP_TO, 1, 0, 1, 1, 0},
                     {"y", y.data(), 8, HCE_MAP_FROM, 1, 0, 1, 1, 0}};
  hce_reduction red{"sum", &sum, HCE_RED_ADD, HCE_TYPE_F64};
  hce_region r{};
  r.name = "omp_fallback";
  r.schedule = "fdets";
  r.iterations = n;
  r.num_maps = 2;
  r.maps = maps;
  r.num_reductions = 1;
  r.reductions = &red;
  r.cpu = twice_cpu;
  r.omp = never_called_omp;
  if (hce_co_exec(&r) != 0)
    return false;
  for (int64_t i = 0; i < n; ++i)
    if (y[size_t(i)] != 2 * x[size_t(i)] + 1)
      return false;
  return std::abs(sum - ref) < 1e-9 * double(n);
}

TEST(OmpFallback, NoLibomptargetMeansZeroDevicesWithAReason) {
  if (libomptarget_loaded())
    GTEST_SKIP() << "this binary has libomptarget loaded";
  std::string why;
  EXPECT_EQ(hce::omp_api(why), nullptr);
  EXPECT_NE(why.find("libomptarget is not loaded"), std::string::npos) << why;
  EXPECT_EQ(hce::omp_device_count(why), 0);
  EXPECT_EQ(hce::OmpDevice::create(0, why), nullptr);
  EXPECT_NE(why.find("libomptarget"), std::string::npos) << why;
}

// A fresh process (notices are once per process): two runtimes, each asked
// for omp devices, two regions each.
[[noreturn]] void fallback_child() {
  testing::internal::CaptureStderr();
  bool correct = true;
  int devices = 0;
  for (const char *devs : {"cpu,omp:0", "cpu,omp:1,omp"}) {
    for (unsigned rep = 0; rep < 2; ++rep)
      correct = run_twice(devs, 3 + rep) && correct;
    devices += hce_num_devices();
  }
  correct = run_twice("omp:0", 9) && correct; // omp alone: the CPU runs it
  devices += hce_num_devices();
  std::string err = testing::internal::GetCapturedStderr();
  std::fprintf(stderr, "[child] stderr was: %s\n", err.c_str());
  std::fprintf(stderr, "notices=%zu naming=%zu errors=%zu correct=%d devices=%d\n",
               count_of(err, "no omp devices"), count_of(err, "'omp:0' is not used"),
               count_of(err, "error"), int(correct), devices);
  std::exit(0);
}

TEST(OmpFallback, AbsentLibomptargetGivesOneNoticeAndACorrectCpuRun) {
  if (libomptarget_loaded())
    GTEST_SKIP() << "this binary has libomptarget loaded";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // "omp:0 alone" adds the "none of the devices ... is available" notice,
  // which is not counted above; every run has the CPU only.
  EXPECT_EXIT(fallback_child(), testing::ExitedWithCode(0),
              "notices=1 naming=1 errors=0 correct=1 devices=3");
}

// The libraries mapped into this process (/proc/self/maps).
std::string mapped_files() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str();
}

// A program not linked with offload that asks for omp devices and runs a
// region never loads libomptarget or libLLVM (129 MB) because of it.
TEST(OmpFallback, NoLibLLVMWithoutOffload) {
  if (libomptarget_loaded())
    GTEST_SKIP() << "this binary has libomptarget loaded";
  testing::internal::CaptureStderr();
  EXPECT_TRUE(run_twice("cpu,omp:0", 11));
  testing::internal::GetCapturedStderr();
  const std::string maps = mapped_files();
  ASSERT_NE(maps.find("[stack]"), std::string::npos) << "cannot read /proc/self/maps";
  EXPECT_EQ(maps.find("libLLVM"), std::string::npos);
  EXPECT_EQ(maps.find("libomptarget"), std::string::npos);
}

// find_on_path: how the runtime looks for the ptxas that libomptarget's JIT
// runs (omp_jit.cpp).
TEST(OmpJit, FindOnPathTakesTheFirstExecutable) {
  char tmpl[] = "/tmp/hce-omp-jit-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl, a = dir + "/a", b = dir + "/b";
  ASSERT_EQ(mkdir(a.c_str(), 0755), 0);
  ASSERT_EQ(mkdir(b.c_str(), 0755), 0);
  std::ofstream(a + "/ptxas") << "not executable\n";
  std::ofstream(b + "/ptxas") << "#!/bin/sh\n";
  ASSERT_EQ(chmod((b + "/ptxas").c_str(), 0755), 0);
  EXPECT_EQ(hce::find_on_path("ptxas", "/nonexistent:" + a + ":" + b), b + "/ptxas");
  EXPECT_EQ(hce::find_on_path("ptxas", a), "");
  EXPECT_EQ(hce::find_on_path("ptxas", ""), "");
  EXPECT_EQ(hce::find_on_path("nvlink-none", b), "");
  for (const std::string &f : {a + "/ptxas", b + "/ptxas"})
    std::remove(f.c_str());
  rmdir(a.c_str());
  rmdir(b.c_str());
  rmdir(dir.c_str());
}

TEST(OmpFallback, DeviceListAcceptsOmpSpellings) {
  // Parsed and accepted (not an error), whatever is installed.
  hce_test::use_devices("cpu, omp:0 ,omp");
  testing::internal::CaptureStderr();
  EXPECT_GE(hce_num_devices(), 1);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(err, "error"), 0u) << err;
}

} // namespace
