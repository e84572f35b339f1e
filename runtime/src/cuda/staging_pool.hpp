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
// An upload and a download may run at once (one of each direction at a
// time): a pipelined accelerator uploads chunk k+1 while chunk k comes home,
// and the link carries both directions at full rate.  The workers claim
// pieces as they go, even workers preferring uploads and odd ones downloads,
// so two copies share the workers and one alone has them all.  (With one
// copy at a time the pipeline only serialised them: call UB's cold
// blackscholes and matadd ran slower pipelined.)
//
// A copy is forked from the caller's stream and joined back to it: every
// worker's stream waits for an event recorded on the caller's stream before
// its first piece of the copy, and the caller's stream waits for the last
// piece of every worker that moved one.  So the copy is ordered on the caller's stream as
// one cudaMemcpyAsync there would be.  upload() returns once the host bytes are in the
// slots (the host array may change afterwards); download() once every byte is in the host
// array.
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
  // Two slots per worker, faulted in by the workers in parallel and then
  // page-locked by one cudaHostRegister when the pool is made (cudaMallocHost
  // of the 128 MiB that eight workers with 8 MiB slots held cost every
  // GPU-alone run on the H100 60-80 ms at its first copy, call CA).  Small
  // slots are made fast and copy fast: on the H200 (call OA,
  // hce_bench_staging_pool) eight workers with 1 MiB slots staged 72-512 MiB
  // at 29-38 GB/s, with 4 and 8 MiB slots mostly at 19-26, and jacobi2d's GPU
  // alone took 18.7, 20.6, 24.5 and 32.4 ms with 1, 2, 4 and 8 MiB slots
  // (the H100 agreed, call ID).
  static constexpr size_t kSlotBytes = size_t(1) << 20;
  // A copy of fewer than `use` slots is cut into pieces of at least this
  // (piece_bytes()), so that its workers share it: one worker moved a 1 MiB
  // slot in ~0.23 ms beside the CPU's team on the H200 (calls FC-FD: cold
  // blackscholes' chunks of three 1.05 MiB arrays uploaded in 0.75 ms, at
  // 4.4 GB/s, its large ones at 21 GB/s).
  static constexpr size_t kMinPieceBytes = size_t(64) << 10;
  // The bytes each worker moves at a time for a copy of `bytes` by up to
  // `use` workers with slots of `slot`: the slot, or for a copy of fewer
  // than `use` slots its share, rounded up to kMinPieceBytes.
  static size_t piece_bytes(size_t bytes, int use, size_t slot);

  // `threads` workers for device `ordinal`, each with two pinned slots of
  // `slot_bytes` (streams, events and slots made here); nullptr and `why`
  // on failure.  bench/staging_pool_bench.cpp measures other slot sizes.
  static std::unique_ptr<StagingPool> create(int ordinal, int threads, std::string &why,
                                             size_t slot_bytes = kSlotBytes);
  ~StagingPool();
  StagingPool(const StagingPool &) = delete;
  StagingPool &operator=(const StagingPool &) = delete;

  int threads() const { return int(workers_.size()); }
  size_t slot_bytes() const { return slot_bytes_; }
  // `bytes` from pageable `host` into device memory `dev` by up to `use`
  // workers, ordered on `stream` (see above).  false + why on a CUDA error.
  bool upload(char *dev, const char *host, size_t bytes, int use, cudaStream_t stream,
              std::string &why);
  bool download(char *host, const char *dev, size_t bytes, int use, cudaStream_t stream,
                std::string &why);

private:
  enum Direction { kUp = 0, kDown = 1 };
  struct Worker {
    std::thread thread;
    cudaStream_t stream = nullptr;
    char *slot[2] = {nullptr, nullptr};
    cudaEvent_t done[2] = {nullptr, nullptr}; // the slot's last copy
    cudaEvent_t last[2] = {nullptr, nullptr}; // its last piece of each direction's copy
    uint64_t joined[2] = {0,
                          0}; // the generation of each direction's copy it took part in
  };
  // One copy in progress (jobs_[direction]); generation 0: none yet.
  struct Job {
    char *dev = nullptr;
    char *host = nullptr;
    size_t bytes = 0;
    size_t piece = 0;    // piece_bytes(): what a worker moves at a time
    int use = 0;         // at most this many workers at once
    size_t pieces = 0;   // ceil(bytes / piece)
    size_t claimed = 0;  // pieces handed to workers
    size_t finished = 0; // pieces whose host side is done (or failed)
    int workers = 0;     // workers taking its pieces now
    uint64_t generation = 0;
    std::string error;
  };
  // A worker's download whose bytes still wait in its slot.
  struct Pending {
    int dir = -1;
    uint64_t generation = 0;
    size_t off = 0, n = 0;
    int slot = 0;
  };

  StagingPool(int ordinal, size_t slot_bytes)
      : ordinal_(ordinal), slot_bytes_(slot_bytes) {}
  // The worker's stream and events, by the creating thread.
  bool make_worker_events(Worker &w, std::string &why);
  // On the worker's thread: its device current, its slots faulted in.
  bool make_worker(Worker &w, std::string &why);
  bool copy(Direction dir, char *dev, char *host, size_t bytes, int use,
            cudaStream_t stream, std::string &why);
  void run(int index);
  // Under mutex_: the direction whose copy worker `index` takes its next
  // piece from (-1: none), given the copy it is in now (`cur` of `cur_gen`).
  int pick(int index, int cur, uint64_t cur_gen) const;
  // Issues one piece of `job` (a copy of its fields) in slot `k` of `w`.
  bool issue(Worker &w, Direction dir, const Job &job, size_t off, size_t n, int k,
             std::string &why);
  // Copies a pending download's bytes from its slot to the host.
  bool drain(Worker &w, const Pending &p, const Job &job, std::string &why);
  // Under mutex_: `count` pieces of copy `dir` of `generation` are done.
  void finish(int dir, uint64_t generation, size_t count, const std::string &why);

  const int ordinal_;
  const size_t slot_bytes_;
  char *arena_ = nullptr; // every worker's two slots, page-locked at once
  size_t arena_bytes_ = 0;
  bool registered_ = false;
  std::vector<Worker> workers_;
  cudaEvent_t fork_[2] = {nullptr, nullptr}; // per direction

  std::mutex call_mutex_[2]; // one copy per direction at a time
  std::mutex mutex_;         // the jobs and their progress
  std::condition_variable wake_, finished_;
  Job jobs_[2];
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::string error_; // of the workers' start
  int starting_ = 0;  // workers still making their resources
};

} // namespace hce
