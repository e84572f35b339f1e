// eft's sample window (sched/eft_model.hpp Samples): the newest kMaxSamples
// chunks, the device's first execution's leaving once a later one's come,
// in order, whatever the storage does underneath.
#include "sched/eft_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {

using hce::sched::eft::kMaxSamples;
using hce::sched::eft::Samples;

std::vector<int64_t> sizes(const Samples &s) {
  std::vector<int64_t> out;
  for (const auto &[n, t] : s.v())
    out.push_back(n);
  return out;
}

TEST(EftSamples, KeepsTheNewestInOrder) {
  Samples s;
  EXPECT_TRUE(s.empty());
  // One execution after the first (no prefix to drop): 3 windows' worth.
  for (int64_t n = 1; n <= 3 * kMaxSamples + 1; ++n) {
    s.add(n, double(n) * 1e-3, /*at=*/1, /*first_exec=*/1);
    std::vector<int64_t> want;
    for (int64_t k = std::max<int64_t>(1, n - kMaxSamples + 1); k <= n; ++k)
      want.push_back(k);
    ASSERT_EQ(sizes(s), want) << "after " << n;
    EXPECT_EQ(s.size(), want.size());
    EXPECT_DOUBLE_EQ(s.v().back().second, double(n) * 1e-3);
  }
  EXPECT_EQ(s.last_exec(), 1);
  s.clear();
  EXPECT_TRUE(s.empty());
  s.add(5, 1e-3, 2, 1);
  EXPECT_EQ(sizes(s), std::vector<int64_t>{5});
}

TEST(EftSamples, TheFirstExecutionsChunksLeaveOnceALaterOnesCome) {
  Samples s;
  s.add(1, 1e-3, 0, 0); // the device's first execution: one-time costs
  s.add(2, 1e-3, 0, 0);
  s.add(3, 1e-3, 0, 0);
  EXPECT_EQ(sizes(s), (std::vector<int64_t>{1, 2, 3}));
  s.add(4, 1e-3, 1, 0);
  EXPECT_EQ(sizes(s), std::vector<int64_t>{4});
  EXPECT_EQ(s.last_exec(), 1);
  for (int64_t n = 5; n < 5 + 2 * kMaxSamples; ++n)
    s.add(n, 1e-3, 2, 0);
  EXPECT_EQ(s.size(), size_t(kMaxSamples));
  EXPECT_EQ(s.v().front().first, 5 + kMaxSamples);
  EXPECT_EQ(s.last_exec(), 2);
}

// A host's chunks of its lanes' size after a larger one (the H100's cold
// kmeans, call RQ: 40 bites of 15 rows ending its first execution): the
// larger one stays while every newer one has at most the lanes, so that
// the fit can still tell the rate from the chunk's cost; a newer larger
// one takes its place.
TEST(EftSamples, TheNewestChunkAboveTheLanesStaysWhileOnlyLanesSizedOnesCome) {
  const int64_t lanes = 15;
  Samples s;
  s.add(30000, 0.6e-3, 1, 0, lanes);
  for (int k = 0; k < 3 * kMaxSamples; ++k)
    s.add(15, 7e-6, 1, 0, lanes);
  ASSERT_EQ(s.size(), size_t(kMaxSamples));
  EXPECT_EQ(s.v().front().first, 30000);
  for (size_t k = 1; k < s.size(); ++k)
    EXPECT_EQ(s.v()[k].first, 15) << k;
  // A later execution's larger chunk: the old one may leave.
  s.add(20000, 0.4e-3, 2, 0, lanes);
  for (int k = 0; k < kMaxSamples; ++k)
    s.add(15, 7e-6, 2, 0, lanes);
  EXPECT_EQ(s.v().front().first, 20000);
  EXPECT_EQ(std::count_if(s.v().begin(), s.v().end(), [](auto x) { return x.first > 15; }),
            1);
  EXPECT_EQ(s.last_exec(), 2);
  // Without lanes (an accelerator's window), the newest only.
  Samples plain;
  plain.add(30000, 0.6e-3, 1, 0);
  for (int k = 0; k < kMaxSamples; ++k)
    plain.add(15, 7e-6, 1, 0);
  EXPECT_EQ(plain.v().front().first, 15);
}

} // namespace
