// IntervalSet: unit tests plus randomised differential tests against a
// bitmap reference.
#include "data/interval_set.hpp"

#include <gtest/gtest.h>

#include <bitset>
#include <random>
#include <sstream>

using hce::Interval;
using hce::IntervalSet;

namespace {

TEST(IntervalSet, EmptyByDefault) {
  IntervalSet s;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.total_length(), 0);
  EXPECT_EQ(s.num_intervals(), 0u);
  EXPECT_TRUE(s.contains(5, 5)); // the empty range is always contained
  EXPECT_FALSE(s.contains(5));
  EXPECT_FALSE(s.overlaps(0, 100));
  EXPECT_EQ(s.to_string(), "{}");
  EXPECT_EQ(IntervalSet(4, 4), IntervalSet());
  EXPECT_EQ(IntervalSet(5, 3), IntervalSet());
}

TEST(IntervalSet, AddCoalescesTouchingAndOverlapping) {
  IntervalSet s;
  s.add(0, 2);
  s.add(2, 4); // touching
  EXPECT_EQ(s, IntervalSet(0, 4));
  s.add(6, 8);
  s.add(10, 12);
  EXPECT_EQ(s.num_intervals(), 3u);
  s.add(3, 11); // swallows [6,8), joins both ends
  EXPECT_EQ(s, IntervalSet(0, 12));
  s.add(-5, -3);
  EXPECT_EQ(s.to_string(), "{[-5,-3) [0,12)}");
  EXPECT_EQ(s.total_length(), 14);
  EXPECT_EQ(s.hull(), (Interval{-5, 12}));
}

TEST(IntervalSet, RemoveSplitsAndTrims) {
  IntervalSet s(0, 10);
  s.remove(3, 5);
  EXPECT_EQ(s, (IntervalSet{{0, 3}, {5, 10}}));
  s.remove(2, 6);
  EXPECT_EQ(s, (IntervalSet{{0, 2}, {6, 10}}));
  s.remove(-100, 1);
  s.remove(9, 100);
  EXPECT_EQ(s, (IntervalSet{{1, 2}, {6, 9}}));
  s.remove(2, 6); // hits nothing
  EXPECT_EQ(s, (IntervalSet{{1, 2}, {6, 9}}));
  s.remove(0, 100);
  EXPECT_TRUE(s.empty());
}

TEST(IntervalSet, ContainsAndOverlaps) {
  IntervalSet s{{0, 4}, {6, 8}};
  EXPECT_TRUE(s.contains(0, 4));
  EXPECT_TRUE(s.contains(1, 3));
  EXPECT_FALSE(s.contains(3, 7)); // spans the gap
  EXPECT_FALSE(s.contains(4));
  EXPECT_TRUE(s.contains(7));
  EXPECT_TRUE(s.overlaps(3, 7));
  EXPECT_FALSE(s.overlaps(4, 6));
  EXPECT_TRUE(s.contains(IntervalSet{{1, 2}, {6, 8}}));
  EXPECT_FALSE(s.contains(IntervalSet{{1, 2}, {5, 8}}));
  EXPECT_TRUE(s.overlaps(IntervalSet{{4, 5}, {7, 9}}));
  EXPECT_FALSE(s.overlaps(IntervalSet{{4, 6}, {8, 9}}));
}

TEST(IntervalSet, Algebra) {
  IntervalSet a{{0, 10}, {20, 30}};
  IntervalSet b{{5, 25}, {28, 40}};
  EXPECT_EQ(a | b, IntervalSet(0, 40));
  EXPECT_EQ(a & b, (IntervalSet{{5, 10}, {20, 25}, {28, 30}}));
  EXPECT_EQ(a - b, (IntervalSet{{0, 5}, {25, 28}}));
  EXPECT_EQ(b - a, (IntervalSet{{10, 20}, {30, 40}}));
  // missing: what of X is missing here.
  EXPECT_EQ(a.missing(b), b - a);
  IntervalSet c = a;
  c.clip(5, 22);
  EXPECT_EQ(c, (IntervalSet{{5, 10}, {20, 22}}));
}

