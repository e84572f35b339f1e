// End-to-end runtime tests on hand-written regions shaped exactly like the
// translator's output (matrix addition: the HCE paper's Fig. 9 loop).
#include "runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

struct MatAddArgs {
  int64_t n;
};

// What the translator emits as the CPU variant of
//   for (i = 0; i < M; i++) for (j = 0; j < N; j++) C[i*N+j] = A[i*N+j] + B[i*N+j];
void matadd_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                void *) {
  const double *A = static_cast<const double *>(ptrs[0]);
  const double *B = static_cast<const double *>(ptrs[1]);
  double *C = static_cast<double *>(ptrs[2]);
  const int64_t n = static_cast<const MatAddArgs *>(args)->n;
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    for (int64_t j = 0; j < n; ++j)
      C[i * n + j] = A[i * n + j] + B[i * n + j];
}

struct MatAdd {
  int64_t m, n;
  std::vector<double> a, b, c;
  hce_map maps[3];
  MatAddArgs args;
  void *site = nullptr;
  hce_region region{};

  MatAdd(int64_t m_, int64_t n_, const char *schedule)
      : m(m_), n(n_), a(hce_test::random_vector(size_t(m * n), 1)),
        b(hce_test::random_vector(size_t(m * n), 2)), c(size_t(m * n), 0.0) {
    maps[0] = hce_test::row_map("A", a.data(), HCE_MAP_TO, n);
    maps[1] = hce_test::row_map("B", b.data(), HCE_MAP_TO, n);
    maps[2] = hce_test::row_map("C", c.data(), HCE_MAP_FROM, n);
    args.n = n;
    region.name = "matadd";
    region.schedule = schedule;
    region.iterations = m;
    region.num_maps = 3;
    region.maps = maps;
    region.args = &args;
    region.args_size = sizeof args;
    region.cpu = matadd_cpu;
    region.site = &site;
  }
  void expect_correct() const {
    for (int64_t k = 0; k < m * n; ++k)
      ASSERT_EQ(c[size_t(k)], a[size_t(k)] + b[size_t(k)]) << "element " << k;
  }
};

TEST(Region, MatrixAdditionOnCpu) {
  hce_test::use_devices("cpu");
  MatAdd t(257, 33, "static");
  ASSERT_EQ(hce_co_exec(&t.region), 0);
  t.expect_correct();
  EXPECT_EQ(hce_last_iterations(&t.site, "cpu"), 257);
}

TEST(Region, MatrixAdditionOnCpuAndSim) {
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e12,lat:0");
  MatAdd t(300, 17, "static");
  ASSERT_EQ(hce_co_exec(&t.region), 0);
  t.expect_correct();
  EXPECT_EQ(hce_last_iterations(&t.site, "cpu") +
                hce_last_iterations(&t.site, "sim:0"),
            300);
  EXPECT_GT(hce_last_iterations(&t.site, "sim:0"), 0);
}

TEST(Region, SiteSlotFromBeforeFinalizeIsNotUsed) {
  // Generated code keeps a static site slot; after hce_finalize the runtime
  // it pointed into is gone and the next execution must start afresh.
  hce_test::use_devices("cpu,sim:0");
  MatAdd t(64, 8, "fdets");
  ASSERT_EQ(hce_co_exec(&t.region), 0);
  hce_test::use_devices("cpu,sim:0");
  EXPECT_EQ(hce_last_iterations(&t.site, "cpu"), 0); // stale slot: no stats
  t.c.assign(t.c.size(), 0.0);
  ASSERT_EQ(hce_co_exec(&t.region), 0);
  t.expect_correct();
}

TEST(Region, ZeroIterationsTouchesNothing) {
  hce_test::use_devices("cpu,sim:0");
  MatAdd t(0, 8, "static");
  ASSERT_EQ(hce_co_exec(&t.region), 0);
  EXPECT_EQ(hce_last_iterations(&t.site, "cpu"), 0);
  EXPECT_EQ(hce_last_iterations(&t.site, "sim:0"), 0);
}

TEST(Region, UnknownDeviceInEnvironmentFails) {
  hce_test::use_devices("cpu,gpu7");
  MatAdd t(10, 4, "static");
  testing::internal::CaptureStderr();
  EXPECT_NE(hce_co_exec(&t.region), 0);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("unknown device 'gpu7'"), std::string::npos) << err;
  EXPECT_NE(err.find("matadd"), std::string::npos) << err;
}

TEST(Region, UnknownScheduleFails) {
  hce_test::use_devices("cpu");
  MatAdd t(10, 4, "fastest");
  testing::internal::CaptureStderr();
  EXPECT_NE(hce_co_exec(&t.region), 0);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("unknown schedule 'fastest'"), std::string::npos) << err;
}

struct SumArgs {
  int dummy;
};

void sum_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *red) {
  const double *x = static_cast<const double *>(ptrs[0]);
  double s = *static_cast<double *>(red);
  long long cnt = *reinterpret_cast<long long *>(static_cast<char *>(red) + 8);
  double mx = *reinterpret_cast<double *>(static_cast<char *>(red) + 16);
#pragma omp parallel for reduction(+ : s, cnt) reduction(max : mx)
  for (int64_t i = lb; i < ub; ++i) {
    s += x[i];
    cnt += x[i] > 0;
    mx = x[i] > mx ? x[i] : mx;
  }
  *static_cast<double *>(red) = s;
  *reinterpret_cast<long long *>(static_cast<char *>(red) + 8) = cnt;
  *reinterpret_cast<double *>(static_cast<char *>(red) + 16) = mx;
}

