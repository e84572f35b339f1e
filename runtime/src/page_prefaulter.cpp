#include "page_prefaulter.hpp"

#include "clock.hpp"
#include "thread_name.hpp"
#include "trace.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14; older C libraries lack the name
#endif

namespace hce {

PagePrefaulter::~PagePrefaulter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    next_ = pieces_.size();
  }
  wake_.notify_all();
  for (std::thread &t : threads_)
    t.join();
}

bool PagePrefaulter::supported() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !unsupported_;
}

size_t PagePrefaulter::total_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_bytes_;
}

uint64_t PagePrefaulter::jobs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return generation_;
}

uint64_t PagePrefaulter::aheads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return aheads_;
}

void PagePrefaulter::queue_locked(const std::vector<HostRange> &ranges, size_t at,
                                  int threads) {
  if (!active_) {
    pieces_.clear();
    next_ = at = 0;
    bytes_done_ = 0;
    wanted_ = 0;
  } else if (next_ > 0) { // (what threads took is gone: the vector stays short)
    pieces_.erase(pieces_.begin(), pieces_.begin() + std::ptrdiff_t(next_));
    at -= next_;
    next_ = 0;
  }
  std::vector<HostRange> add;
  for (const HostRange &r : ranges)
    for (size_t off = 0; off < r.bytes; off += kPieceBytes)
      add.push_back({r.p + off, std::min(kPieceBytes, r.bytes - off)});
  pieces_.insert(pieces_.begin() + std::ptrdiff_t(at), add.begin(), add.end());
  wanted_ = std::max(wanted_, int(std::min<size_t>(size_t(threads), pieces_.size())));
  while (int(threads_.size()) < wanted_)
    threads_.emplace_back(&PagePrefaulter::run, this, int(threads_.size()));
  active_ = true;
  ++posted_;
}

bool PagePrefaulter::start(const std::vector<HostRange> &ranges, int threads) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (whole_ || unsupported_ || threads < 1 || ranges.empty())
    return false;
  queue_locked(ranges, pieces_.size(), threads);
  whole_ = true;
  ++generation_;
  lock.unlock();
  wake_.notify_all();
  return true;
}

bool PagePrefaulter::ahead(const std::vector<HostRange> &ranges, int threads) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (unsupported_ || threads < 1 || ranges.empty())
    return false;
  queue_locked(ranges, next_, threads);
  ++aheads_;
  lock.unlock();
  wake_.notify_all();
  return true;
}

size_t PagePrefaulter::finish(bool all) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!active_)
    return 0;
  if (all)
    done_.wait(lock, [&] { return next_ >= pieces_.size() && running_ == 0; });
  next_ = pieces_.size(); // what no thread took is left to the download
  done_.wait(lock, [&] { return running_ == 0; });
  active_ = whole_ = false;
  wanted_ = 0;
  return bytes_done_;
}

bool PagePrefaulter::populate(const HostRange &piece, bool &unsupported) {
  if (madvise(piece.p, piece.bytes, MADV_POPULATE_WRITE) == 0)
    return true;
  // EINVAL: a kernel before 5.14 (or memory it cannot populate, which the
  // copies then fault in themselves); ENOMEM/EFAULT: not all mapped.
  unsupported = errno == EINVAL;
  return false;
}

void PagePrefaulter::run(int index) {
  name_this_thread("hce prefault." + std::to_string(index));
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // A thread also joins a job it was made for after it began (pieces
    // were posted while the thread started), and wakes again for pieces
    // ahead() posts to a job it had run dry.
    wake_.wait(lock, [&] { return stop_ || (posted_ != seen && index < wanted_); });
    if (stop_)
      return;
    seen = posted_;
    ++running_;
    const double start = now_seconds();
    size_t mine = 0;
    while (next_ < pieces_.size()) {
      const HostRange piece = pieces_[next_++];
      lock.unlock();
      bool unsupported = false;
      const bool ok = populate(piece, unsupported);
      lock.lock();
      if (ok) {
        mine += piece.bytes;
        bytes_done_ += piece.bytes;
        total_bytes_ += piece.bytes;
      } else if (unsupported) {
        unsupported_ = true;
        next_ = pieces_.size();
      }
    }
    if (trace_enabled() && mine > 0)
      trace_event("host", "prefault",
                  "output pages faulted in ahead, " + std::to_string(mine >> 20) + " MiB",
                  start, now_seconds());
    if (--running_ == 0)
      done_.notify_all();
  }
}

} // namespace hce
