// The data layer's allocation-free paths (issue 12, "cheap executions"):
// IntervalSet's in-place unite/subtract of one interval and its early
// returns, host_stale's, and footprint() into a reused set give what the
// general paths give, element for element.
#include "data/footprint.hpp"
#include "data/interval_set.hpp"
#include "data/transfer_plan.hpp"

#include <gtest/gtest.h>

#include <bitset>
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