TEST(IntervalSet, SubtractHoleSpanningSeveralIntervals) {
  IntervalSet a{{0, 2}, {3, 5}, {6, 8}, {9, 11}};
  EXPECT_EQ(a - IntervalSet(1, 10), (IntervalSet{{0, 1}, {10, 11}}));
  EXPECT_EQ((a - IntervalSet{{1, 4}, {4, 7}}),
            (IntervalSet{{0, 1}, {7, 8}, {9, 11}}));
}

TEST(IntervalSet, FromUnsortedAndAppend) {
  IntervalSet s = IntervalSet::from_intervals(
      {{10, 12}, {0, 3}, {2, 5}, {7, 7}, {11, 15}, {5, 6}});
  EXPECT_EQ(s, (IntervalSet{{0, 6}, {10, 15}}));
  IntervalSet t;
  t.append(0, 2);
  t.append(1, 3);
  t.append(3, 4);
  t.append(6, 7);
  t.append(-2, -1); // out of order: falls back to add
  EXPECT_EQ(t, (IntervalSet{{-2, -1}, {0, 4}, {6, 7}}));
  EXPECT_TRUE(t.valid());
}

TEST(IntervalSet, Streams) {
  std::ostringstream os;
  os << IntervalSet{{1, 2}, {4, 8}};
  EXPECT_EQ(os.str(), "{[1,2) [4,8)}");
}

// ---- randomised differential tests against a bitmap ---------------------

constexpr int kU = 512; // universe [0, kU)
using Bits = std::bitset<kU>;

IntervalSet from_bits(const Bits &b) {
  IntervalSet s;
  for (int i = 0; i < kU;) {
    if (!b[static_cast<size_t>(i)]) {
      ++i;
      continue;
    }
    int j = i;
    while (j < kU && b[static_cast<size_t>(j)])
      ++j;
    s.append(i, j);
    i = j;
  }
  return s;
}

Bits range_bits(int64_t a, int64_t b) {
  Bits r;
  for (int64_t i = std::max<int64_t>(a, 0); i < std::min<int64_t>(b, kU); ++i)
    r.set(static_cast<size_t>(i));
  return r;
}

struct Rng {
  std::mt19937_64 g;
  explicit Rng(uint64_t seed) : g(seed) {}
  int64_t uniform(int64_t lo, int64_t hi) { // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(g);
  }
  // A random interval, mostly short, sometimes long, sometimes empty or
  // reversed.
  Interval interval() {
    int64_t a = uniform(0, kU - 1);
    int64_t len;
    switch (uniform(0, 9)) {
    case 0:
      len = 0;
      break;
    case 1:
      len = -uniform(1, 5);
      break;
    case 2:
      len = uniform(50, 300);
      break;
    default:
      len = uniform(1, 24);
    }
    return {a, std::min<int64_t>(a + len, kU)};
  }
  std::pair<IntervalSet, Bits> set() {
    IntervalSet s;
    Bits b;
    int n = static_cast<int>(uniform(0, 8));
    for (int i = 0; i < n; ++i) {
      Interval iv = interval();
      s.add(iv.lo, iv.hi);
      b |= range_bits(iv.lo, iv.hi);
    }
    return {s, b};
  }
};

void check_same(const IntervalSet &s, const Bits &b) {
  ASSERT_TRUE(s.valid()) << s;
  ASSERT_EQ(s, from_bits(b)) << "got " << s;
  ASSERT_EQ(s.total_length(), static_cast<int64_t>(b.count()));
}

