// Faults in, on host threads that would otherwise sit idle, the pages of a
// region's output that the program never touched, while a GPU working
// alone uploads and computes: its download then writes pages that exist.
//
// Why (issue 12, one-shot regions): the GPU alone's download of
// blackscholes' 256 MiB of fresh output took 15-22 ms on the H200 (8
// staging threads, calls BB-BC) against ~6 ms into pages that exist: a
// copy into 4 KiB pages nothing touched ran at 10 GB/s, into huge pages
// at 18, into existing pages at 42 (bench/host_fault_bench.cpp, call PB).
// The upload and the kernel before it leave half the cores idle for
// 15 ms or more.
//
// madvise(MADV_POPULATE_WRITE) (Linux 5.14) faults pages in writable
// without writing to them: whatever a page holds stays, so it may run
// beside the copies and the kernel that write the same pages.  Where the
// kernel does not know it, nothing is done (one notice in the trace).
#pragma once

#include "host_pages.hpp"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace hce {

class PagePrefaulter {
public:
  // Pieces a thread faults in at a time: what finish() waits for at most
  // per thread; each holds the mmap_lock for reading while it runs.
  static constexpr size_t kPieceBytes = size_t(2) << 20;

  PagePrefaulter() = default;
  ~PagePrefaulter();
  PagePrefaulter(const PagePrefaulter &) = delete;
  PagePrefaulter &operator=(const PagePrefaulter &) = delete;

  // Starts faulting `ranges` in on `threads` threads (made on first use,
  // then asleep between jobs) and returns at once.  One job at a time:
  // false (nothing started) while another is unfinished, when `threads`
  // is below 1, or when the kernel refused MADV_POPULATE_WRITE before.
  // A job that only ahead() began takes these in after its own.
  bool start(const std::vector<HostRange> &ranges, int threads);
  // Faults `ranges` in before the rest of the job -- pieces no thread took
  // yet -- beginning a job on `threads` threads where none runs: a copying
  // accelerator's chunk whose download will write them, while its upload
  // and kernel run.  Not a job of start()'s (jobs()); finish() ends it.
  // False where nothing was queued.
  bool ahead(const std::vector<HostRange> &ranges, int threads);
  // Drops the pieces no thread started (`all`: waits for every piece
  // instead), waits for those that did, and returns the bytes faulted in by
  // the job start() began (0 if none).
  size_t finish(bool all = false);

  // Whether the kernel took MADV_POPULATE_WRITE (true until it refuses).
  bool supported() const;
  // Bytes faulted in over every job (for tests and statistics).
  size_t total_bytes() const;
  // Jobs start() began (for tests).
  uint64_t jobs() const;
  // Calls of ahead() that queued pieces (for tests).
  uint64_t aheads() const;

private:
  void run(int index);
  // Under mutex_: `ranges` in pieces of kPieceBytes, inserted at `at`; the
  // job's threads (at least `threads`) made and woken.
  void queue_locked(const std::vector<HostRange> &ranges, size_t at, int threads);
  // One piece; false when the kernel does not know the advice.
  static bool populate(const HostRange &piece, bool &unsupported);

  mutable std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  std::vector<HostRange> pieces_; // the job's: ahead()'s first, then start()'s
  size_t next_ = 0;               // the first piece no thread took
  size_t bytes_done_ = 0;
  size_t total_bytes_ = 0;
  int wanted_ = 0;  // threads the job runs on (index < wanted_)
  int running_ = 0; // threads inside a job
  uint64_t generation_ = 0; // jobs start() began
  uint64_t aheads_ = 0;
  uint64_t posted_ = 0; // pieces queued (start or ahead): wakes the threads
  bool active_ = false; // start() or ahead() without finish()
  bool whole_ = false;  // ... and start() among them
  bool stop_ = false;
  bool unsupported_ = false;
};

} // namespace hce
