// Tests of the omp:N device (OpenMP target offload through libomptarget).
//
// This file is its own binary, hce_omp_tests, linked with OpenMP offload so
// that libomptarget is loaded; in CI the offload target is the host
// (x86_64-pc-linux-gnu: libomptarget's host plugin, 4 devices with memory of
// their own), on a GPU machine it may be nvptx64 (see docs/offload-backend.md).
//  - OmpDetect.*: detection and the run-time resolved entry points.
//  - OmpDeviceTest.*: the device itself: round trips, device-to-device
//    copies, poisoning, memory cap, transfers from several threads at once.
//  - OmpRegion.*: co-execution with hand-written offload variants
//    (omp_variants.c) on omp only, cpu+omp:0+omp:1, cpu+sim+omp, for every
//    scheduler, against a sequential reference on random data; reductions;
//    a failing variant re-run on the CPU; device selection notices.
//  - OmpData.*: Jacobi (halo rows) in a data region for every scheduler,
//    incremental transfers against HCE_CO=off, a memory cap.
// The no-libomptarget case is in omp_fallback_test.cpp (hce_runtime_tests,
// which is not linked with offload).
#include "jacobi_region.hpp"
#include "omp/omp_device.hpp"
#include "omp/omp_jit.hpp"
#include "omp_variants.h"
#include "runtime.hpp"
#include "sched/scheduler.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <thread>

namespace {

size_t count_of(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
    ++n;
  return n;
}

int omp_count() {
  std::string why;
  return hce::omp_device_count(why);
}

// Restarts the runtime on `devices`; new device memory is poisoned (0xFF:
// a missing upload reads NaN) and no device is left out for being slow (the
// host plugin is slower than the CPU device, and the point here is the data
// paths).
void restart(const std::string &devices, const char *mem_limit = nullptr) {
  setenv("HCE_OMP_POISON", "1", 1);
  setenv("HCE_MIN_SHARE", "0", 1);
  if (mem_limit)
    setenv("HCE_OMP_MEM_LIMIT", mem_limit, 1);
  else
    unsetenv("HCE_OMP_MEM_LIMIT");
  hce_test::use_devices(devices, "sim:0=bw:4e9");
}

hce::OmpDevice *omp_device(int ordinal) {
  for (const auto &d : hce::Runtime::get().devices())
    if (d->kind() == hce::DeviceKind::Omp && d->ordinal() == ordinal)
      return dynamic_cast<hce::OmpDevice *>(d.get());
  return nullptr;
}

int64_t iters(void *const *site, const char *dev) {
  return hce_last_iterations(site, dev);
}

// "cpu,omp:0,omp:1" where there are two offload devices (the host plugin has
// four), "cpu,omp:0" on a one-GPU machine.
std::string cpu_and_two_omp() {
  return omp_count() >= 2 ? "cpu,omp:0,omp:1" : "cpu,omp:0";
}
std::string last_omp() { return "omp:" + std::to_string(std::max(0, omp_count() - 1)); }

// ---- detection ---------------------------------------------------------------

TEST(OmpDetect, LibomptargetIsResolvedAtRunTime) {
  std::string why;
  const hce::OmpApi *api = hce::omp_api(why);
  ASSERT_NE(api, nullptr) << why;
  EXPECT_NE(api->library.find("omptarget"), std::string::npos) << api->library;
  const int n = hce::omp_device_count(why);
  // The variants (compiled with offload) and the runtime (dlsym) agree.
  EXPECT_EQ(n, hce_test_omp_num_devices());
  ASSERT_GE(n, 1) << why;
  EXPECT_EQ(api->get_initial_device(), n); // OpenMP: the host is device n
}

// libomptarget loaded libLLVM; the runtime registered its NVPTX target there
// (what libomptarget's JIT of an nvptx64 IR image needs), checked through
// LLVM's own C API: LLVMGetTargetFromTriple finds a target only when one is
// registered for the triple.
TEST(OmpDetect, NvptxTargetIsRegisteredForTheJit) {
  std::string why;
  ASSERT_NE(hce::omp_api(why), nullptr) << why;
  EXPECT_TRUE(hce::prepare_omp_jit().nvptx_registered) << hce::prepare_omp_jit().note;
  using GetTarget = int (*)(const char *, void **, char **);
  auto get = reinterpret_cast<GetTarget>(dlsym(RTLD_DEFAULT, "LLVMGetTargetFromTriple"));
  ASSERT_NE(get, nullptr) << "libLLVM is not in the process";
  void *target = nullptr;
  char *error = nullptr;
  EXPECT_EQ(get("nvptx64-nvidia-cuda", &target, &error), 0) << (error ? error : "");
  EXPECT_NE(target, nullptr);
  // An unknown triple is still refused: the check above can fail.
  char *error2 = nullptr;
  EXPECT_NE(get("hce-unknown-triple", &target, &error2), 0);
}

// Device images libomptarget's host plugin has loaded into this process:
// it writes each device's copy of the image to a temporary shared object
// (/tmp/tmpfile_XXXXXX) and dlopen()s it, so each shows in /proc/self/maps.
int loaded_host_images() {
  std::FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps)
    return -1;
  std::set<std::string> files;
  char line[4096];
  while (std::fgets(line, sizeof line, maps))
    if (const char *p = std::strstr(line, "/tmpfile_"))
      files.insert(p);
  std::fclose(maps);
  return int(files.size());
}

