// HCE_MIN_SHARE's rule (slow_devices.hpp): which devices run a papers'
// scheduler's execution, from the rates they measured.
#include "slow_devices.hpp"

#include <gtest/gtest.h>

namespace hce {
namespace {

const std::vector<std::string> kBoth{"cpu", "cuda:0"};

TEST(SlowDevices, KeepsEveryDeviceUntilEachIsMeasured) {
  SlowDevices s;
  EXPECT_EQ(s.keep(kBoth, 1, 0.03, nullptr), (std::vector<size_t>{0, 1}));
  s.measured("cpu", 1000);
  EXPECT_EQ(s.keep(kBoth, 2, 0.03, nullptr), (std::vector<size_t>{0, 1}));
}

TEST(SlowDevices, LeavesOutADeviceBelowTheShareTwiceInARow) {
  SlowDevices s;
  s.measured("cpu", 1000);
  s.measured("cuda:0", 10); // 1% of the throughput
  std::vector<std::pair<std::string, double>> out;
  EXPECT_EQ(s.keep(kBoth, 2, 0.03, &out), (std::vector<size_t>{0, 1}))
      << "one is not enough";
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(s.keep(kBoth, 3, 0.03, &out), (std::vector<size_t>{0}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].first, "cuda:0");
  EXPECT_NEAR(out[0].second, 10.0 / 1010, 1e-12);
  out.clear();
  EXPECT_EQ(s.keep(kBoth, 4, 0.03, &out), (std::vector<size_t>{0}));
  EXPECT_TRUE(out.empty()) << "reported once";
}

TEST(SlowDevices, AFastExecutionResetsTheStreak) {
  SlowDevices s;
  s.measured("cpu", 1000);
  s.measured("cuda:0", 10);
  s.keep(kBoth, 2, 0.03, nullptr);
  s.measured("cuda:0", 500); // 33%
  EXPECT_EQ(s.keep(kBoth, 3, 0.03, nullptr).size(), 2u);
  s.measured("cuda:0", 10);
  EXPECT_EQ(s.keep(kBoth, 4, 0.03, nullptr).size(), 2u);
  EXPECT_EQ(s.keep(kBoth, 5, 0.03, nullptr).size(), 1u);
}

TEST(SlowDevices, TriesADeviceLeftOutAgainAfterSixteenExecutions) {
  SlowDevices s;
  s.measured("cpu", 1000);
  s.measured("cuda:0", 10);
  s.keep(kBoth, 2, 0.03, nullptr);
  ASSERT_EQ(s.keep(kBoth, 3, 0.03, nullptr).size(), 1u);
  EXPECT_EQ(s.keep(kBoth, 3 + SlowDevices::kRetryAfter - 1, 0.03, nullptr).size(), 1u);
  // Its old rate forgotten: it runs until measured afresh.
  EXPECT_EQ(s.keep(kBoth, 3 + SlowDevices::kRetryAfter, 0.03, nullptr).size(), 2u);
  s.measured("cuda:0", 900);
  EXPECT_EQ(s.keep(kBoth, 4 + SlowDevices::kRetryAfter, 0.03, nullptr).size(), 2u);
}

TEST(SlowDevices, ADeviceLeftOutStaysOutWhenTheOthersSlowDown) {
  // The GPU alone re-uploaded what the CPU wrote and measured 5x slower:
  // the CPU's stale rate is now 17% of the throughput, but it comes back
  // only at its retry.
  SlowDevices s;
  s.measured("cpu", 1e6);
  s.measured("cuda:0", 5e7);
  s.keep(kBoth, 2, 0.03, nullptr);
  ASSERT_EQ(s.keep(kBoth, 3, 0.03, nullptr), (std::vector<size_t>{1}));
  s.measured("cuda:0", 5e6);
  EXPECT_EQ(s.keep(kBoth, 4, 0.03, nullptr), (std::vector<size_t>{1}));
  EXPECT_EQ(s.keep(kBoth, 3 + SlowDevices::kRetryAfter, 0.03, nullptr).size(), 2u);
}

TEST(SlowDevices, NeverLeavesOutEveryDeviceNorOneAlone) {
  SlowDevices s;
  s.measured("cpu", 1000);
  EXPECT_EQ(s.keep({"cpu"}, 5, 0.03, nullptr).size(), 1u);
  s.measured("cuda:0", 1000);
  EXPECT_EQ(s.keep(kBoth, 5, 0.0, nullptr).size(), 2u) << "HCE_MIN_SHARE=0 keeps all";
  EXPECT_EQ(s.keep(kBoth, 5, 0.6, nullptr).size(), 2u);
  EXPECT_EQ(s.keep(kBoth, 6, 0.6, nullptr).size(), 2u) << "both below: all kept";
}

TEST(SlowDevices, RateIsTheFastestOfTheLargeChunks) {
  // The 10-iteration chunk (overheads) and the first one (one-time costs,
  // smaller than half the largest) do not count.
  EXPECT_DOUBLE_EQ(rate_of_large_chunks({{10, 1e-6}, {100, 1.0}, {60, 0.3}, {40, 0.01}}),
                   200.0);
  EXPECT_DOUBLE_EQ(rate_of_large_chunks({}), 0.0);
  EXPECT_DOUBLE_EQ(rate_of_large_chunks({{5, 0.0}}), 0.0);
}

TEST(SlowDevices, WaitsTwiceAsLongEachTimeADeviceIsLeftOutAgain) {
  SlowDevices s;
  s.measured("cpu", 1000);
  s.measured("cuda:0", 10);
  s.keep(kBoth, 2, 0.03, nullptr);
  ASSERT_EQ(s.keep(kBoth, 3, 0.03, nullptr).size(), 1u);
  int64_t at = 3 + SlowDevices::kRetryAfter; // the first retry
  ASSERT_EQ(s.keep(kBoth, at, 0.03, nullptr).size(), 2u);
  s.measured("cuda:0", 10); // as slow as before: out again at once
  ASSERT_EQ(s.keep(kBoth, at + 1, 0.03, nullptr).size(), 1u);
  EXPECT_EQ(
      s.keep(kBoth, at + 1 + 2 * SlowDevices::kRetryAfter - 1, 0.03, nullptr).size(), 1u);
  at += 1 + 2 * SlowDevices::kRetryAfter;
  ASSERT_EQ(s.keep(kBoth, at, 0.03, nullptr).size(), 2u) << "the second retry, 32 later";
  // Fast this time: kept, and a later slow spell waits 16 again.
  s.measured("cuda:0", 500);
  ASSERT_EQ(s.keep(kBoth, at + 1, 0.03, nullptr).size(), 2u);
  s.measured("cuda:0", 10);
  s.keep(kBoth, at + 2, 0.03, nullptr);
  ASSERT_EQ(s.keep(kBoth, at + 3, 0.03, nullptr).size(), 1u);
  EXPECT_EQ(s.keep(kBoth, at + 3 + SlowDevices::kRetryAfter, 0.03, nullptr).size(), 2u);
}

TEST(SlowDevices, RetriesAtMostEveryMaxRetryAfter) {
  EXPECT_EQ(SlowDevices::retry_after(0), 16);
  EXPECT_EQ(SlowDevices::retry_after(1), 16);
  EXPECT_EQ(SlowDevices::retry_after(2), 32);
  EXPECT_EQ(SlowDevices::retry_after(5), 256);
  EXPECT_EQ(SlowDevices::retry_after(40), SlowDevices::kMaxRetryAfter);
}

TEST(SlowDevices, LeavesOutADeviceThatGotNothingTwiceInARow) {
  // lud's GPU under hguided: the CPU had done the execution before the
  // GPU's preparation ended.
  SlowDevices s;
  s.measured("cpu", 1000);
  s.got_nothing("cuda:0");
  std::vector<std::pair<std::string, double>> out;
  EXPECT_EQ(s.keep(kBoth, 2, 0.03, &out).size(), 2u) << "one is not enough";
  s.measured("cpu", 1000);
  s.got_nothing("cuda:0");
  EXPECT_EQ(s.keep(kBoth, 3, 0.03, &out), (std::vector<size_t>{0}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].first, "cuda:0");
  EXPECT_EQ(out[0].second, 0.0);
}

TEST(SlowDevices, KeepsEveryDeviceWhenNoneDidAnything) {
  SlowDevices s;
  s.got_nothing("cpu");
  s.got_nothing("cuda:0");
  EXPECT_EQ(s.keep(kBoth, 2, 0.03, nullptr).size(), 2u);
  EXPECT_EQ(s.keep(kBoth, 3, 0.03, nullptr).size(), 2u);
}

} // namespace
} // namespace hce
