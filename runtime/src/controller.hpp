// One controller thread per device (the papers' "controller threads"): it
// runs the jobs the runtime posts for its device, one at a time.
//
// Hand-offs spin briefly before they block (as libomp's KMP_BLOCKTIME, but
// bounded to kSpinSeconds): a controller that finished a job watches for the
// next one, and wait() watches for the job's end, so that the executions of
// an iterative region do not pay a futex wake-up each way.  After the spin
// both block on the condition variable: an idle controller burns no core.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace hce {

class Controller {
public:
  // How long a hand-off spins (yielding the core to runnable threads)
  // before it blocks.
  static constexpr double kSpinSeconds = 50e-6;

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
  std::thread thread_;
};

} // namespace hce
