// HostPins: a copy by a second engine (omp:N) is cut at the registrations a
// cuda:N device made, so no piece straddles registered and unregistered
// pages (CUDA_ERROR_INVALID_VALUE, issue 15).
#include "host_pins.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace {

using Pieces = std::vector<std::pair<size_t, size_t>>;

Pieces pieces_of(const hce::HostPins &pins, uintptr_t lo, size_t bytes) {
  Pieces out;
  pins.for_each_piece(reinterpret_cast<const void *>(lo), bytes,
                      [&](size_t off, size_t n) {
                        out.push_back({off, n});
                        return true;
                      });
  return out;
}

TEST(HostPins, CopyIsCutAtEveryRegistrationBoundary) {
  hce::HostPins pins;
  int calls = 0;
  ASSERT_TRUE(pins.add(0x2000, 0x4000, [&] { return ++calls > 0; }));
  ASSERT_TRUE(pins.add(0x4000, 0x5000, [&] { return ++calls > 0; })); // adjacent
  ASSERT_FALSE(pins.add(0x8000, 0x9000, [] { return false; })); // failed: not recorded
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(pins.ranges(), 2u);
  // [0x1000, 0x6000): before, first registration, second, after.
  EXPECT_EQ(pieces_of(pins, 0x1000, 0x5000),
            (Pieces{{0, 0x1000}, {0x1000, 0x2000}, {0x3000, 0x1000}, {0x4000, 0x1000}}));
  // Inside one registration: one piece.
  EXPECT_EQ(pieces_of(pins, 0x2100, 0x100), (Pieces{{0, 0x100}}));
  // Nothing registered there (the failed range included): one piece.
  EXPECT_EQ(pieces_of(pins, 0x7000, 0x3000), (Pieces{{0, 0x3000}}));
}

TEST(HostPins, RemovedRangesNoLongerCutAndFailuresStopTheWalk) {
  hce::HostPins pins;
  ASSERT_TRUE(pins.add(0x2000, 0x3000, [] { return true; }));
  bool unpinned = false;
  pins.remove(0x2000, [&] { unpinned = true; });
  EXPECT_TRUE(unpinned);
  EXPECT_EQ(pieces_of(pins, 0x1000, 0x3000), (Pieces{{0, 0x3000}}));

  ASSERT_TRUE(pins.add(0x2000, 0x3000, [] { return true; }));
  int copies = 0;
  EXPECT_FALSE(pins.for_each_piece(reinterpret_cast<const void *>(0x1000), 0x3000,
                                   [&](size_t, size_t) { return ++copies < 2; }));
  EXPECT_EQ(copies, 2); // the failing second piece ends the copy
}

} // namespace
