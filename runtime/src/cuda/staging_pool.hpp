// Copies between pageable host memory and one GPU by several host threads at
// once, each through its own two pinned slots and its own stream.
//
// Why (issue 12, one-shot regions): data that crosses the link once gains
// nothing from registering it (cudaHostRegister ~43 ms/GiB, and the same
// again to unregister it at the region's end), and one thread's memcpy into
// a staging slot runs at ~8 GB/s.  On the H100 machine, 512 MiB from a
// freshly written pageable array (bench/host_transfer_bench.cu, 2026-11-27):
// pageable cudaMemcpy 8.6 / 13.6 GB/s (H2D / D2H), register + copy +
// unregister 13.5 / 14.0 (more threads registering do not help), staging
// by 4 threads 25.3 / 27.1, by 8 threads 30.2 / 29.5.
//
// A copy is forked from the caller's stream and joined back to it: every
// worker's stream waits for an event recorded on the caller's stream before
// its first copy, and the caller's stream waits for every worker's last
// copy.  So the copy is ordered on the caller's stream as one
// cudaMemcpyAsync there would be.  upload() returns once the host bytes are
// in the slots (the host array may change afterwards); download() once
// every byte is in the host array.
#pragma once

#include <cuda_runtime_api.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hce {

class StagingPool {
public:
  // Two slots per worker.  Page-locked by cudaHostRegister, each worker its
  // own in parallel when the pool is made: cudaMallocHost of the 128 MiB
  // that eight workers with 8 MiB slots held cost every GPU-alone run on
  // the H100 60-80 ms at its first copy (call CA, 2026-11-27).  Making the
  // slots is mostly faulting their pages in (64 MiB took 7-17 ms to memset
  // on the H100 machine, call ID): eight workers' 1 MiB slots are made in
  // ~5 ms against 4 MiB slots' 10-13 ms, and copy as fast (matadd's and
  // blackscholes' GPU alone 0.75x and 0.87x the time, 4 rounds; 512 KiB
  // slots copied slower, call ID, 2026-11-28).
  static constexpr size_t kSlotBytes = size_t(1) << 20;

  // `threads` workers for device `ordinal` (streams, events and pinned
  // slots made here); nullptr and `why` on failure.
  static std::unique_ptr<StagingPool> create(int ordinal, int threads, std::string &why);
  ~StagingPool();
  StagingPool(const StagingPool &) = delete;
  StagingPool &operator=(const StagingPool &) = delete;

  int threads() const { return int(workers_.size()); }
  // `bytes` from pageable `host` into device memory `dev` by up to `use`
  // workers, ordered on `stream` (see above).  false + why on a CUDA error.
  bool upload(char *dev, const char *host, size_t bytes, int use, cudaStream_t stream,
              std::string &why);
  bool download(char *host, const char *dev, size_t bytes, int use, cudaStream_t stream,
                std::string &why);

private:
  struct Worker {
    std::thread thread;
    cudaStream_t stream = nullptr;
    char *slot[2] = {nullptr, nullptr};
    cudaEvent_t done[2] = {nullptr, nullptr}; // the slot's last copy
    cudaEvent_t last = nullptr;               // the worker's last copy of a job
  };
  struct Job {
    bool up = true;
    char *dev = nullptr;
    char *host = nullptr;
    size_t bytes = 0;
    int use = 0;
  };

  explicit StagingPool(int ordinal) : ordinal_(ordinal) {}
  // On worker `index`'s thread: its stream, events and slots.
  bool make_worker(Worker &w, std::string &why);
  bool copy(bool up, char *dev, char *host, size_t bytes, int use, cudaStream_t stream,
            std::string &why);
  void run(int index);
  bool work(Worker &w, int index, const Job &job, std::string &why);

  const int ordinal_;
  std::vector<Worker> workers_;
  cudaEvent_t fork_ = nullptr;

  std::mutex call_mutex_; // one copy at a time
  std::mutex mutex_;      // the job and its progress
  std::condition_variable wake_, finished_;
  Job job_;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  std::string error_;
  int starting_ = 0; // workers still making their resources
};

} // namespace hce