// "omp:N ready in X s" includes loading the program's device image (issue
// 15): libomptarget 19 loads it at the first target construct or data
// region, not at omp_target_alloc, so the device's start-up opens an empty
// data region.  Checked with the host plugin, whose image loads are visible:
// once the runtime has started -- before any kernel ran -- every omp device
// has its image loaded and has printed its note with the time it took.
TEST(OmpDetect, ReadyIncludesLoadingTheDeviceImage) {
#if !HCE_OMP_TEST_HOST
  GTEST_SKIP() << "the image loads are visible with the host plugin only";
#else
  std::string why;
  ASSERT_NE(hce::omp_api(why), nullptr) << why;
  ASSERT_NE(hce::omp_api(why)->data_begin, nullptr) << "__tgt_target_data_begin_mapper";
  hce_finalize();
  if (loaded_host_images() != 0)
    GTEST_SKIP() << "an earlier test in this process loaded the images (ctest runs "
                    "each test in a process of its own)";
  setenv("HCE_STATS", "1", 1); // the ready notes are printed with the statistics
  restart("cpu,omp");
  testing::internal::CaptureStderr();
  const size_t devices = hce::Runtime::get().devices().size();
  const std::string err = testing::internal::GetCapturedStderr();
  unsetenv("HCE_STATS");
  const int n = omp_count();
  ASSERT_EQ(devices, size_t(n) + 1) << err;
  EXPECT_EQ(loaded_host_images(), n) << "images loaded at start-up\n" << err;
  for (int d = 0; d < n; ++d) {
    const std::string note = "omp:" + std::to_string(d) + " ready in ";
    EXPECT_NE(err.find(note), std::string::npos) << note << "\n" << err;
    EXPECT_NE(err.find("loaded the device image"), std::string::npos) << err;
    hce::OmpDevice *dev = omp_device(d);
    ASSERT_NE(dev, nullptr);
    EXPECT_GT(dev->image_load_seconds(), 0.0);
  }
  hce_finalize();
#endif
}

TEST(OmpDetect, OmpSelectsEveryDeviceAndOmpNOne) {
  hce_test::use_devices("omp");
  ASSERT_EQ(hce_num_devices(), omp_count()); // the CPU is not selected
  for (int i = 0; i < hce_num_devices(); ++i)
    EXPECT_EQ(std::string(hce_device_name(i)), "omp:" + std::to_string(i));
  hce_test::use_devices("cpu," + last_omp() + "," + last_omp() + ",omp:0");
  ASSERT_EQ(hce_num_devices(), omp_count() >= 2 ? 3 : 2);
  EXPECT_STREQ(hce_device_name(0), "cpu");
  EXPECT_EQ(hce_device_name(1), last_omp());
  // Not part of the default set (omp:N and cuda:N may be the same GPU).
  hce_test::use_devices("");
  for (int i = 0; i < hce_num_devices(); ++i)
    EXPECT_NE(std::string(hce_device_name(i)).rfind("omp", 0), 0u);
}

