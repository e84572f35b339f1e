#include "controller.hpp"

#include <algorithm>
#include <chrono>

namespace hce {

bool SpinBackoff::spin_for(const std::function<bool()> &done) {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(kSpinSeconds));
  // No yield: on a loaded machine a yielding spinner keeps being scheduled
  // ahead of the thread it waits for (measured: milliseconds per hand-off).
  while (!done()) {
    if (Clock::now() >= until) {
      const int b = std::min(2 * backoff_.load(std::memory_order_relaxed), kMaxSkip);
      backoff_.store(b, std::memory_order_relaxed);
      skip_.store(b, std::memory_order_relaxed);
      return false;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  backoff_.store(1, std::memory_order_relaxed);
  return true;
}

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
    busy_.store(true, std::memory_order_release);
  }
  cv_.notify_all(); // no system call when the thread is spinning
}

void Controller::wait() {
  if (wait_spin_.spin([this] { return !busy_.load(std::memory_order_acquire); }))
    return;
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return !busy_.load(std::memory_order_relaxed); });
}

void Controller::loop(std::function<void()> on_start) {
  if (on_start)
    on_start();
  for (;;) {
    job_spin_.spin([this] {
      return busy_.load(std::memory_order_acquire) ||
             stop_.load(std::memory_order_relaxed);
    });
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return stop_ || busy_; });
    if (busy_) {
      auto job = std::move(job_);
      lock.unlock();
      job();
      lock.lock();
      busy_.store(false, std::memory_order_release);
      lock.unlock();
      cv_.notify_all(); // no system call when the poster is spinning
      continue;
    }
    return; // stop_
  }
}

} // namespace hce