void run_random(uint64_t seed, int ops) {
  Rng rng(seed);
  IntervalSet s;
  Bits ref;
  for (int op = 0; op < ops; ++op) {
    SCOPED_TRACE(testing::Message() << "seed " << seed << " op " << op);
    Interval iv = rng.interval();
    switch (rng.uniform(0, 11)) {
    case 0:
    case 1:
    case 2:
      s.add(iv.lo, iv.hi);
      ref |= range_bits(iv.lo, iv.hi);
      break;
    case 3:
    case 4:
      s.remove(iv.lo, iv.hi);
      ref &= ~range_bits(iv.lo, iv.hi);
      break;
    case 5: {
      auto [o, ob] = rng.set();
      s.unite(o);
      ref |= ob;
      break;
    }
    case 6: {
      auto [o, ob] = rng.set();
      s.subtract(o);
      ref &= ~ob;
      break;
    }
    case 7: {
      auto [o, ob] = rng.set();
      // Intersect with something large so the set does not die out.
      int64_t r = rng.uniform(0, kU);
      o.add(0, r);
      ob |= range_bits(0, r);
      s.intersect(o);
      ref &= ob;
      break;
    }
    case 8: {
      auto [o, ob] = rng.set();
      IntervalSet m = s.missing(o);
      check_same(m, ob & ~ref);
      break;
    }
    case 9: {
      bool want = (range_bits(iv.lo, iv.hi) & ~ref).none();
      ASSERT_EQ(s.contains(iv.lo, iv.hi), want) << s << " " << iv;
      bool want_ov = (range_bits(iv.lo, iv.hi) & ref).any();
      ASSERT_EQ(s.overlaps(iv.lo, iv.hi), want_ov) << s << " " << iv;
      auto [o, ob] = rng.set();
      ASSERT_EQ(s.contains(o), (ob & ~ref).none());
      ASSERT_EQ(s.overlaps(o), (ob & ref).any());
      break;
    }
    case 10: {
      IntervalSet c = s;
      c.clip(iv.lo, iv.hi);
      check_same(c, ref & range_bits(iv.lo, iv.hi));
      break;
    }
    case 11:
      if (rng.uniform(0, 50) == 0) {
        s.clear();
        ref.reset();
      }
      break;
    }
    check_same(s, ref);
    // Free operators agree with the in-place ones.
    if (op % 64 == 0) {
      auto [o, ob] = rng.set();
      check_same(s | o, ref | ob);
      check_same(s & o, ref & ob);
      check_same(s - o, ref & ~ob);
    }
  }
}

TEST(IntervalSetRandom, FixedSeed) { run_random(42, 20000); }

TEST(IntervalSetRandom, SeveralSeeds) {
  for (uint64_t seed : {1ull, 7ull, 1234ull, 987654321ull, 0xdeadbeefull})
    run_random(seed, 4000);
}

TEST(IntervalSetRandom, FromIntervalsMatchesBitmap) {
  Rng rng(99);
  for (int t = 0; t < 2000; ++t) {
    std::vector<Interval> ivs;
    Bits b;
    int n = static_cast<int>(rng.uniform(0, 20));
    for (int i = 0; i < n; ++i) {
      Interval iv = rng.interval();
      ivs.push_back(iv);
      b |= range_bits(iv.lo, iv.hi);
    }
    check_same(IntervalSet::from_intervals(ivs), b);
  }
}

TEST(IntervalSet, StridedRunsGroupEqualRowsAtEqualPitch) {
  using hce::StridedRun;
  using hce::strided_runs;
  EXPECT_TRUE(strided_runs(IntervalSet()).empty());
  EXPECT_EQ(strided_runs(IntervalSet(3, 9)), (std::vector<StridedRun>{{3, 6, 0, 1}}));
  // Rows 10..13 of a 100-wide matrix, columns 5..40: one run.
  IntervalSet rows;
  for (int64_t r = 10; r < 14; ++r)
    rows.add(r * 100 + 5, r * 100 + 40);
  EXPECT_EQ(strided_runs(rows), (std::vector<StridedRun>{{1005, 35, 100, 4}}));
  // A change of length or of pitch starts a new run; every interval is in
  // exactly one run, in order.
  IntervalSet mixed{{0, 2}, {10, 12}, {20, 22}, {25, 27}, {40, 45}};
  EXPECT_EQ(strided_runs(mixed), (std::vector<StridedRun>{
                                     {0, 2, 10, 3}, {25, 2, 0, 1}, {40, 5, 0, 1}}));
  Rng rng(5);
  for (int t = 0; t < 500; ++t) {
    std::vector<Interval> ivs;
    for (int i = int(rng.uniform(0, 12)); i > 0; --i)
      ivs.push_back(rng.interval());
    IntervalSet s = IntervalSet::from_intervals(ivs);
    IntervalSet back;
    for (const StridedRun &r : strided_runs(s))
      for (int64_t b = 0; b < r.count; ++b)
        back.add(r.lo + b * r.pitch, r.lo + b * r.pitch + r.length);
    EXPECT_EQ(back, s);
  }
}

} // namespace
