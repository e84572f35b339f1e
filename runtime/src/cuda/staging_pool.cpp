#include "staging_pool.hpp"

#include "../host_pages.hpp"
#include "../thread_name.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace hce {
namespace {

bool ok(cudaError_t rc, const char *call, int ordinal, std::string &why) {
  if (rc == cudaSuccess)
    return true;
  const char *s = cudaGetErrorString(rc);
  why = std::string(call) + " failed on cuda:" + std::to_string(ordinal) + ": " +
        (s ? s : "unknown CUDA error");
  cudaGetLastError(); // a non-sticky error must not fail the next call
  return false;
}

} // namespace

std::unique_ptr<StagingPool> StagingPool::create(int ordinal, int threads,
                                                 std::string &why, size_t slot_bytes) {
  // Whole pages: aligned_alloc wants a multiple of the alignment.
  const size_t page = 4096;
  slot_bytes = std::max(page, (slot_bytes + page - 1) / page * page);
  std::unique_ptr<StagingPool> pool(new StagingPool(ordinal, slot_bytes));
  // The caller made `ordinal` current.
  if (!ok(cudaEventCreateWithFlags(&pool->fork_, cudaEventDisableTiming),
          "cudaEventCreateWithFlags", ordinal, why))
    return nullptr;
  pool->workers_.resize(size_t(std::max(1, threads)));
  pool->arena_bytes_ = pool->workers_.size() * 2 * slot_bytes;
  // On huge pages where the kernel gives them (THP `madvise` or `always`):
  // faulting the slots' 4 KiB pages in was most of making the pool (1 MiB
  // slots: a 16 MiB memset 3.7-5.5 ms of 5.1-5.4 on the H100, call ID), and
  // every cold run and GPU-alone first execution that stages pays it.  Eight
  // workers' two 1 MiB slots are one 2 MiB huge page each (call AE: made in
  // 1.9-2.6 ms against 2.7-3.3 on the H200).
  pool->arena_ = alloc_on_huge_pages(pool->arena_bytes_);
  if (!pool->arena_) {
    why = "no host memory for the staging slots of cuda:" + std::to_string(ordinal);
    return nullptr;
  }
  // Streams and events by this thread, whose device is current: made by
  // each worker as its first CUDA calls, eight workers took 3.2-6.3 ms
  // (median 3.5) in a fresh process on the H200, here 2.7-4.0 (median 3.2;
  // call IA, hce_bench_staging_pool, six processes each).  The pool is
  // made in every cold run's first large copy (4-7 ms, calls GA, XA).
  for (Worker &w : pool->workers_)
    if (!pool->make_worker_events(w, why))
      return nullptr; // the destructor frees what was made
  pool->starting_ = int(pool->workers_.size());
  for (size_t i = 0; i < pool->workers_.size(); ++i)
    pool->workers_[i].thread = std::thread(&StagingPool::run, pool.get(), int(i));
  {
    std::unique_lock<std::mutex> lock(pool->mutex_);
    pool->finished_.wait(lock, [&] { return pool->starting_ == 0; });
    if (!pool->error_.empty()) {
      why = pool->error_;
      return nullptr; // the destructor stops the workers and frees what they made
    }
  }
  // One registration for every slot, once the workers faulted their pages
  // in: each cudaHostRegister has a fixed cost, and sixteen of 1 MiB made
  // eight workers in ~4 ms on the H200 (call OA).
  if (!ok(cudaHostRegister(pool->arena_, pool->arena_bytes_, cudaHostRegisterPortable),
          "cudaHostRegister (staging slots)", ordinal, why))
    return nullptr;
  pool->registered_ = true;
  return pool;
}

bool StagingPool::make_worker_events(Worker &w, std::string &why) {
  if (!ok(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking),
          "cudaStreamCreateWithFlags", ordinal_, why) ||
      !ok(cudaEventCreateWithFlags(&w.last, cudaEventDisableTiming),
          "cudaEventCreateWithFlags", ordinal_, why))
    return false;
  for (int k = 0; k < 2; ++k)
    if (!ok(cudaEventCreateWithFlags(&w.done[k], cudaEventDisableTiming),
            "cudaEventCreateWithFlags", ordinal_, why))
      return false;
  return true;
}

bool StagingPool::make_worker(Worker &w, std::string &why) {
  if (!ok(cudaSetDevice(ordinal_), "cudaSetDevice", ordinal_, why))
    return false;
  for (int k = 0; k < 2; ++k) {
    w.slot[k] = arena_ + (size_t(&w - workers_.data()) * 2 + size_t(k)) * slot_bytes_;
    std::memset(w.slot[k], 0, slot_bytes_); // its pages faulted in here, in parallel
  }
  return true;
}

StagingPool::~StagingPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (Worker &w : workers_)
    if (w.thread.joinable())
      w.thread.join();
  // The owner made ordinal_ current.
  for (Worker &w : workers_) {
    if (w.stream)
      cudaStreamSynchronize(w.stream);
    for (int k = 0; k < 2; ++k)
      if (w.done[k])
        cudaEventDestroy(w.done[k]);
    if (w.last)
      cudaEventDestroy(w.last);
    if (w.stream)
      cudaStreamDestroy(w.stream);
  }
  if (registered_)
    cudaHostUnregister(arena_);
  std::free(arena_);
  if (fork_)
    cudaEventDestroy(fork_);
  cudaGetLastError();
}

