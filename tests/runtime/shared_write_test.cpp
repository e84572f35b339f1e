// Issue 11, points 1 and 2: written sections that are not a per-iteration
// footprint (`map(tofrom: y[0:n])` with scattered, transposed or block
// writes) are merged by twin and diff, and `from` sections wider than what
// the loop writes keep the values no device wrote (the host's outside a
// data region, the present copy's inside one).  Random data against a
// sequential reference, on cpu + two simulated devices, every scheduler.
#include "test_support.hpp"

#include "data/footprint.hpp"
#include "sched/scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

struct Args {
  int64_t n;
  const int64_t *perm; // scattered writes: iteration k writes y[perm[k]]
};

// Some work per element, so that the simulated devices (modelled fast)
// get a share from every scheduler: the CPU's real time is what they race.
inline double work(double v) {
  for (int r = 0; r < 300; ++r)
    v = v * 0.999 + 0.001;
  return v;
}

// y[perm[k]] = 2*y[perm[k]] + work(x[k]): a whole-array map, scattered
// writes.
void scatter_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *x = static_cast<const double *>(ptrs[0]);
  double *y = static_cast<double *>(ptrs[1]);
  const Args *a = static_cast<const Args *>(args);
#pragma omp parallel for
  for (int64_t k = lb; k < ub; ++k)
    y[a->perm[k]] = 2.0 * y[a->perm[k]] + work(x[k]);
}

// cov[j][k] = sum_i x[i][k] * x[i][j] for j >= k (column k, transposed
// writes into the whole matrix; the upper part stays as it was).
void transpose_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *x = static_cast<const double *>(ptrs[0]);
  double *cov = static_cast<double *>(ptrs[1]);
  const int64_t n = static_cast<const Args *>(args)->n;
#pragma omp parallel for
  for (int64_t k = lb; k < ub; ++k)
    for (int64_t j = k; j < n; ++j) {
      double s = 0;
      for (int64_t i = 0; i < n; ++i)
        s += x[i * n + k] * x[i * n + j];
      cov[j * n + k] = s;
    }
}

hce_map whole(const char *name, void *host, int kind, int64_t len) {
  hce_map m{};
  m.name = name;
  m.host = host;
  m.elem_size = sizeof(double);
  m.kind = kind;
  m.len = len;
  m.blocks = 1;
  return m;
}

void expect_sim_work(const hce_test::SchedConfig &c, void **site, int64_t extra = 0) {
  if (c.sims_must_work())
    EXPECT_GT(hce_last_iterations(site, "sim:0") + hce_last_iterations(site, "sim:1") +
                  extra,
              0)
        << "no simulated device did any work";
}

TEST(SharedWrite, OverlapDetection) {
  using hce::MapShape;
  EXPECT_TRUE(hce::iterations_share_elements(MapShape{0, 0, 100, 1, 0}, 2));
  EXPECT_FALSE(hce::iterations_share_elements(MapShape{0, 0, 100, 1, 0}, 1));
  EXPECT_FALSE(hce::iterations_share_elements(MapShape{1, 0, 1, 1, 0}, 100));
  EXPECT_TRUE(hce::iterations_share_elements(MapShape{1, -1, 3, 1, 0}, 100));
  EXPECT_FALSE(hce::iterations_share_elements(MapShape{64, 0, 64, 1, 0}, 100));
  // Column k of a 64 x 64 matrix: A[0:64][k].
  EXPECT_FALSE(hce::iterations_share_elements(MapShape{1, 0, 1, 64, 64}, 64));
  // Two columns per iteration, one apart: columns overlap.
  EXPECT_TRUE(hce::iterations_share_elements(MapShape{1, 0, 2, 64, 64}, 64));
  // 2 x 2 tiles of a 64-wide matrix, tile k at column 2k.
  EXPECT_FALSE(hce::iterations_share_elements(MapShape{2, 0, 2, 2, 64}, 32));
  // Blocks overlapping inside one iteration.
  EXPECT_TRUE(hce::iterations_share_elements(MapShape{100, 0, 4, 3, 2}, 1));
}

// Against a brute force over the elements every pair of iterations
// touches, on small random shapes (one block and several).
TEST(SharedWrite, OverlapDetectionAgreesWithBruteForce) {
  using hce::MapShape;
  std::mt19937_64 rng(76);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int shared = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    MapShape sh{pick(-6, 6), pick(0, 3), pick(0, 7), pick(1, 3), pick(-8, 8)};
    const int64_t iterations = pick(0, 6);
    std::map<int64_t, int64_t> owner; // element -> first iteration touching it
    bool brute = false;
    for (int64_t k = 0; k < iterations && !brute; ++k) {
      std::set<int64_t> mine;
      for (int64_t b = 0; b < sh.blocks; ++b)
        for (int64_t e = 0; e < sh.len; ++e)
          mine.insert(sh.offset + sh.scale * k + (sh.blocks > 1 ? sh.stride * b : 0) + e);
      for (int64_t e : mine) {
        auto [it, fresh] = owner.emplace(e, k);
        brute = brute || (!fresh && it->second != k);
      }
    }
    // Blocks of one iteration overlapping each other count too (a write
    // of one iteration then lands twice).
    if (sh.blocks > 1 && sh.len > 0 && std::abs(sh.stride) < sh.len)
      brute = true;
    shared += brute;
    EXPECT_EQ(hce::iterations_share_elements(sh, iterations), brute)
        << "scale " << sh.scale << " len " << sh.len << " blocks " << sh.blocks
        << " stride " << sh.stride << " iterations " << iterations;
  }
  EXPECT_GT(shared, 100); // both answers were tested
  EXPECT_LT(shared, 3900);
}