// omp:<count> does not exist: one notice in a fresh process, a correct CPU
// run, never a call into libomptarget with that number (which aborts).
[[noreturn]] void absent_child() {
  const std::string spec = "omp:" + std::to_string(omp_count());
  testing::internal::CaptureStderr();
  bool correct = true;
  for (int round = 0; round < 2; ++round) {
    hce_test::use_devices("cpu," + spec);
    std::vector<double> x = hce_test::random_vector(1000, 5 + unsigned(round));
    std::vector<double> y(1000, -3.0);
    hce_map maps[2] = {{"x", x.data(), 8, HCE_MAP_TO, 1, 0, 1, 1, 0},
                       {"y", y.data(), 8, HCE_MAP_FROM, 1, 0, 1, 1, 0}};
    hce_region r{};
    r.name = "absent";
    r.iterations = 1000;
    r.num_maps = 2;
    r.maps = maps;
    r.cpu = [](int64_t lb, int64_t ub, void *const *p, const void *, void *) {
      for (int64_t i = lb; i < ub; ++i)
        static_cast<double *>(p[1])[i] = 2 * static_cast<const double *>(p[0])[i];
    };
    r.omp = hce_test_failing_omp;
    correct = correct && hce_co_exec(&r) == 0;
    for (size_t i = 0; i < x.size(); ++i)
      correct = correct && y[i] == 2 * x[i];
  }
  const int devices = hce_num_devices();
  std::string err = testing::internal::GetCapturedStderr();
  std::fprintf(stderr, "[child] stderr was: %s\n", err.c_str());
  std::fprintf(stderr, "notices=%zu naming=%zu errors=%zu correct=%d devices=%d\n",
               count_of(err, "hce: note:"), count_of(err, "'" + spec + "'"),
               count_of(err, "error"), int(correct), devices);
  std::exit(0);
}

TEST(OmpDetect, AbsentDeviceNumberGivesOneNotice) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(absent_child(), testing::ExitedWithCode(0),
              "notices=1 naming=1 errors=0 correct=1 devices=1");
}

// ---- the device ----------------------------------------------------------------

class OmpDeviceTest : public testing::Test {
protected:
  void SetUp() override {
    // Zero devices is a failure here (this binary is linked with offload),
    // and must not crash the tests below (omp_device(t % count)).
    std::string why;
    ASSERT_GE(hce::omp_device_count(why), 1) << why;
    restart(cpu_and_two_omp());
  }
};

TEST_F(OmpDeviceTest, RoundTripThroughDeviceCopy) {
  hce::OmpDevice *dev = omp_device(0);
  ASSERT_NE(dev, nullptr);
  const size_t n = (5u << 20) / 8 + 3; // 5 MiB and a bit
  std::vector<double> x = hce_test::random_vector(n, 7), y(n, 0.0);
  void *a = dev->allocate(n * 8 + 64);
  void *b = dev->allocate(n * 8 + 64);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(dev->bytes_allocated(), 2 * (n * 8 + 64));
  std::string why;
  // Poisoned memory reads as NaN before anything is uploaded.
  double first = 0;
  ASSERT_TRUE(dev->download(&first, a, 8, why)) << why;
  EXPECT_TRUE(std::isnan(first));
  // Odd offsets on both sides.
  char *ac = static_cast<char *>(a) + 24, *bc = static_cast<char *>(b) + 40;
  ASSERT_TRUE(dev->upload(ac, x.data() + 1, (n - 1) * 8, why)) << why;
  ASSERT_TRUE(dev->copy_device(bc, ac, (n - 1) * 8, why)) << why;
  ASSERT_TRUE(dev->download(y.data() + 1, bc, (n - 1) * 8, why)) << why;
  EXPECT_EQ(y[0], 0.0);
  EXPECT_TRUE(std::equal(x.begin() + 1, x.end(), y.begin() + 1));
  ASSERT_TRUE(dev->upload(a, x.data(), 0, why)) << why; // nothing to move
  dev->release(a);
  dev->release(b);
  dev->release(nullptr);
  EXPECT_EQ(dev->bytes_allocated(), 0u);
}

