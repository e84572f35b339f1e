// One controller thread per device (the papers' "controller threads"): it
// runs the jobs the runtime posts for its device, one at a time.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace hce {

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
  bool busy_ = false;
  bool stop_ = false;
  std::thread thread_;
};

} // namespace hce