bool StagingPool::upload(char *dev, const char *host, size_t bytes, int use,
                         cudaStream_t stream, std::string &why) {
  return copy(true, dev, const_cast<char *>(host), bytes, use, stream, why);
}

bool StagingPool::download(char *host, const char *dev, size_t bytes, int use,
                           cudaStream_t stream, std::string &why) {
  return copy(false, const_cast<char *>(dev), host, bytes, use, stream, why);
}

size_t StagingPool::piece_bytes(size_t bytes, int use, size_t slot) {
  const size_t share = (bytes + size_t(std::max(1, use)) - 1) / size_t(std::max(1, use));
  const size_t rounded = (share + kMinPieceBytes - 1) / kMinPieceBytes * kMinPieceBytes;
  return std::clamp(rounded, std::min(kMinPieceBytes, slot), slot);
}

bool StagingPool::copy(bool up, char *dev, char *host, size_t bytes, int use,
                       cudaStream_t stream, std::string &why) {
  if (bytes == 0)
    return true;
  std::lock_guard<std::mutex> call(call_mutex_);
  use = int(std::min<size_t>(size_t(std::max(1, use)), workers_.size()));
  const size_t piece = piece_bytes(bytes, use, slot_bytes_);
  // Never more workers than pieces to move.
  use = int(std::min<size_t>(size_t(use), (bytes + piece - 1) / piece));
  if (!ok(cudaEventRecord(fork_, stream), "cudaEventRecord", ordinal_, why))
    return false;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = Job{up, dev, host, bytes, use, piece};
    error_.clear();
    pending_ = int(workers_.size());
    ++generation_;
    wake_.notify_all();
    finished_.wait(lock, [&] { return pending_ == 0; });
    if (!error_.empty()) {
      why = error_;
      return false;
    }
  }
  // Join: the caller's stream passes the copy only after every worker's.
  for (int i = 0; i < use; ++i)
    if (!ok(cudaStreamWaitEvent(stream, workers_[size_t(i)].last, 0),
            "cudaStreamWaitEvent", ordinal_, why))
      return false;
  return true;
}

void StagingPool::run(int index) {
  Worker &w = workers_[size_t(index)];
  name_this_thread("hce stage" + std::to_string(ordinal_) + "." + std::to_string(index));
  {
    std::string why;
    const bool made = make_worker(w, why);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!made && error_.empty())
      error_ = why;
    if (--starting_ == 0)
      finished_.notify_all();
  }
  uint64_t seen = 0;
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_)
        return;
      seen = generation_;
      job = job_;
    }
    std::string why;
    const bool done = index >= job.use || work(w, index, job, why);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!done && error_.empty())
      error_ = why;
    if (--pending_ == 0)
      finished_.notify_all();
  }
}

// Worker `index` of `use` moves pieces index, index + use, ... (each in one
// of its slots): the copies of all workers interleave over the range, so
// the link sees them in about the order of the addresses.
bool StagingPool::work(Worker &w, int index, const Job &job, std::string &why) {
  if (!ok(cudaStreamWaitEvent(w.stream, fork_, 0), "cudaStreamWaitEvent", ordinal_, why))
    return false;
  const size_t step = size_t(job.use) * job.piece;
  int k = 0;
  if (job.up) {
    for (size_t off = size_t(index) * job.piece; off < job.bytes; off += step, k ^= 1) {
      const size_t n = std::min(job.piece, job.bytes - off);
      // The slot's previous copy must have left it before it is refilled.
      if (!ok(cudaEventSynchronize(w.done[k]), "cudaEventSynchronize", ordinal_, why))
        return false;
      std::memcpy(w.slot[k], job.host + off, n);
      if (!ok(cudaMemcpyAsync(job.dev + off, w.slot[k], n, cudaMemcpyHostToDevice,
                              w.stream),
              "cudaMemcpyAsync (staged upload)", ordinal_, why) ||
          !ok(cudaEventRecord(w.done[k], w.stream), "cudaEventRecord", ordinal_, why))
        return false;
    }
  } else {
    // The device-to-host copy into slot k runs while slot k^1 is copied out.
    size_t prev_off = 0, prev_n = 0;
    auto drain = [&](int slot) {
      if (prev_n == 0)
        return true;
      if (!ok(cudaEventSynchronize(w.done[slot]), "cudaEventSynchronize", ordinal_, why))
        return false;
      std::memcpy(job.host + prev_off, w.slot[slot], prev_n);
      return true;
    };
    for (size_t off = size_t(index) * job.piece; off < job.bytes; off += step, k ^= 1) {
      const size_t n = std::min(job.piece, job.bytes - off);
      if (!ok(cudaMemcpyAsync(w.slot[k], job.dev + off, n, cudaMemcpyDeviceToHost,
                              w.stream),
              "cudaMemcpyAsync (staged download)", ordinal_, why) ||
          !ok(cudaEventRecord(w.done[k], w.stream), "cudaEventRecord", ordinal_, why) ||
          !drain(k ^ 1))
        return false;
      prev_off = off;
      prev_n = n;
    }
    if (!drain(k ^ 1))
      return false;
  }
  return ok(cudaEventRecord(w.last, w.stream), "cudaEventRecord", ordinal_, why);
}

} // namespace hce