TEST_F(OmpDeviceTest, MemoryLimitGivesNullAndTheDeviceKeepsWorking) {
  restart("omp:0", "64k");
  hce::OmpDevice *dev = omp_device(0);
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->memory_limit(), 65536u);
  void *a = dev->allocate(40000);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(dev->allocate(40000), nullptr); // over the cap
  void *b = dev->allocate(20000);
  ASSERT_NE(b, nullptr);
  std::vector<double> x = hce_test::random_vector(2500, 9), y(2500);
  std::string why;
  ASSERT_TRUE(dev->upload(b, x.data(), 20000, why)) << why;
  ASSERT_TRUE(dev->download(y.data(), b, 20000, why)) << why;
  EXPECT_EQ(x, y);
  dev->release(a);
  dev->release(b);
  EXPECT_EQ(dev->bytes_allocated(), 0u);
}

// The pipelined mode calls upload, compute and download of one device from
// three threads, and several devices move data at once: concurrent
// omp_target_memcpy / omp_target_alloc calls must be safe.
TEST_F(OmpDeviceTest, TransfersFromManyThreadsAtOnce) {
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      hce::OmpDevice *dev = omp_device(t % std::min(2, omp_count()));
      if (!dev) {
        ++bad;
        return;
      }
      for (int rep = 0; rep < 20; ++rep) {
        const size_t n = 65536 + size_t(t) * 1000 + size_t(rep);
        std::vector<double> x = hce_test::random_vector(n, unsigned(100 * t + rep));
        std::vector<double> y(n, 0.0);
        void *d = dev->allocate(n * 8);
        void *e = dev->allocate(n * 8);
        std::string why;
        if (!d || !e || !dev->upload(d, x.data(), n * 8, why) ||
            !dev->copy_device(e, d, n * 8, why) ||
            !dev->download(y.data(), e, n * 8, why) || x != y)
          ++bad;
        dev->release(d);
        dev->release(e);
      }
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(omp_device(0)->bytes_allocated(), 0u);
  if (omp_count() >= 2)
    EXPECT_EQ(omp_device(1)->bytes_allocated(), 0u);
}

// ---- regions -------------------------------------------------------------------

void matadd_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *A = static_cast<const double *>(ptrs[0]);
  const double *B = static_cast<const double *>(ptrs[1]);
  double *C = static_cast<double *>(ptrs[2]);
  const int64_t n = static_cast<const hce_test_row_args *>(args)->n;
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    for (int64_t j = 0; j < n; ++j)
      C[i * n + j] = A[i * n + j] + B[i * n + j];
}

struct MatAdd {
  int64_t m, n;
  std::vector<double> a, b, c;
  hce_map maps[3];
  hce_test_row_args args;
  void *site = nullptr;
  hce_region region{};

  MatAdd(int64_t m_, int64_t n_, const char *schedule, unsigned seed)
      : m(m_), n(n_), a(hce_test::random_vector(size_t(m * n), seed)),
        b(hce_test::random_vector(size_t(m * n), seed + 1)), c(size_t(m * n), -7.0) {
    maps[0] = hce_test::row_map("A", a.data(), HCE_MAP_TO, n);
    maps[1] = hce_test::row_map("B", b.data(), HCE_MAP_TO, n);
    maps[2] = hce_test::row_map("C", c.data(), HCE_MAP_FROM, n);
    args.n = n;
    region.name = "omp_matadd";
    region.schedule = schedule;
    region.iterations = m;
    region.num_maps = 3;
    region.maps = maps;
    region.args = &args;
    region.args_size = sizeof args;
    region.cpu = matadd_cpu;
    region.omp = hce_test_matadd_omp;
    region.site = &site;
  }
  int64_t first_wrong() const {
    for (int64_t k = 0; k < m * n; ++k)
      if (c[size_t(k)] != a[size_t(k)] + b[size_t(k)])
        return k;
    return -1;
  }
};

TEST(OmpRegion, MatrixAdditionOnOmpOnlyEveryScheduler) {
  for (const std::string &s : hce::scheduler_names()) {
    SCOPED_TRACE(s);
    restart("omp:0");
    MatAdd t(1031, 67, s.c_str(), 11);
    ASSERT_EQ(hce_co_exec(&t.region), 0);
    EXPECT_EQ(t.first_wrong(), -1);
    EXPECT_EQ(iters(&t.site, "omp:0"), 1031);
  }
}

