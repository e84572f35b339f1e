// One controller thread per device (the papers' "controller threads"): it
// runs the jobs the runtime posts for its device, one at a time.
//
// Hand-offs spin before they block (as libomp's KMP_BLOCKTIME, but bounded):
// a controller that finished a job watches for the next one, and wait()
// watches for the job's end, so that the executions of an iterative region
// do not pay a futex wake-up each way.  Each side learns how long its
// hand-offs take and spins for up to twice that, between 10 and 100 us: a
// GPU job of ~15 us (an empty kernel's launch and synchronisation) is waited
// for spinning, not sleeping.  A spin that runs out means the other thread
// had no core (a loaded machine) or a long job: that side then blocks at
// once for the next 2, 4, ... 4096 hand-offs, so a loaded machine pays one
// short spin in thousands.  An idle controller burns no core.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace hce {

// When and how long to spin before blocking.  The budget of a spin is twice
// the last hand-off's length (spun or blocked), decaying by 1/8 per
// hand-off that was shorter, within [kMinSpinSeconds, kMaxSpinSeconds].
// After a spin that ran out, no spin for the next `skip` hand-offs
// (doubling with each such spin, reset by one that succeeds).  Used by one
// thread at a time.
class SpinBackoff {
public:
  using Clock = std::chrono::steady_clock;
  static constexpr double kMinSpinSeconds = 10e-6;
  static constexpr double kMaxSpinSeconds = 100e-6;
  static constexpr int kMaxSkip = 4096;

  // Spins until done() for at most the budget, unless backing off; true if
  // done() was seen.
  template <class Done> bool spin(Done done);
  // After a spin that returned false and the blocking wait that followed:
  // the whole hand-off took `waited`.
  void blocked_for(Clock::duration waited) { learn(waited); }
  // The current spin budget (tests).
  Clock::duration budget() const {
    return Clock::duration(budget_.load(std::memory_order_relaxed));
  }

private:
  bool spin_for(const std::function<bool()> &done);
  void learn(Clock::duration took);
  std::atomic<int> skip_{0}, backoff_{1};
  std::atomic<Clock::rep> budget_{std::chrono::duration_cast<Clock::duration>(
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
  // Blocks until the posted job has finished.
  void wait();

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

template <class Done> bool SpinBackoff::spin(Done done) {
  if (done())
    return true;
  if (int s = skip_.load(std::memory_order_relaxed); s > 0) {
    skip_.store(s - 1, std::memory_order_relaxed);
    return false;
  }
  return spin_for(done);
}

} // namespace hce