TEST(SharedWrite, ScatteredWritesEveryScheduler) {
  const int64_t n = 20000;
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(7));
  // Only the first 3/4 of the iterations run: a quarter of y is unwritten.
  const int64_t iters = n * 3 / 4;
  const std::vector<double> x = hce_test::random_vector(size_t(n), 11);
  const std::vector<double> y0 = hce_test::random_vector(size_t(n), 12);
  std::vector<double> ref = y0;
  for (int64_t k = 0; k < iters; ++k)
    ref[size_t(perm[size_t(k)])] =
        2.0 * ref[size_t(perm[size_t(k)])] + work(x[size_t(k)]);
  for (const hce_test::SchedConfig &c : hce_test::every_scheduler()) {
    for (int kind : {HCE_MAP_TOFROM, HCE_MAP_FROM}) {
      SCOPED_TRACE(c.label() + (kind == HCE_MAP_FROM ? " from" : " tofrom"));
      hce_test::use_devices(c.devices, hce_test::kFastSims);
      setenv("HCE_MIN_SHARE", "0", 1);
      std::vector<double> y = y0;
      Args args{n, perm.data()};
      hce_map maps[2] = {
          hce_test::row_map("x", const_cast<double *>(x.data()), HCE_MAP_TO, 1),
          whole("y", y.data(), kind, n)};
      maps[0].len = 1;
      void *site = nullptr;
      hce_region r = hce_test::region_of("scatter", maps, 2, iters, args, scatter_cpu,
                                         &site, c.schedule);
      // Twice on one site: the second execution uses what was learnt.
      int64_t on_sims = 0;
      for (int rep = 0; rep < 2; ++rep) {
        if (rep == 1)
          y = y0;
        ASSERT_EQ(hce_co_exec(&r), 0);
        size_t bad = 0;
        for (size_t e = 0; e < size_t(n); ++e)
          bad += y[e] != ref[e];
        ASSERT_EQ(bad, 0u) << "execution " << rep;
        on_sims +=
            hce_last_iterations(&site, "sim:0") + hce_last_iterations(&site, "sim:1");
      }
      expect_sim_work(c, &site, on_sims);
      unsetenv("HCE_MIN_SHARE");
    }
  }
}

TEST(SharedWrite, TransposedWritesKeepTheUpperPart) {
  const int64_t n = 96;
  const std::vector<double> x = hce_test::random_vector(size_t(n * n), 21);
  const std::vector<double> c0 = hce_test::random_vector(size_t(n * n), 22);
  std::vector<double> ref = c0;
  Args args{n, nullptr};
  {
    hce_map m[2] = {whole("x", const_cast<double *>(x.data()), HCE_MAP_TO, n * n),
                    whole("cov", ref.data(), HCE_MAP_FROM, n * n)};
    void *const ptrs[2] = {m[0].host, m[1].host};
    transpose_cpu(0, n, ptrs, &args, nullptr);
  }
  for (const hce_test::SchedConfig &c : hce_test::every_scheduler()) {
    SCOPED_TRACE(c.label());
    hce_test::use_devices(c.devices, hce_test::kFastSims);
    std::vector<double> cov = c0;
    hce_map maps[2] = {whole("x", const_cast<double *>(x.data()), HCE_MAP_TO, n * n),
                       whole("cov", cov.data(), HCE_MAP_FROM, n * n)};
    void *site = nullptr;
    hce_region r =
        hce_test::region_of("cov", maps, 2, n, args, transpose_cpu, &site, c.schedule);
    ASSERT_EQ(hce_co_exec(&r), 0);
    ASSERT_EQ(cov, ref);
    expect_sim_work(c, &site);
  }
}

// Iteration k writes only the interior of plane k: map(from: B[k*P:P]).
void interior_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *a = static_cast<const double *>(ptrs[0]);
  double *b = static_cast<double *>(ptrs[1]);
  const int64_t n = static_cast<const Args *>(args)->n; // plane is n x n
#pragma omp parallel for
  for (int64_t k = lb; k < ub; ++k)
    for (int64_t i = 1; i + 1 < n; ++i)
      for (int64_t j = 1; j + 1 < n; ++j)
        b[(k * n + i) * n + j] = a[(k * n + i) * n + j] * 0.5 + 1.0;
}