TEST(OmpRegion, MatrixAdditionOnCpuAndTwoOmpDevicesEveryScheduler) {
  for (const char *co : {"", "off"}) {
    for (const std::string &s : hce::scheduler_names()) {
      SCOPED_TRACE(s + (*co ? " HCE_CO=off" : ""));
      restart(cpu_and_two_omp());
      if (*co)
        setenv("HCE_CO", co, 1);
      MatAdd t(2053, 129, s.c_str(), 13);
      int64_t on_omp = 0;
      for (int rep = 0; rep < 2; ++rep) { // the second run learns from the first
        std::fill(t.c.begin(), t.c.end(), -7.0);
        ASSERT_EQ(hce_co_exec(&t.region), 0);
        EXPECT_EQ(t.first_wrong(), -1);
        const int64_t o = iters(&t.site, "omp:0") + iters(&t.site, "omp:1");
        EXPECT_EQ(iters(&t.site, "cpu") + o, 2053);
        on_omp += o;
      }
      // Dynamic schedulers may rightly leave a slow device idle on a small
      // problem; a static split always gives it its share.
      if (s == "static")
        EXPECT_GT(on_omp, 0) << "the omp devices did nothing";
      unsetenv("HCE_CO");
    }
  }
}

// Every scheduler across omp devices alone: they do all the work.
TEST(OmpRegion, MatrixAdditionAcrossOmpDevicesEveryScheduler) {
  const std::string devs = omp_count() >= 2 ? "omp:0,omp:1" : "omp:0";
  for (const std::string &s : hce::scheduler_names()) {
    SCOPED_TRACE(s);
    restart(devs);
    MatAdd t(1201, 77, s.c_str(), 29);
    for (int rep = 0; rep < 2; ++rep) {
      std::fill(t.c.begin(), t.c.end(), -7.0);
      ASSERT_EQ(hce_co_exec(&t.region), 0);
      EXPECT_EQ(t.first_wrong(), -1);
      EXPECT_EQ(iters(&t.site, "omp:0") + iters(&t.site, "omp:1"), 1201);
    }
  }
}

// Three device kinds at once (the papers' CPU-GPU-MIC system in miniature):
// cpu + sim:0 + omp:<last>, with the static schedule so that each does a
// share.
TEST(OmpRegion, ThreeDeviceKindsAtOnce) {
  const std::string omp = last_omp();
  for (const char *s : {"static", "hguided", "adets"}) {
    SCOPED_TRACE(s);
    restart("cpu,sim:0," + omp);
    ASSERT_EQ(hce_num_devices(), 3);
    MatAdd t(1500, 100, s, 17);
    ASSERT_EQ(hce_co_exec(&t.region), 0);
    EXPECT_EQ(t.first_wrong(), -1);
    EXPECT_EQ(iters(&t.site, "cpu") + iters(&t.site, "sim:0") +
                  iters(&t.site, omp.c_str()),
              1500);
    if (std::string(s) == "static") {
      EXPECT_GT(iters(&t.site, "sim:0"), 0);
      EXPECT_GT(iters(&t.site, omp.c_str()), 0);
    }
  }
}

void sum_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *red) {
  const double *x = static_cast<const double *>(ptrs[0]);
  double s = *static_cast<double *>(red);
#pragma omp parallel for reduction(+ : s)
  for (int64_t i = lb; i < ub; ++i)
    s += x[i];
  *static_cast<double *>(red) = s;
}

TEST(OmpRegion, SumReductionEveryScheduler) {
  const int64_t n = 300007;
  std::vector<double> x = hce_test::random_vector(size_t(n), 31);
  double ref = 2.5;
  for (double v : x)
    ref += v;
  for (const std::string &s : hce::scheduler_names()) {
    for (const std::string &devs : {std::string("omp:0"), cpu_and_two_omp()}) {
      SCOPED_TRACE(s + " on " + devs);
      restart(devs);
      double sum = 2.5;
      hce_map map{"x", x.data(), sizeof(double), HCE_MAP_TO, 1, 0, 1, 1, 0};
      hce_reduction red{"sum", &sum, HCE_RED_ADD, HCE_TYPE_F64};
      hce_region r{};
      r.name = "omp_sum";
      r.schedule = s.c_str();
      r.iterations = n;
      r.num_maps = 1;
      r.maps = &map;
      r.num_reductions = 1;
      r.reductions = &red;
      r.cpu = sum_cpu;
      r.omp = hce_test_sum_omp;
      ASSERT_EQ(hce_co_exec(&r), 0);
      EXPECT_NEAR(sum, ref, 1e-9 * double(n));
    }
  }
}

