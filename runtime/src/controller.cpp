#include "controller.hpp"

#include <algorithm>

namespace hce {
namespace {

constexpr SpinBackoff::Clock::duration seconds(double s) {
  return std::chrono::duration_cast<SpinBackoff::Clock::duration>(
      std::chrono::duration<double>(s));
}

} // namespace

bool SpinBackoff::spin_for(const std::function<bool()> &done, Budget budget) {
  const auto start = Clock::now();
  const auto until =
      start + (budget == Budget::Learned ? learned() : seconds(kMinSpinSeconds));
  // No yield: on a loaded machine a yielding spinner keeps being scheduled
  // ahead of the thread it waits for (measured: milliseconds per hand-off).
  for (;;) {
    if (done()) {
      backoff_.store(1, std::memory_order_relaxed);
      learn(Clock::now() - start);
      return true;
    }
    if (Clock::now() >= until)
      break;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  const int b = std::min(2 * backoff_.load(std::memory_order_relaxed), kMaxSkip);
  backoff_.store(b, std::memory_order_relaxed);
  skip_.store(b, std::memory_order_relaxed);
  return false;
}

void SpinBackoff::learn(Clock::duration took) {
  // Twice the last hand-off, or the budget decayed by 1/8 if that is more:
  // one short hand-off (the next job already posted) does not forget that
  // they usually take longer.
  const Clock::rep decayed = learned_.load(std::memory_order_relaxed) * 7 / 8;
  const Clock::rep next =
      std::clamp(std::max(2 * took.count(), decayed), seconds(kMinSpinSeconds).count(),
                 seconds(kMaxSpinSeconds).count());
  learned_.store(next, std::memory_order_relaxed);
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

void Controller::wait(SpinBackoff::Budget spin) {
  const auto start = SpinBackoff::Clock::now();
  if (wait_spin_.spin([this] { return !busy_.load(std::memory_order_acquire); }, spin))
    return;
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return !busy_.load(std::memory_order_relaxed); });
  lock.unlock();
  wait_spin_.blocked_for(SpinBackoff::Clock::now() - start);
}

void Controller::loop(std::function<void()> on_start) {
  if (on_start)
    on_start();
  for (;;) {
    // Short: the next job may be far off, and a spinning controller takes
    // a core from the threads that will post it.
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
