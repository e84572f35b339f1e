#include "controller.hpp"

namespace hce {

Controller::Controller(std::function<void()> on_start)
    : thread_([this, f = std::move(on_start)]() mutable { loop(std::move(f)); }) {}

Controller::~Controller() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Controller::post(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = std::move(job);
    busy_ = true;
  }
  cv_.notify_all();
}

void Controller::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return !busy_; });
}

void Controller::loop(std::function<void()> on_start) {
  if (on_start)
    on_start();
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || busy_; });
    if (busy_) {
      auto job = std::move(job_);
      lock.unlock();
      job();
      lock.lock();
      busy_ = false;
      cv_.notify_all();
      continue;
    }
    if (stop_)
      return;
  }
}

} // namespace hce
