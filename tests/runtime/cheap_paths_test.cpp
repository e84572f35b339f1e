// The data layer's allocation-free paths (issue 12, "cheap executions"):
// IntervalSet's in-place unite/subtract of one interval and its early
// returns, host_stale's, and footprint() into a reused set give what the
// general paths give, element for element.
#include "data/footprint.hpp"
#include "data/interval_set.hpp"
#include "data/transfer_plan.hpp"
#include "sched/common.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>
#include <cmath>
#include <random>

using hce::ArrayResidency;
using hce::footprint;
using hce::IntervalSet;
using hce::MapShape;

namespace {

constexpr int kN = 64;
using Bits = std::bitset<kN>;

Bits bits_of(const IntervalSet &s) {
  Bits b;
  for (const hce::Interval &iv : s)
    for (int64_t e = iv.lo; e < iv.hi; ++e)
      b.set(size_t(e));
  return b;
}

// A random set of 0-3 intervals in [0, kN): one interval (the fast paths)
// and several (the merges) both come up often.
IntervalSet random_set(std::mt19937 &g) {
  IntervalSet s;
  std::uniform_int_distribution<int> count(0, 3), at(0, kN);
  for (int k = count(g); k-- > 0;) {
    int a = at(g), b = at(g);
    s.add(std::min(a, b), std::max(a, b));
  }
  return s;
}

TEST(CheapPaths, SetAlgebraMatchesBitmaps) {
  std::mt19937 g(12);
  for (int trial = 0; trial < 20000; ++trial) {
    const IntervalSet x = random_set(g), y = random_set(g);
    IntervalSet u = x, d = x;
    u.unite(y);
    d.subtract(y);
    const IntervalSet m = x.missing(y);
    ASSERT_TRUE(u.valid() && d.valid() && m.valid());
    ASSERT_EQ(bits_of(u), bits_of(x) | bits_of(y)) << x << " | " << y;
    ASSERT_EQ(bits_of(d), bits_of(x) & ~bits_of(y)) << x << " - " << y;
    ASSERT_EQ(bits_of(m), bits_of(y) & ~bits_of(x)) << x << ".missing(" << y << ")";
  }
  IntervalSet self{{1, 3}, {5, 9}};
  self.unite(self);
  EXPECT_EQ(self, (IntervalSet{{1, 3}, {5, 9}}));
  IntervalSet one(2, 7);
  one.subtract(one);
  EXPECT_TRUE(one.empty());
}

TEST(CheapPaths, HostStaleMatchesItsDefinition) {
  std::mt19937 g(13);
  for (int trial = 0; trial < 5000; ++trial) {
    ArrayResidency res(2, kN);
    for (int h = 1; h <= 2; ++h)
      res.mark_valid(h, random_set(g));
    res.mark_written(1 + trial % 2, random_set(g));
    const IntervalSet want = random_set(g);
    // Valid on some device, not on the host.
    Bits on_devices = bits_of(res.valid(1)) | bits_of(res.valid(2));
    ASSERT_EQ(bits_of(res.host_stale(want)),
              bits_of(want) & ~bits_of(res.valid(hce::kHost)) & on_devices);
  }
}

// A residency reset for another array (DataEnv's reused records) is a
// fresh one; host_holds_alone() and host_holds_all_alone() are what their
// names say.
TEST(CheapPaths, ResidencyResetIsAFreshResidency) {
  std::mt19937 g(15);
  const ArrayResidency fresh(2);
  ArrayResidency res(2);
  for (int trial = 0; trial < 2000; ++trial) {
    for (int op = trial % 4; op-- > 0;) {
      const int h = int(g() % 3);
      switch (g() % 4) {
      case 0: res.mark_valid(h, random_set(g)); break;
      case 1: res.mark_written(h, random_set(g)); break;
      case 2: res.start_arriving(1 + int(g() % 2), random_set(g)); break;
      default: res.invalidate(h, random_set(g)); break;
      }
    }
    bool devices_empty = true;
    for (int h = 1; h <= 2; ++h)
      devices_empty = devices_empty && res.valid(h).empty() && res.arriving(h).empty();
    ASSERT_EQ(res.host_holds_alone(), devices_empty);
    ASSERT_EQ(res.host_holds_all_alone(),
              devices_empty && res.valid(hce::kHost) == fresh.valid(hce::kHost));
    if (trial % 5 == 4) {
      res.reset();
      for (int h = 0; h <= 2; ++h) {
        ASSERT_EQ(res.valid(h), fresh.valid(h)) << "holder " << h;
        ASSERT_EQ(res.arriving(h), fresh.arriving(h)) << "holder " << h;
      }
      ASSERT_EQ(res.extent(), fresh.extent());
      ASSERT_TRUE(res.host_holds_alone());
    }
  }
}

// The schedulers' splits into reused vectors (SyncChunkScheduler's every
// execution) give what normalising a copy of the ratios and splitting it
// gives (the definition: Alg. 1 l.5), for any ratios, however odd.
TEST(CheapPaths, SplitsIntoReusedVectorsMatchTheirDefinition) {
  std::mt19937 g(16);
  const double odd[] = {0.0, -1.0, std::nan(""), INFINITY, 1e-300, 0.3, 1.0, 7.5};
  std::vector<int64_t> out{5, 6, 7, 8, 9, 10}; // what a previous split left
  for (int trial = 0; trial < 20000; ++trial) {
    const size_t p = 1 + g() % 5;
    std::vector<double> ratios(p);
    std::vector<bool> active(p), needy(p);
    for (size_t i = 0; i < p; ++i) {
      ratios[i] = g() % 3 ? double(g() % 1000) / 100 : odd[g() % 8];
      active[i] = g() % 4 != 0;
      needy[i] = active[i] && g() % 2;
    }
    const int64_t total = trial % 7 == 0 ? int64_t(g() % 4) : int64_t(g() % 100000);
    // The definition: normalise a copy, floor each share, the remainder to
    // the largest ratio (ties: the last).
    const std::vector<double> r = hce::sched::normalise(ratios, active);
    std::vector<int64_t> want(p, 0);
    int last = -1;
    for (size_t i = 0; i < p; ++i)
      if (active[i] && r[i] > 0 && (last < 0 || r[i] >= r[size_t(last)]))
        last = int(i);
    if (total > 0 && last >= 0) {
      int64_t used = 0;
      for (size_t i = 0; i < p; ++i) {
        if (int(i) == last || !active[i] || !(r[i] > 0))
          continue;
        int64_t s = int64_t(std::floor(static_cast<long double>(total) * r[i] + 1e-6L));
        s = std::clamp<int64_t>(s, 0, total - used);
        want[i] = s;
        used += s;
      }
      want[size_t(last)] = total - used;
    }
    hce::sched::split_sizes(total, ratios, active, out);
    ASSERT_EQ(out, want) << "trial " << trial;
    ASSERT_EQ(hce::sched::split_sizes(total, ratios, active), want);
    // split_sizes_each: into a reused vector as returned.
    const std::vector<int64_t> each =
        hce::sched::split_sizes_each(total, ratios, active, needy);
    hce::sched::split_sizes_each(total, ratios, active, needy, out);
    ASSERT_EQ(out, each);
    int64_t sum = 0;
    for (int64_t s : each)
      sum += s;
    ASSERT_EQ(sum, last >= 0 && total > 0 ? total : 0);
  }
}

TEST(CheapPaths, FootprintIntoAReusedSet) {
  std::mt19937 g(14);
  std::uniform_int_distribution<int64_t> small(0, 6), sign(-1, 1), it(0, 12);
  IntervalSet out{{100, 200}, {300, 400}}; // what a previous chunk left
  for (int trial = 0; trial < 5000; ++trial) {
    MapShape sh{sign(g) * small(g), small(g), small(g), 1 + small(g) / 2,
                sign(g) * small(g)};
    int64_t lb = it(g), ub = it(g), extent = trial % 3 == 0 ? -1 : 3 * it(g);
    footprint(sh, lb, ub, extent, out);
    ASSERT_EQ(out, footprint(sh, lb, ub, extent));
  }
}

} // namespace
