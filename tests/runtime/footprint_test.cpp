// Footprints of hce_map sections over iteration ranges.
#include "data/footprint.hpp"

#include "hce/hce.h"

#include <gtest/gtest.h>

#include <random>

using hce::check_footprint;
using hce::footprint;
using hce::IntervalSet;
using hce::MapShape;

namespace {

// Reference: every (k, b) interval added one by one.
IntervalSet brute(const MapShape &m, int64_t lb, int64_t ub, int64_t extent) {
  IntervalSet s;
  for (int64_t k = lb; k < ub; ++k)
    for (int64_t b = 0; b < m.blocks; ++b) {
      int64_t a = m.scale * k + m.offset + (m.blocks > 1 ? b * m.stride : 0);
      s.add(a, a + m.len);
    }
  if (extent >= 0)
    s.clip(0, extent);
  return s;
}

constexpr int64_t N = 100; // row length
constexpr int64_t M = 50;  // rows

TEST(Footprint, Rows) {
  // A[i*N:N]
  MapShape row{N, 0, N, 1, 0};
  EXPECT_EQ(footprint(row, 3, 7), IntervalSet(3 * N, 7 * N));
  EXPECT_EQ(footprint(row, 3, 7).num_intervals(), 1u);
}

TEST(Footprint, HaloOneDimensional) {
  // A[i-1:3]: iteration i reads i-1, i, i+1.
  MapShape halo{1, -1, 3, 1, 0};
  EXPECT_EQ(footprint(halo, 5, 10), IntervalSet(4, 11));
  // Unknown extent: the -1 of iteration 0 is reported as it is.
  EXPECT_EQ(footprint(halo, 0, 10), IntervalSet(-1, 11));
  // Known extent: clamped to [0, extent).
  EXPECT_EQ(footprint(halo, 0, 10, 10), IntervalSet(0, 10));
  EXPECT_EQ(footprint(halo, 9, 10, 10), IntervalSet(8, 10));
}

TEST(Footprint, HaloRows) {
  // A[i-1:3][0:N], flattened: rows i-1..i+1.
  MapShape halo{N, -N, 3 * N, 1, 0};
  EXPECT_EQ(footprint(halo, 10, 20, M * N), IntervalSet(9 * N, 21 * N));
  EXPECT_EQ(footprint(halo, 0, M, M * N), IntervalSet(0, M * N));
}

TEST(Footprint, StridedColumnBlocks) {
  // A[0:M][i] of an M x N row-major array: one element per row, per
  // iteration.  Iterations fold into one run per row.
  MapShape col{1, 0, 1, M, N};
  IntervalSet f = footprint(col, 2, 5);
  ASSERT_EQ(f.num_intervals(), static_cast<size_t>(M));
  for (int64_t b = 0; b < M; ++b)
    EXPECT_EQ(f[static_cast<size_t>(b)], (hce::Interval{b * N + 2, b * N + 5}));
  EXPECT_EQ(f, brute(col, 2, 5, -1));
  // All columns: the runs touch and merge into the whole array.
  EXPECT_EQ(footprint(col, 0, N), IntervalSet(0, M * N));
}

TEST(Footprint, SubRowGapsBetweenIterations) {
  // A[i][2:3]: three elements per row, a gap to the next row.
  MapShape part{N, 2, 3, 1, 0};
  IntervalSet f = footprint(part, 0, 4);
  EXPECT_EQ(f, (IntervalSet{{2, 5},
                            {N + 2, N + 5},
                            {2 * N + 2, 2 * N + 5},
                            {3 * N + 2, 3 * N + 5}}));
}

TEST(Footprint, TiledBlocksWithGaps) {
  // A[i*8 : 2][0:3 step 3]-like: blocks inside an iteration, iterations far
  // apart (iterations outer, blocks inner).
  MapShape m{20, 1, 2, 3, 4};
  EXPECT_EQ(footprint(m, 0, 3), brute(m, 0, 3, -1));
  EXPECT_EQ(footprint(m, 0, 3).num_intervals(), 9u);
  // Blocks far apart, iterations close: blocks outer.
  MapShape m2{3, 0, 1, 4, 50};
  EXPECT_EQ(footprint(m2, 0, 5), brute(m2, 0, 5, -1));
  // Interleaved lattice.
  MapShape m3{5, 0, 1, 3, 7};
  EXPECT_EQ(footprint(m3, 0, 6), brute(m3, 0, 6, -1));
}

TEST(Footprint, BroadcastScaleZero) {
  // B[0:N*N] in GEMM: every iteration needs the whole array.
  MapShape bcast{0, 0, N * N, 1, 0};
  EXPECT_EQ(footprint(bcast, 0, 1), IntervalSet(0, N * N));
  EXPECT_EQ(footprint(bcast, 7, 4000), IntervalSet(0, N * N));
  // Broadcast of a strided section (a column of B): the blocks only.
  MapShape bcol{0, 3, 1, 4, N};
  EXPECT_EQ(footprint(bcol, 0, 1000), (IntervalSet{{3, 4},
                                                   {N + 3, N + 4},
                                                   {2 * N + 3, 2 * N + 4},
                                                   {3 * N + 3, 3 * N + 4}}));
}

TEST(Footprint, NegativeStep) {
  // for (i = M-1; i >= 0; --i) ... A[i*N:N]: normalised k -> i = M-1-k.
  MapShape rev{-N, (M - 1) * N, N, 1, 0};
  EXPECT_EQ(footprint(rev, 0, 2), IntervalSet((M - 2) * N, M * N));
  EXPECT_EQ(footprint(rev, 0, M), IntervalSet(0, M * N));
  // Negative step with gaps: ascending output all the same.
  MapShape revgap{-3, 30, 1, 1, 0};
  EXPECT_EQ(footprint(revgap, 0, 4),
            (IntervalSet{{21, 22}, {24, 25}, {27, 28}, {30, 31}}));
  // Negative block stride.
  MapShape negstride{1, 40, 1, 3, -10};
  EXPECT_EQ(footprint(negstride, 0, 2), brute(negstride, 0, 2, -1));
}

TEST(Footprint, EmptyCases) {
  MapShape row{N, 0, N, 1, 0};
  EXPECT_TRUE(footprint(row, 5, 5).empty());
  EXPECT_TRUE(footprint(row, 6, 5).empty());
  EXPECT_TRUE(footprint(MapShape{N, 0, 0, 1, 0}, 0, 10).empty()); // len 0
  EXPECT_TRUE(footprint(MapShape{N, 0, N, 0, 0}, 0, 10).empty()); // 0 blocks
  EXPECT_TRUE(footprint(row, 0, 10, 0).empty());                  // extent 0
}

TEST(Footprint, Clamping) {
  MapShape row{N, 0, N, 1, 0};
  EXPECT_EQ(footprint(row, 0, 10, 250), IntervalSet(0, 250));
  EXPECT_TRUE(footprint(row, 5, 10, 250).empty()); // wholly beyond
  MapShape below{1, -50, 10, 1, 0};
  EXPECT_TRUE(footprint(below, 0, 5, 100).empty()); // wholly below 0
  EXPECT_EQ(footprint(below, 0, 5, -1), IntervalSet(-50, -36));
  MapShape gaps{10, -5, 3, 1, 0};
  EXPECT_EQ(footprint(gaps, 0, 3, 22),
            (IntervalSet{{5, 8}, {15, 18}})); // [-5,-2) dropped
}

TEST(Footprint, HceMapOverload) {
  double a[4];
  hce_map m{"A[i*4:4]", a, sizeof(double), HCE_MAP_TO, 4, 0, 4, 1, 0};
  EXPECT_EQ(footprint(m, 1, 3), IntervalSet(4, 12));
  EXPECT_EQ(hce::shape_of(m), (MapShape{4, 0, 4, 1, 0}));
}

TEST(Footprint, RandomAgainstBruteForce) {
  std::mt19937_64 g(2024);
  auto u = [&g](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(g);
  };
  for (int t = 0; t < 20000; ++t) {
    MapShape m{u(-6, 6), u(-10, 10), u(0, 6), u(1, 4), u(-9, 9)};
    int64_t lb = u(0, 12), ub = u(0, 14);
    int64_t extent = u(0, 3) == 0 ? -1 : u(0, 70);
    IntervalSet got = footprint(m, lb, ub, extent);
    ASSERT_TRUE(got.valid());
    ASSERT_EQ(got, brute(m, lb, ub, extent))
        << "scale " << m.scale << " offset " << m.offset << " len " << m.len
        << " blocks " << m.blocks << " stride " << m.stride << " [" << lb << ","
        << ub << ") extent " << extent;
  }
}

TEST(Footprint, Hull) {
  MapShape halo{1, -1, 3, 1, 0};
  EXPECT_EQ(hce::footprint_hull(halo, 0, 10), (hce::Interval{-1, 11}));
  MapShape rev{-N, (M - 1) * N, N, 1, 0};
  EXPECT_EQ(hce::footprint_hull(rev, 0, M), (hce::Interval{0, M * N}));
  EXPECT_EQ(hce::footprint_hull(halo, 3, 3), (hce::Interval{0, 0}));
}

// ---- validation --------------------------------------------------------

TEST(CheckFootprint, AcceptsGoodMaps) {
  EXPECT_EQ(check_footprint(MapShape{N, 0, N, 1, 0}, M, M * N, "A"), "");
  EXPECT_EQ(check_footprint(MapShape{0, 0, N * N, 1, 0}, 1000, N * N, "B"), "");
  EXPECT_EQ(check_footprint(MapShape{-N, (M - 1) * N, N, 1, 0}, M, M * N, "A"),
            "");
  // A halo loop that starts at 1 (normalised offset folds the start in).
  EXPECT_EQ(check_footprint(MapShape{1, 0, 3, 1, 0}, 98, 100, "A"), "");
  EXPECT_EQ(check_footprint(MapShape{1, -1, 3, 1, 0}, 0, 100, "A"), "");
  EXPECT_EQ(check_footprint(MapShape{1, -1, 0, 1, 0}, 5, 100, "A"), "");
}

TEST(CheckFootprint, BelowZero) {
  std::string e =
      check_footprint(MapShape{1, -1, 3, 1, 0}, 100, -1, "A[i-1:3]");
  EXPECT_EQ(e, "map 'A[i-1:3]': iteration 0 touches element -1, below the "
               "start of the array");
  // Negative scale: the last iteration is the lowest.
  e = check_footprint(MapShape{-1, 5, 1, 1, 0}, 10, -1, "A[5-i]");
  EXPECT_EQ(e, "map 'A[5-i]': iteration 9 touches element -4, below the "
               "start of the array");
  // Negative block stride: the last block is the lowest.
  e = check_footprint(MapShape{1, 3, 1, 3, -2}, 4, -1, "C");
  EXPECT_EQ(e, "map 'C': iteration 0 (block 2) touches element -1, below "
               "the start of the array");
}

TEST(CheckFootprint, BeyondExtent) {
  // A[i:3] over 100 iterations of a 100-element array reads 2 past the end.
  std::string e = check_footprint(MapShape{1, 0, 3, 1, 0}, 100, 100, "A");
  EXPECT_EQ(e, "map 'A': iteration 99 touches element 101, beyond the end of "
               "the array (100 elements)");
}

TEST(CheckFootprint, Malformed) {
  EXPECT_NE(check_footprint(MapShape{1, 0, -3, 1, 0}, 10), "");
  EXPECT_NE(check_footprint(MapShape{1, 0, 3, 0, 0}, 10), "");
  EXPECT_NE(check_footprint(MapShape{1, 0, 3, 1, 0}, -1), "");
  std::string e =
      check_footprint(MapShape{INT64_MAX / 2, 0, 1, 1, 0}, 10, -1, "X");
  EXPECT_NE(e.find("overflow"), std::string::npos) << e;
  EXPECT_EQ(check_footprint(MapShape{1, 0, -3, 1, 0}, 10),
            "map '?': negative section length -3");
}

TEST(CheckFootprint, HceMapOverloadUsesName) {
  int a[10];
  hce_map m{"a[i-1:3]", a, sizeof(int), HCE_MAP_TO, 1, -1, 3, 1, 0};
  EXPECT_EQ(check_footprint(m, 8, 10),
            "map 'a[i-1:3]': iteration 0 touches element -1, below the start "
            "of the array");
}

} // namespace
