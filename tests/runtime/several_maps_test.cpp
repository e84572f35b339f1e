// Issue 13, point 8: several maps of one array in one region (a row and a
// column footprint, a `to` row and a `from` column, a `tofrom` row and a
// broadcast `to` row).  They share one base pointer: the variant uses the
// first map's pointer for every access, as the translator binds the name
// once, so a device must hold the union of the footprints.  Random data
// against a sequential reference, on cpu + two simulated devices and on
// the simulated devices alone, every scheduler.
#include "test_support.hpp"

#include "sched/scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

void expect_sim_work(const hce_test::SchedConfig &c, int64_t on_sims) {
  if (c.sims_must_work())
    EXPECT_GT(on_sims, 0) << "no simulated device did any work";
}

// Some work per element, so that every scheduler gives the (fast,
// simulated) devices a share.
inline double work(double v) {
  for (int r = 0; r < 200; ++r)
    v = v * 0.999 + 0.001;
  return v;
}

hce_map section(const char *name, void *host, int kind, int64_t scale, int64_t offset,
                int64_t len, int64_t blocks, int64_t stride, int64_t extent) {
  hce_map m{};
  m.name = name;
  m.host = host;
  m.elem_size = sizeof(double);
  m.kind = kind;
  m.scale = scale;
  m.offset = offset;
  m.len = len;
  m.blocks = blocks;
  m.stride = stride;
  m.extent = extent;
  return m;
}

struct Args {
  int64_t n;
  int64_t k = 0; // the pivot row (elimination)
  const int64_t *perm = nullptr;
};

// B[i][j] = A[i][j] + 2 * work(A[j][i]): row i and column i of A.
// map(to: A[i][0:n], A[0:n][i]) map(from: B[i][0:n])
void transpose_sum_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                       void *) {
  const double *a = static_cast<const double *>(ptrs[0]); // both maps of A
  double *b = static_cast<double *>(ptrs[2]);
  const int64_t n = static_cast<const Args *>(args)->n;
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    for (int64_t j = 0; j < n; ++j)
      b[i * n + j] = a[i * n + j] + 2.0 * work(a[j * n + i]);
}

TEST(SeveralMaps, RowAndColumnOfOneArray) {
  const int64_t n = 97;
  const std::vector<double> a = hce_test::random_vector(size_t(n * n), 41);
  std::vector<double> ref(size_t(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      ref[size_t(i * n + j)] = a[size_t(i * n + j)] + 2.0 * work(a[size_t(j * n + i)]);
  for (const hce_test::SchedConfig &c : hce_test::every_scheduler()) {
    SCOPED_TRACE(c.label());
    hce_test::use_devices(c.devices, hce_test::kFastSims);
    setenv("HCE_MIN_SHARE", "0", 1);
    std::vector<double> b = hce_test::random_vector(size_t(n * n), 42);
    double *ah = const_cast<double *>(a.data());
    hce_map maps[3] = {section("A", ah, HCE_MAP_TO, n, 0, n, 1, 0, n * n),
                       section("A", ah, HCE_MAP_TO, 1, 0, 1, n, n, n * n),
                       section("B", b.data(), HCE_MAP_FROM, n, 0, n, 1, 0, n * n)};
    Args args{n};
    void *site = nullptr;
    hce_region r = hce_test::region_of("transpose_sum", maps, 3, n, args,
                                       transpose_sum_cpu, &site, c.schedule);
    int64_t on_sims = 0;
    for (int rep = 0; rep < 2; ++rep) { // the second run uses what was learnt
      std::fill(b.begin(), b.end(), -7.0);
      ASSERT_EQ(hce_co_exec(&r), 0);
      ASSERT_EQ(b, ref) << "execution " << rep;
      on_sims += hce_test::sim_iterations(&site);
    }
    expect_sim_work(c, on_sims);
    unsetenv("HCE_MIN_SHARE");
  }
}

// A is 2h x h: iteration i reads row i of the upper half and writes column
// i of the lower half.  map(to: A[i][0:h]) map(from: A[h:h][i])
void row_to_column_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                       void *) {
  double *a = static_cast<double *>(ptrs[0]);
  const int64_t h = static_cast<const Args *>(args)->n;
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    for (int64_t j = 0; j < h; ++j)
      a[(h + j) * h + i] = work(a[i * h + j]);
}

TEST(SeveralMaps, ToRowAndFromColumnOfOneArray) {
  const int64_t h = 83;
  const std::vector<double> a0 = hce_test::random_vector(size_t(2 * h * h), 51);
  std::vector<double> ref = a0;
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < h; ++j)
      ref[size_t((h + j) * h + i)] = work(ref[size_t(i * h + j)]);
  for (const hce_test::SchedConfig &c : hce_test::every_scheduler()) {
    SCOPED_TRACE(c.label());
    hce_test::use_devices(c.devices, hce_test::kFastSims);
    setenv("HCE_MIN_SHARE", "0", 1);
    std::vector<double> a = a0;
    hce_map maps[2] = {
        section("A", a.data(), HCE_MAP_TO, h, 0, h, 1, 0, 2 * h * h),
        section("A", a.data(), HCE_MAP_FROM, 1, h * h, 1, h, h, 2 * h * h)};
    Args args{h};
    void *site = nullptr;
    hce_region r = hce_test::region_of("row_to_column", maps, 2, h, args,
                                       row_to_column_cpu, &site, c.schedule);
    ASSERT_EQ(hce_co_exec(&r), 0);
    ASSERT_EQ(a, ref);
    expect_sim_work(c, hce_test::sim_iterations(&site));
    unsetenv("HCE_MIN_SHARE");
  }
}

