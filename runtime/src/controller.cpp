#include "controller.hpp"

#include <chrono>

namespace hce {
namespace {

// Spins until `done()` or kSpinSeconds have passed; true if done.  Yields
// the core on every round, so that on an oversubscribed machine the thread
// being waited for gets it.
template <class Done> bool spin_until(Done done) {
  using Clock = std::chrono::steady_clock;
  const auto until =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(Controller::kSpinSeconds));
  while (!done()) {
    if (Clock::now() >= until)
      return false;
    std::this_thread::yield();
  }
  return true;
}

} // namespace

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
  if (spin_until([this] { return !busy_.load(std::memory_order_acquire); }))
    return;
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return !busy_.load(std::memory_order_relaxed); });
}

void Controller::loop(std::function<void()> on_start) {
  if (on_start)
    on_start();
  for (;;) {
    spin_until([this] {
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