// sum, cnt and mx of random x over n iterations (sum_cpu), from the
// starting values given; check() against a sequential reference.
struct SumRegion {
  std::vector<double> x;
  double sum, mx;
  long long cnt;
  const double sum0;
  const long long cnt0;
  hce_map map;
  hce_reduction reds[3];
  SumArgs args{0};
  hce_region r{};
  SumRegion(const char *name, int64_t n, unsigned seed, double s0, long long c0)
      : x(hce_test::random_vector(size_t(n), seed)), sum(s0), mx(-10), cnt(c0), sum0(s0),
        cnt0(c0), map{"x", x.data(), sizeof(double), HCE_MAP_TO, 1, 0, 1, 1, 0},
        reds{{"sum", &sum, HCE_RED_ADD, HCE_TYPE_F64},
             {"cnt", &cnt, HCE_RED_ADD, HCE_TYPE_I64},
             {"mx", &mx, HCE_RED_MAX, HCE_TYPE_F64}} {
    r.name = name;
    r.schedule = "static";
    r.iterations = n;
    r.num_maps = 1;
    r.maps = &map;
    r.num_reductions = 3;
    r.reductions = reds;
    r.args = &args;
    r.cpu = sum_cpu;
  }
  SumRegion(const SumRegion &) = delete;
  void check() const {
    double ref = sum0, refmx = -10;
    long long refcnt = cnt0;
    for (double v : x) {
      ref += v;
      refcnt += v > 0;
      refmx = std::max(refmx, v);
    }
    EXPECT_NEAR(sum, ref, 1e-9 * double(x.size()));
    EXPECT_EQ(cnt, refcnt);
    EXPECT_EQ(mx, refmx);
  }
};

TEST(Region, ReductionsCombineAcrossDevices) {
  hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:1e12,lat:0");
  SumRegion t("sum", 100003, 7, 1.5, 3);
  ASSERT_EQ(hce_co_exec(&t.r), 0);
  t.check();
}

TEST(Region, ASitesExecutionsReuseItsRunStorageAndStartFresh) {
  // The workers, the devices' work (partials, byte counts, slots) and the
  // chunk loop's result are kept in the site between executions
  // (SiteState::run_storage): each execution must start from nothing --
  // a device that worked, then sat idle, then worked again included.
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e12,lat:0");
  void *site = nullptr;
  const void *storage = nullptr;
  uint64_t sim_bytes = 0;
  const char *ratios[] = {"cpu=0.5,sim:0=0.5", "cpu=1,sim:0=0", "cpu=0,sim:0=1",
                          "cpu=0.3,sim:0=0.7", "cpu=1,sim:0=0", "cpu=0.6,sim:0=0.4"};
  for (int e = 0; e < 6; ++e) {
    SCOPED_TRACE(ratios[e]);
    SumRegion t("sum_again", 50021, unsigned(40 + e), 0.25 * e, e);
    t.r.ratios = ratios[e];
    t.r.site = &site;
    ASSERT_EQ(hce_co_exec(&t.r), 0);
    t.check();
    const auto *s = static_cast<const hce::SiteState *>(site);
    ASSERT_NE(s, nullptr);
    if (e == 0)
      storage = s->run_storage.get();
    EXPECT_EQ(s->run_storage.get(), storage) << "execution " << e << " made a new one";
    const hce::DeviceStats &sim = s->stats.devices.at("sim:0");
    // Each execution's bytes are its own chunks' (x, to the device).
    EXPECT_EQ(sim.bytes_to_device - sim_bytes,
              uint64_t(sim.last_iterations) * sizeof(double));
    sim_bytes = sim.bytes_to_device;
    EXPECT_EQ(sim.last_iterations == 0, std::string(ratios[e]).ends_with("=0"));
  }
}

// HCE_CHUNK / HCE_ALPHA override the clauses of every region (for the
// sensitivity studies of bench/), and bad values are refused by name.
int64_t chunks_of(const char *region) {
  int64_t n = 0;
  for (const hce::SiteState *s : hce::Runtime::get().sites())
    if (s->name == region)
      for (const auto &[dev, d] : s->stats.devices)
        n += d.chunks;
  return n;
}

TEST(Region, ChunkAndAlphaFromTheEnvironment) {
  for (const char *chunk : {"600", "10"}) {
    SCOPED_TRACE(std::string("HCE_CHUNK=") + chunk);
    hce_test::use_devices("sim:0", "sim:0=bw:1e12,lat:0");
    setenv("HCE_CHUNK", chunk, 1);
    setenv("HCE_ALPHA", "0.3", 1);
    MatAdd t(600, 8, "fdets");
    ASSERT_EQ(hce_co_exec(&t.region), 0);
    t.expect_correct();
    // One device: FDETS's first chunk is the initial chunk.
    if (std::string(chunk) == "600")
      EXPECT_EQ(chunks_of("matadd"), 1);
    else
      EXPECT_GT(chunks_of("matadd"), 1);
  }
  for (auto [var, value] : {std::pair{"HCE_CHUNK", "12x"}, std::pair{"HCE_CHUNK", "-3"},
                            std::pair{"HCE_ALPHA", "1.5"}, std::pair{"HCE_ALPHA", "0"}}) {
    SCOPED_TRACE(std::string(var) + "=" + value);
    hce_test::use_devices("cpu");
    unsetenv("HCE_CHUNK");
    unsetenv("HCE_ALPHA");
    setenv(var, value, 1);
    MatAdd t(50, 4, "fdets");
    EXPECT_NE(hce_co_exec(&t.region), 0);
  }
  unsetenv("HCE_CHUNK");
  unsetenv("HCE_ALPHA");
}

} // namespace
