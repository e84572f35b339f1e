// Issue 11, points 3 and 7 (run time): footprints are clamped to the
// array's extent at both ends (a halo row before the first row and after
// the last needs no guard in the map), and a section that lies outside the
// array is a clear error, never a read past it.
#include "test_support.hpp"

#include "data/footprint.hpp"
#include "sched/scheduler.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

struct Args {
  int64_t m, n;
};

// b[i] = a[i-1] + 2 a[i] + a[i+1] row-wise where the neighbours exist, for
// every row i (k = i): the map a[(i-1)*n : 3*n] reaches one row before the
// array at i = 0 and one row after it at i = m-1.
void stencil_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *a = static_cast<const double *>(ptrs[0]);
  double *b = static_cast<double *>(ptrs[1]);
  const Args *s = static_cast<const Args *>(args);
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    for (int64_t j = 0; j < s->n; ++j) {
      double v = 2.0 * a[i * s->n + j];
      if (i > 0)
        v += a[(i - 1) * s->n + j];
      if (i + 1 < s->m)
        v += a[(i + 1) * s->n + j];
      b[i * s->n + j] = v;
    }
}

hce_map map_of(const char *name, double *host, int kind, int64_t scale, int64_t offset,
               int64_t len, int64_t extent) {
  hce_map m{};
  m.name = name;
  m.host = host;
  m.elem_size = sizeof(double);
  m.kind = kind;
  m.scale = scale;
  m.offset = offset;
  m.len = len;
  m.blocks = 1;
  m.extent = extent;
  return m;
}

TEST(Bounds, HaloClampedAtBothEndsEveryScheduler) {
  const int64_t m = 97, n = 16;
  const std::vector<double> a = hce_test::random_vector(size_t(m * n), 41);
  std::vector<double> ref(size_t(m * n));
  Args args{m, n};
  {
    std::vector<double> tmp = a;
    void *ptrs[2] = {tmp.data(), ref.data()};
    stencil_cpu(0, m, ptrs, &args, nullptr);
  }
  for (const std::string &sched : hce::scheduler_names()) {
    if (sched == "fdets_inc")
      continue;
    {
      const int64_t extent = m * n;
      SCOPED_TRACE(sched);
      hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:1e12,lat:0");
      std::vector<double> b = hce_test::random_vector(size_t(m * n), 42);
      std::vector<double> a_copy = a;
      hce_map maps[2] = {
          map_of("a[(i-1)*n:3*n]", a_copy.data(), HCE_MAP_TO, n, -n, 3 * n, extent),
          map_of("b[i*n:n]", b.data(), HCE_MAP_FROM, n, 0, n, extent)};
      void *site = nullptr;
      hce_region r{};
      r.name = "stencil";
      r.schedule = sched.c_str();
      r.iterations = m;
      r.num_maps = 2;
      r.maps = maps;
      r.args = &args;
      r.args_size = sizeof args;
      r.cpu = stencil_cpu;
      r.site = &site;
      r.ratios = "cpu=0.2,sim:0=0.4,sim:1=0.4";
      ASSERT_EQ(hce_co_exec(&r), 0);
      ASSERT_EQ(b, ref);
      if (sched == "static")
        EXPECT_GT(hce_last_iterations(&site, "sim:1"), 0);
    }
  }
}

TEST(Bounds, Checks) {
  // A[0:32] of double A[16]: the same section for every iteration.
  hce_map whole =
      map_of("A[0:32]", reinterpret_cast<double *>(8), HCE_MAP_TO, 0, 0, 32, 16);
  EXPECT_EQ(hce::check_map(whole, 4), "map 'A[0:32]': the section covers elements [0, "
                                      "32), outside the array (16 elements)");
  whole.len = 16;
  EXPECT_EQ(hce::check_map(whole, 4), "");
  // A halo at both ends is clamped, not an error.
  hce_map halo = map_of("A[i-1:3]", nullptr, HCE_MAP_TO, 1, -1, 3, 10);
  EXPECT_EQ(hce::check_map(halo, 10), "");
  EXPECT_EQ(hce::footprint(halo, 0, 10), hce::IntervalSet(0, 10));
  EXPECT_EQ(hce::footprint(halo, 0, 1), hce::IntervalSet(0, 2));
  // ... but an iteration wholly outside the array is.
  EXPECT_EQ(
      hce::check_map(halo, 12),
      "map 'A[i-1:3]': iteration 11 touches only elements [10, 13), all outside the "
      "array (10 elements)");
  hce_map below = map_of("A[i-5:1]", nullptr, HCE_MAP_TO, 1, -5, 1, 0);
  EXPECT_EQ(hce::check_map(below, 10), "map 'A[i-5:1]': iteration 0 touches only "
                                       "elements [-5, -4), all outside the array");
}

TEST(Bounds, SectionOutsideTheArrayStopsTheRegion) {
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e12,lat:0");
  std::vector<double> a(16, 1.0);
  hce_map map = map_of("A[0:32]", a.data(), HCE_MAP_TO, 0, 0, 32, 16);
  Args args{1, 1};
  hce_region r{};
  r.name = "outside";
  r.iterations = 8;
  r.num_maps = 1;
  r.maps = &map;
  r.args = &args;
  r.cpu = [](int64_t, int64_t, void *const *, const void *, void *) {};
  EXPECT_NE(hce_co_exec(&r), 0);
  hce_map data = map;
  EXPECT_NE(hce_data_begin(1, &data), 0);
}

} // namespace

namespace {

// x[i:0]: an accelerator must not be handed the host's memory.
TEST(Bounds, EmptySectionGivesAcceleratorsNoHostPointer) {
  hce_test::use_devices("sim:0", "sim:0=bw:1e12,lat:0");
  static std::vector<double> x(64, 2.0);
  std::vector<double> y = hce_test::random_vector(64, 9);
  hce_map maps[2] = {map_of("x[i:0]", x.data(), HCE_MAP_TO, 1, 0, 0, 64),
                     map_of("y[i:1]", y.data(), HCE_MAP_TOFROM, 1, 0, 1, 64)};
  Args args{64, 1};
  hce_region r{};
  r.name = "empty";
  r.iterations = 64;
  r.num_maps = 2;
  r.maps = maps;
  r.args = &args;
  r.cpu = [](int64_t lb, int64_t ub, void *const *ptrs, const void *, void *) {
    double *yy = static_cast<double *>(ptrs[1]);
    for (int64_t k = lb; k < ub; ++k)
      yy[k] = ptrs[0] == x.data() ? -1.0 : (ptrs[0] == nullptr ? yy[k] + 1.0 : -2.0);
  };
  std::vector<double> ref = y;
  for (double &v : ref)
    v += 1.0;
  ASSERT_EQ(hce_co_exec(&r), 0);
  EXPECT_EQ(y, ref);
}

} // namespace