// One step of Gaussian elimination: rows k+1.. get row k subtracted.
// map(tofrom: A[i][0:n]) map(to: A[k][0:n]), i from k + 1.
void eliminate_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  double *a = static_cast<double *>(ptrs[0]);
  const Args *p = static_cast<const Args *>(args);
  const int64_t n = p->n, k = p->k;
#pragma omp parallel for
  for (int64_t q = lb; q < ub; ++q) {
    const int64_t i = k + 1 + q;
    const double f = a[i * n + k] / a[k * n + k];
    for (int64_t j = 0; j < n; ++j)
      a[i * n + j] = work(a[i * n + j] - f * a[k * n + j]);
  }
}

std::vector<double> eliminate_reference(std::vector<double> a, int64_t n, int64_t steps) {
  for (int64_t k = 0; k < steps; ++k)
    for (int64_t i = k + 1; i < n; ++i) {
      const double f = a[size_t(i * n + k)] / a[size_t(k * n + k)];
      for (int64_t j = 0; j < n; ++j)
        a[size_t(i * n + j)] = work(a[size_t(i * n + j)] - f * a[size_t(k * n + j)]);
    }
  return a;
}

void eliminate(double *a, int64_t n, int64_t steps, void **site,
               const std::string &sched) {
  for (int64_t k = 0; k < steps; ++k) {
    hce_map maps[2] = {section("A", a, HCE_MAP_TOFROM, n, (k + 1) * n, n, 1, 0, n * n),
                       section("A", a, HCE_MAP_TO, 0, k * n, n, 1, 0, n * n)};
    Args args{n, k};
    hce_region r = hce_test::region_of("eliminate", maps, 2, n - k - 1, args,
                                       eliminate_cpu, site, sched);
    ASSERT_EQ(hce_co_exec(&r), 0) << "step " << k;
  }
}

TEST(SeveralMaps, TofromRowAndBroadcastRowOfOneArray) {
  const int64_t n = 64, steps = 5;
  std::vector<double> a0 = hce_test::random_vector(size_t(n * n), 61);
  for (int64_t i = 0; i < n; ++i)
    a0[size_t(i * n + i)] += 4.0; // well away from zero pivots
  const std::vector<double> ref = eliminate_reference(a0, n, steps);
  for (const hce_test::SchedConfig &c : hce_test::every_scheduler()) {
    for (bool in_data : {false, true}) {
      SCOPED_TRACE(c.label() + (in_data ? " in a data region" : ""));
      hce_test::use_devices(c.devices, hce_test::kFastSims);
      setenv("HCE_MIN_SHARE", "0", 1);
      std::vector<double> a = a0;
      void *site = nullptr;
      hce_map whole = section("A", a.data(), HCE_MAP_TOFROM, 0, 0, n * n, 1, 0, n * n);
      if (in_data)
        ASSERT_EQ(hce_data_begin(1, &whole), 0);
      eliminate(a.data(), n, steps, &site, c.schedule);
      if (in_data)
        ASSERT_EQ(hce_data_end(), 0);
      ASSERT_EQ(a, ref);
      expect_sim_work(c, hce_test::sim_iterations(&site));
      unsetenv("HCE_MIN_SHARE");
    }
  }
}

// y has 2n elements: iteration k reads y[k] and writes y[n + perm[k]]
// (scattered, so that half is merged by twin and diff).
// map(to: y[k:1]) map(tofrom: y[n:n])
void scatter_half_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                      void *) {
  double *y = static_cast<double *>(ptrs[0]);
  const Args *p = static_cast<const Args *>(args);
#pragma omp parallel for
  for (int64_t k = lb; k < ub; ++k)
    y[p->n + p->perm[k]] = 2.0 * y[p->n + p->perm[k]] + work(y[k]);
}

TEST(SeveralMaps, PerIterationReadAndMergedWriteOfOneArray) {
  const int64_t n = 6000;
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(9));
  const std::vector<double> y0 = hce_test::random_vector(size_t(2 * n), 71);
  std::vector<double> ref = y0;
  for (int64_t k = 0; k < n; ++k)
    ref[size_t(n + perm[size_t(k)])] =
        2.0 * ref[size_t(n + perm[size_t(k)])] + work(ref[size_t(k)]);
  for (const hce_test::SchedConfig &c : hce_test::every_scheduler()) {
    SCOPED_TRACE(c.label());
    hce_test::use_devices(c.devices, hce_test::kFastSims);
    setenv("HCE_MIN_SHARE", "0", 1);
    std::vector<double> y = y0;
    hce_map maps[2] = {section("y", y.data(), HCE_MAP_TO, 1, 0, 1, 1, 0, 2 * n),
                       section("y", y.data(), HCE_MAP_TOFROM, 0, n, n, 1, 0, 2 * n)};
    Args args{n, 0, perm.data()};
    void *site = nullptr;
    hce_region r = hce_test::region_of("scatter_half", maps, 2, n, args, scatter_half_cpu,
                                       &site, c.schedule);
    ASSERT_EQ(hce_co_exec(&r), 0);
    ASSERT_EQ(y, ref);
    expect_sim_work(c, hce_test::sim_iterations(&site));
    unsetenv("HCE_MIN_SHARE");
  }
}

} // namespace