void maxprod_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *red) {
  const double *x = static_cast<const double *>(ptrs[0]);
  int64_t mx = *static_cast<int64_t *>(red);
  double prod = *reinterpret_cast<double *>(static_cast<char *>(red) + 8);
  for (int64_t i = lb; i < ub; ++i) {
    mx = std::max(mx, int64_t(x[i] * 1000.0));
    prod *= 1.0 + x[i] / 64.0;
  }
  *static_cast<int64_t *>(red) = mx;
  *reinterpret_cast<double *>(static_cast<char *>(red) + 8) = prod;
}

TEST(OmpRegion, MaxAndProductReductions) {
  const int64_t n = 20011;
  std::vector<double> x = hce_test::random_vector(size_t(n), 37);
  x[12345] = 1.75; // the maximum, somewhere in the middle
  int64_t ref_max = -5;
  double ref_prod = 0.5;
  for (double v : x) {
    ref_max = std::max(ref_max, int64_t(v * 1000.0));
    ref_prod *= 1.0 + v / 64.0;
  }
  ASSERT_EQ(ref_max, 1750);
  for (const char *s : {"static", "fdets", "adets"}) {
    SCOPED_TRACE(s);
    restart(cpu_and_two_omp());
    int64_t mx = -5;
    double prod = 0.5;
    hce_map map{"x", x.data(), sizeof(double), HCE_MAP_TO, 1, 0, 1, 1, 0};
    hce_reduction reds[2] = {{"mx", &mx, HCE_RED_MAX, HCE_TYPE_I64},
                             {"prod", &prod, HCE_RED_MUL, HCE_TYPE_F64}};
    hce_region r{};
    r.name = "omp_maxprod";
    r.schedule = s;
    r.iterations = n;
    r.num_maps = 1;
    r.maps = &map;
    r.num_reductions = 2;
    r.reductions = reds;
    r.cpu = maxprod_cpu;
    r.omp = hce_test_maxprod_omp;
    ASSERT_EQ(hce_co_exec(&r), 0);
    EXPECT_EQ(mx, ref_max);
    EXPECT_NEAR(prod, ref_prod, 1e-9 * std::fabs(ref_prod));
  }
}

TEST(OmpRegion, FailingVariantIsRerunOnCpu) {
  restart("cpu,omp:0");
  MatAdd t(300, 31, "static", 19);
  t.region.omp = hce_test_failing_omp;
  testing::internal::CaptureStderr();
  int rc = hce_co_exec(&t.region);
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(rc, 0) << err;
  EXPECT_EQ(t.first_wrong(), -1);
  EXPECT_NE(err.find("omp_matadd"), std::string::npos) << err; // the region
  EXPECT_NE(err.find("omp:0"), std::string::npos) << err;      // the device
  EXPECT_NE(err.find("returned 7"), std::string::npos) << err; // the call
}

TEST(OmpRegion, RegionWithoutOffloadVariantRunsWithoutOmp) {
  restart("cpu,omp:0");
  MatAdd t(200, 13, "static", 23);
  t.region.omp = nullptr;
  testing::internal::CaptureStderr();
  ASSERT_EQ(hce_co_exec(&t.region), 0);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(t.first_wrong(), -1);
  EXPECT_EQ(iters(&t.site, "cpu"), 200);
  EXPECT_NE(err.find("has no variant for omp:0"), std::string::npos) << err;
}

// ---- Jacobi in a data region ---------------------------------------------------

using hce_test::jacobi::first_mismatch;
using hce_test::jacobi::Moved;
constexpr auto jacobi_reference = hce_test::jacobi::reference;

// Jacobi in a data region on the selected devices, with the offload variants.
Moved run_jacobi(std::vector<double> &a, int64_t m, int64_t n, int steps,
                 const char *schedule) {
  hce_test::jacobi::Variants v;
  v.sweep_omp = hce_test_sweep_omp;
  v.copy_omp = hce_test_copy_back_omp;
  return hce_test::jacobi::run(a, m, n, steps, schedule, nullptr, v, "omp");
}

