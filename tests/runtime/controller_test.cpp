// Controller hand-offs (runtime/src/controller.*): jobs run one at a time in
// order and wait() sees their writes; the hand-offs spin only briefly
// (SpinBackoff: 10 us, or for a waiter with a core of its own twice the
// last hand-off, at most 100 us) and then block, so neither an idle
// controller nor a thread waiting on a long job burns a core.
#include "controller.hpp"

#include <gtest/gtest.h>

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace {

double cpu_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

TEST(Controller, JobsRunInOrderAndWaitSeesTheirWrites) {
  hce::Controller c(nullptr);
  long value = 0; // plain: wait() must order the job's write before the read
  for (long k = 1; k <= 20000; ++k) {
    c.post([&value, k] { value = value * 3 % 1000003 + k; });
    c.wait();
    ASSERT_GT(value, 0);
  }
  // The same recurrence on this thread.
  long ref = 0;
  for (long k = 1; k <= 20000; ++k)
    ref = ref * 3 % 1000003 + k;
  EXPECT_EQ(value, ref);
}

TEST(Controller, AnIdleControllerBlocks) {
  hce::Controller c(nullptr);
  clockid_t clock{};
  c.post([&clock] { pthread_getcpuclockid(pthread_self(), &clock); });
  c.wait();
  const double before = cpu_seconds(clock);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double spent = cpu_seconds(clock) - before;
  // The spin after the job is bounded (10 us); the rest of the time it sleeps.
  EXPECT_LT(spent, 0.02) << "the idle controller used " << spent << " s of CPU in 0.2 s";
  // And it still wakes for the next job.
  bool ran = false;
  c.post([&ran] { ran = true; });
  c.wait();
  EXPECT_TRUE(ran);
}

TEST(Controller, WaitingOnALongJobBlocks) {
  hce::Controller c(nullptr);
  for (auto spin : {hce::SpinBackoff::Budget::Short, hce::SpinBackoff::Budget::Learned}) {
    const double before = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
    c.post([] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); });
    c.wait(spin);
    const double spent = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - before;
    EXPECT_LT(spent, 0.02) << "wait() used " << spent << " s of CPU on a 0.2 s job";
  }
}

TEST(Controller, LearnedWaitsSeeTheJobsWrites) {
  hce::Controller c(nullptr);
  long value = 0;
  for (long k = 1; k <= 5000; ++k) {
    c.post([&value, k] {
      // Some jobs outlast the short spin, so the learned budget moves.
      if (k % 64 == 0)
        std::this_thread::sleep_for(std::chrono::microseconds(30));
      value = value * 3 % 1000003 + k;
    });
    c.wait(hce::SpinBackoff::Budget::Learned);
  }
  long ref = 0;
  for (long k = 1; k <= 5000; ++k)
    ref = ref * 3 % 1000003 + k;
  EXPECT_EQ(value, ref);
}

TEST(SpinBackoff, BacksOffAfterASpinThatRunsOut) {
  hce::SpinBackoff spin;
  int calls = 0;
  auto never = [&calls] {
    ++calls;
    return false;
  };
  EXPECT_FALSE(spin.spin(never)); // spins, runs out
  const int spun = calls;
  EXPECT_GT(spun, 1);
  // The next two hand-offs do not spin (one look each), the third does.
  calls = 0;
  EXPECT_FALSE(spin.spin(never));
  EXPECT_FALSE(spin.spin(never));
  EXPECT_EQ(calls, 2);
  EXPECT_FALSE(spin.spin(never));
  EXPECT_GT(calls, 3);
  // A spin that succeeds at once is always taken.
  EXPECT_TRUE(spin.spin([] { return true; }));
}

TEST(SpinBackoff, LearnedSpinsLastTwiceTheLastHandOffWithinTheirBounds) {
  using namespace std::chrono;
  using hce::SpinBackoff;
  const auto min = duration_cast<SpinBackoff::Clock::duration>(
      duration<double>(SpinBackoff::kMinSpinSeconds));
  const auto max = duration_cast<SpinBackoff::Clock::duration>(
      duration<double>(SpinBackoff::kMaxSpinSeconds));
  SpinBackoff spin;
  EXPECT_EQ(spin.learned(), min);
  // A GPU job of 30 us, waited for asleep: the next spin lasts up to 60 us.
  spin.blocked_for(microseconds(30));
  EXPECT_EQ(spin.learned(), 2 * microseconds(30));
  // Long hand-offs: never more than the cap.
  spin.blocked_for(seconds(1));
  EXPECT_EQ(spin.learned(), max);
  // Short ones: the budget decays by 1/8 per hand-off, down to the floor.
  spin.blocked_for(microseconds(1));
  EXPECT_EQ(spin.learned(), max * 7 / 8);
  for (int k = 0; k < 100; ++k)
    spin.blocked_for(microseconds(1));
  EXPECT_EQ(spin.learned(), min);
  // A Learned spin that runs out lasts about the budget (60 us here); a
  // Short one about 10 us whatever was learned.
  spin.blocked_for(microseconds(30));
  auto start = SpinBackoff::Clock::now();
  EXPECT_FALSE(spin.spin([] { return false; }, SpinBackoff::Budget::Learned));
  EXPECT_GE(SpinBackoff::Clock::now() - start, microseconds(60));
  // (The shortest of five, in case this thread is preempted in one.)
  SpinBackoff::Clock::duration shortest = seconds(1);
  for (int k = 0; k < 5; ++k) {
    SpinBackoff short_spin;
    short_spin.blocked_for(seconds(1));
    start = SpinBackoff::Clock::now();
    EXPECT_FALSE(short_spin.spin([] { return false; }));
    const auto took = SpinBackoff::Clock::now() - start;
    EXPECT_GE(took, min);
    shortest = std::min<SpinBackoff::Clock::duration>(shortest, took);
  }
  EXPECT_LT(shortest, max);
}

} // namespace