struct Planes {
  int64_t planes = 40, n = 12;
  std::vector<double> a = hce_test::random_vector(size_t(planes * n * n), 31);
  std::vector<double> b0 = hce_test::random_vector(size_t(planes * n * n), 32);
  std::vector<double> ref = b0;
  Args args{n, nullptr};
  Planes() {
    for (int64_t k = 0; k < planes; ++k)
      for (int64_t i = 1; i + 1 < n; ++i)
        for (int64_t j = 1; j + 1 < n; ++j)
          ref[size_t((k * n + i) * n + j)] = a[size_t((k * n + i) * n + j)] * 0.5 + 1.0;
  }
  void maps(hce_map *m, double *b) {
    m[0] = hce_test::row_map("A", a.data(), HCE_MAP_TO, n * n);
    m[1] = hce_test::row_map("B", b, HCE_MAP_FROM, n * n);
  }
};

TEST(SharedWrite, FromWiderThanWrittenKeepsHostValues) {
  Planes t;
  for (const hce_test::SchedConfig &c : hce_test::every_scheduler()) {
    SCOPED_TRACE(c.label());
    hce_test::use_devices(c.devices, hce_test::kFastSims);
    std::vector<double> b = t.b0;
    hce_map maps[2];
    t.maps(maps, b.data());
    void *site = nullptr;
    hce_region r = hce_test::region_of("planes", maps, 2, t.planes, t.args, interior_cpu,
                                       &site, c.schedule);
    ASSERT_EQ(hce_co_exec(&r), 0);
    ASSERT_EQ(b, t.ref);
    expect_sim_work(c, &site);
  }
}

TEST(SharedWrite, FromInsideDataRegionUsesThePresentCopy) {
  Planes t;
  for (const hce_test::SchedConfig &c : hce_test::every_scheduler()) {
    SCOPED_TRACE(c.label());
    hce_test::use_devices(c.devices, hce_test::kFastSims);
    std::vector<double> b = t.b0;
    hce_map maps[2];
    t.maps(maps, b.data());
    hce_map data[2] = {whole("A", t.a.data(), HCE_MAP_TO, t.planes * t.n * t.n),
                       whole("B", b.data(), HCE_MAP_TOFROM, t.planes * t.n * t.n)};
    ASSERT_EQ(hce_data_begin(2, data), 0);
    void *site = nullptr;
    hce_region r = hce_test::region_of("planes", maps, 2, t.planes, t.args, interior_cpu,
                                       &site, c.schedule);
    ASSERT_EQ(hce_co_exec(&r), 0);
    ASSERT_EQ(hce_co_exec(&r), 0); // again, on what the devices hold
    ASSERT_EQ(hce_data_end(), 0);
    ASSERT_EQ(b, t.ref);
    expect_sim_work(c, &site);
  }
}

// `omp atomic` updates into a shared array (a histogram written as
// map(tofrom: hist[0:K])): two devices changing one element cannot be
// merged; the chunk that finds its elements changed meanwhile is re-run on
// the CPU on top of the others' results.  Right answer, never lost updates.
void atomic_hist_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *) {
  const int64_t *bin = static_cast<const int64_t *>(ptrs[0]);
  double *hist = static_cast<double *>(ptrs[1]);
#pragma omp parallel for
  for (int64_t k = lb; k < ub; ++k) {
#pragma omp atomic
    hist[bin[k]] += 1.0;
  }
}

TEST(SharedWrite, AtomicUpdatesAreNeverLost) {
  const int64_t n = 20000, bins = 13;
  std::vector<int64_t> bin(static_cast<size_t>(n));
  // Regular bins: equal chunks add equal counts, so two devices' merges
  // of one bin agree in value and only the twin can tell them apart.
  for (size_t k = 0; k < bin.size(); ++k)
    bin[k] = int64_t(k) % bins;
  std::vector<double> ref(static_cast<size_t>(bins), 2.0);
  for (int64_t b : bin)
    ref[size_t(b)] += 1.0;
  for (const hce_test::SchedConfig &c : hce_test::every_scheduler()) {
    SCOPED_TRACE(c.label());
    hce_test::use_devices(c.devices, hce_test::kFastSims);
    std::vector<double> hist(static_cast<size_t>(bins), 2.0);
    Args args{n, nullptr};
    hce_map maps[2] = {hce_test::row_map("bin", bin.data(), HCE_MAP_TO, 1),
                       whole("hist", hist.data(), HCE_MAP_TOFROM, bins)};
    maps[0].elem_size = sizeof(int64_t);
    maps[0].len = 1;
    void *site = nullptr;
    hce_region r = hce_test::region_of("atomic_hist", maps, 2, n, args, atomic_hist_cpu,
                                       &site, c.schedule);
    testing::internal::CaptureStderr(); // the re-run chunks' warnings
    const int rc = hce_co_exec(&r);
    std::string err = testing::internal::GetCapturedStderr();
    ASSERT_EQ(rc, 0) << err;
    ASSERT_EQ(hist, ref) << err;
  }
}

} // namespace