TEST(OmpData, JacobiOnCpuAndTwoOmpDevicesMatchesSequentialEveryScheduler) {
  const int64_t m = 386, n = 64;
  const int steps = 6;
  std::vector<double> a0 = hce_test::random_vector(size_t(m * n), 41);
  std::vector<double> ref = jacobi_reference(a0, m, n, steps);
  for (const std::string &s : hce::scheduler_names()) {
    SCOPED_TRACE(s);
    restart(cpu_and_two_omp());
    std::vector<double> a = a0;
    Moved moved = run_jacobi(a, m, n, steps, s.c_str());
    EXPECT_EQ(first_mismatch(a, ref), -1);
    if (s == "static")
      EXPECT_GT(moved.accel_iterations, 0);
  }
}

// The same on omp devices alone: halo rows move between omp:0 and omp:1
// (through the host) at every step.
TEST(OmpData, JacobiAcrossOmpDevicesMatchesSequentialEveryScheduler) {
  const int64_t m = 258, n = 48;
  const int steps = 5;
  const std::string devs = omp_count() >= 2 ? "omp:0,omp:1" : "omp:0";
  std::vector<double> a0 = hce_test::random_vector(size_t(m * n), 53);
  std::vector<double> ref = jacobi_reference(a0, m, n, steps);
  for (const std::string &s : hce::scheduler_names()) {
    SCOPED_TRACE(s);
    restart(devs);
    std::vector<double> a = a0;
    Moved moved = run_jacobi(a, m, n, steps, s.c_str());
    EXPECT_EQ(first_mismatch(a, ref), -1);
    EXPECT_EQ(moved.accel_iterations, int64_t(steps) * (m - 2));
  }
}

TEST(OmpData, IncrementalMovesFarLessThanCoOff) {
  const int64_t m = 514, n = 128;
  const int steps = 12;
  std::vector<double> a0 = hce_test::random_vector(size_t(m * n), 43);
  std::vector<double> ref = jacobi_reference(a0, m, n, steps);

  restart("cpu,omp:0");
  std::vector<double> a = a0;
  Moved with_co = run_jacobi(a, m, n, steps, "static");
  EXPECT_EQ(first_mismatch(a, ref), -1) << "incremental";
  EXPECT_GT(with_co.accel_iterations, 0);

  restart("cpu,omp:0");
  setenv("HCE_CO", "off", 1);
  a = a0;
  Moved without = run_jacobi(a, m, n, steps, "static");
  unsetenv("HCE_CO");
  EXPECT_EQ(first_mismatch(a, ref), -1) << "HCE_CO=off";

  const uint64_t w = with_co.to + with_co.from, wo = without.to + without.from;
  EXPECT_GT(wo, 0u);
  EXPECT_LE(w * 5, wo) << "incremental moved " << w << " bytes, HCE_CO=off " << wo;
  EXPECT_GT(with_co.avoided, 0u);
}

TEST(OmpData, MemoryCapStillGivesTheRightResult) {
  // Rows of 128 bytes; 32 KiB of device memory holds a few dozen rows of
  // the two arrays: windows shrink and chunks run in pieces.
  const int64_t m = 1002, n = 16;
  const int steps = 3;
  std::vector<double> a0 = hce_test::random_vector(size_t(m * n), 47);
  std::vector<double> ref = jacobi_reference(a0, m, n, steps);
  for (const char *devs : {"cpu,omp:0", "omp:0"}) {
    SCOPED_TRACE(devs);
    restart(devs, "32768");
    hce::OmpDevice *dev = omp_device(0);
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(dev->memory_limit(), 32768u);
    std::vector<double> a = a0;
    testing::internal::CaptureStderr();
    Moved moved = run_jacobi(a, m, n, steps, "fdets");
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(first_mismatch(a, ref), -1) << err;
    if (std::string(devs) == "omp:0")
      EXPECT_GT(moved.accel_iterations, 0) << err;
    EXPECT_EQ(dev->bytes_allocated(), 0u);
  }
}

} // namespace
