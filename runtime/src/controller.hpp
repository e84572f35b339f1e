// One controller thread per device (the papers' "controller threads"): it
// runs the jobs the runtime posts for its device, one at a time.
//
// Hand-offs spin before they block (as libomp's KMP_BLOCKTIME, but bounded):
// a controller that finished a job watches for the next one for 10 us, and
// wait() watches for the job's end, so that the executions of an iterative
// region do not pay a futex wake-up each way.  A waiter that has a core of
// its own (the caller says so: no CPU team is running) spins for up to
// twice what its hand-offs took lately, at most 100 us: the job of a
// resident region on cuda:N (an empty kernel's launch and synchronisation,
// ~15 us) is waited for spinning, not sleeping (a GPU alone runs on the
// calling thread: Device::enter_caller).  A spin that runs out means
// the other thread had no core (a loaded machine) or a long job: that side
// then blocks at once for the next 2, 4, ... 4096 hand-offs, so a loaded
// machine pays one spin in thousands.  An idle controller burns no core.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace hce {

// When and how long to spin before blocking.  A Short spin lasts up to
// kMinSpinSeconds; a Learned one up to twice the last hand-off's length
// (spun or slept), decaying by 1/8 per hand-off that was shorter, within
// [kMinSpinSeconds, kMaxSpinSeconds].  Only a thread that does not take a
// core some busy thread needs may spin that long: on an oversubscribed
// machine a long spin delays the very thread it waits for, and still ends
// in time, so the backoff never starts (measured on the 2-core VM: cpu,sim:0
// 32 -> 44 us per execution).  After a spin that ran out, no spin for the
// next `skip` hand-offs (doubling with each such spin, reset by one that
// succeeds).  Used by one thread at a time.
class SpinBackoff {
public:
  using Clock = std::chrono::steady_clock;
  enum class Budget { Short, Learned };
  static constexpr double kMinSpinSeconds = 10e-6;
  static constexpr double kMaxSpinSeconds = 100e-6;
  static constexpr int kMaxSkip = 4096;

  // Spins until done() for at most the budget, unless backing off; true if
  // done() was seen.
  template <class Done> bool spin(Done done, Budget budget = Budget::Short);
  // After a spin that returned false and the blocking wait that followed:
  // the whole hand-off took `waited`.
  void blocked_for(Clock::duration waited) { learn(waited); }
  // The Learned budget now (tests).
  Clock::duration learned() const {
    return Clock::duration(learned_.load(std::memory_order_relaxed));
  }

private:
  bool spin_for(const std::function<bool()> &done, Budget budget);
  void learn(Clock::duration took);
  std::atomic<int> skip_{0}, backoff_{1};
  std::atomic<Clock::rep> learned_{std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(kMinSpinSeconds))
                                       .count()};
};

class Controller {
public:
  // `on_start` runs first, on the new thread (e.g. to size the OpenMP team).
  explicit Controller(std::function<void()> on_start);
  ~Controller();
  Controller(const Controller &) = delete;
  Controller &operator=(const Controller &) = delete;

  // Hands `job` to the thread; the previous job must have finished.
  void post(std::function<void()> job);
  // Blocks until the posted job has finished.  `spin`: Learned only when
  // the calling thread takes no core a busy thread needs (SpinBackoff).
  void wait(SpinBackoff::Budget spin = SpinBackoff::Budget::Short);

private:
  void loop(std::function<void()> on_start);

  std::mutex mutex_;
  std::condition_variable cv_;
  std::function<void()> job_;
  // Written under mutex_, read without it by the spins.
  std::atomic<bool> busy_{false};
  std::atomic<bool> stop_{false};
  SpinBackoff wait_spin_, job_spin_; // wait()'s, the controller thread's
  std::thread thread_;
};

template <class Done> bool SpinBackoff::spin(Done done, Budget budget) {
  if (done())
    return true;
  if (int s = skip_.load(std::memory_order_relaxed); s > 0) {
    skip_.store(s - 1, std::memory_order_relaxed);
    return false;
  }
  return spin_for(done, budget);
}

} // namespace hce
