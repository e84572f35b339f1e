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
  for (cudaEvent_t &fork : pool->fork_)
    if (!ok(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming),
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
          "cudaStreamCreateWithFlags", ordinal_, why))
    return false;
  for (int k = 0; k < 2; ++k)
    if (!ok(cudaEventCreateWithFlags(&w.done[k], cudaEventDisableTiming),
            "cudaEventCreateWithFlags", ordinal_, why) ||
        !ok(cudaEventCreateWithFlags(&w.last[k], cudaEventDisableTiming),
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
    for (int k = 0; k < 2; ++k) {
      if (w.done[k])
        cudaEventDestroy(w.done[k]);
      if (w.last[k])
        cudaEventDestroy(w.last[k]);
    }
    if (w.stream)
      cudaStreamDestroy(w.stream);
  }
  if (registered_)
    cudaHostUnregister(arena_);
  std::free(arena_);
  for (cudaEvent_t fork : fork_)
    if (fork)
      cudaEventDestroy(fork);
  cudaGetLastError();
}

bool StagingPool::upload(char *dev, const char *host, size_t bytes, int use,
                         cudaStream_t stream, std::string &why) {
  return copy(kUp, dev, const_cast<char *>(host), bytes, use, stream, why);
}

bool StagingPool::download(char *host, const char *dev, size_t bytes, int use,
                           cudaStream_t stream, std::string &why) {
  return copy(kDown, const_cast<char *>(dev), host, bytes, use, stream, why);
}

size_t StagingPool::piece_bytes(size_t bytes, int use, size_t slot) {
  const size_t share = (bytes + size_t(std::max(1, use)) - 1) / size_t(std::max(1, use));
  const size_t rounded = (share + kMinPieceBytes - 1) / kMinPieceBytes * kMinPieceBytes;
  return std::clamp(rounded, std::min(kMinPieceBytes, slot), slot);
}

bool StagingPool::copy(Direction dir, char *dev, char *host, size_t bytes, int use,
                       cudaStream_t stream, std::string &why) {
  if (bytes == 0)
    return true;
  std::lock_guard<std::mutex> call(call_mutex_[dir]);
  use = int(std::min<size_t>(size_t(std::max(1, use)), workers_.size()));
  const size_t piece = piece_bytes(bytes, use, slot_bytes_);
  const size_t pieces = (bytes + piece - 1) / piece;
  // Never more workers than pieces to move.
  use = int(std::min<size_t>(size_t(use), pieces));
  if (!ok(cudaEventRecord(fork_[dir], stream), "cudaEventRecord", ordinal_, why))
    return false;
  std::vector<cudaEvent_t> joins;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    Job &job = jobs_[dir];
    job = Job{dev, host, bytes, piece, use, pieces, 0, 0, 0, ++generation_, {}};
    const uint64_t gen = job.generation;
    wake_.notify_all();
    finished_.wait(lock, [&] { return job.finished == job.pieces; });
    if (!job.error.empty()) {
      why = job.error;
      return false;
    }
    for (const Worker &w : workers_)
      if (w.joined[dir] == gen)
        joins.push_back(w.last[dir]);
  }
  // Join: the caller's stream passes the copy only after every worker's
  // last piece of it.
  for (cudaEvent_t last : joins)
    if (!ok(cudaStreamWaitEvent(stream, last, 0), "cudaStreamWaitEvent", ordinal_, why))
      return false;
  return true;
}

int StagingPool::pick(int index, int cur, uint64_t cur_gen) const {
  const int home = index & 1; // even workers prefer uploads, odd ones downloads
  for (const int dir : {home, home ^ 1}) {
    const Job &job = jobs_[dir];
    const bool inside = cur == dir && cur_gen == job.generation;
    if (job.claimed < job.pieces && (inside || job.workers < job.use))
      return dir;
  }
  return -1;
}

void StagingPool::finish(int dir, uint64_t generation, size_t count,
                         const std::string &why) {
  Job &job = jobs_[dir];
  if (job.generation != generation)
    return; // (cannot happen: a copy waits for all its pieces)
  if (!why.empty() && job.error.empty()) {
    job.error = why;
    // The pieces nobody took yet are given up.
    job.finished += job.pieces - job.claimed;
    job.claimed = job.pieces;
  }
  job.finished += count;
  if (job.finished == job.pieces)
    finished_.notify_all();
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
  int cur = -1;         // the direction of the copy it takes pieces of
  uint64_t cur_gen = 0; // ... and that copy's generation
  Pending pending;      // its download waiting in slot pending.slot
  Job pending_job;      // ... of this copy
  int k = 0;            // the slot of its next piece
  for (;;) {
    int dir = -1;
    Job job;
    size_t off = 0, n = 0;
    bool fork = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      for (;;) {
        if (stop_)
          return; // (no copy is in progress while the pool is destroyed)
        dir = pick(index, cur, cur_gen);
        if (dir >= 0 || pending.n > 0)
          break;
        if (cur >= 0 && jobs_[cur].generation == cur_gen)
          --jobs_[cur].workers;
        cur = -1;
        wake_.wait(lock);
      }
      if (dir >= 0) {
        Job &j = jobs_[dir];
        if (cur != dir || cur_gen != j.generation) {
          if (cur >= 0 && jobs_[cur].generation == cur_gen) {
            --jobs_[cur].workers;
            wake_.notify_all(); // a worker kept out by its `use` may take over
          }
          cur = dir;
          cur_gen = j.generation;
          ++j.workers;
        }
        fork = w.joined[dir] != j.generation;
        w.joined[dir] = j.generation;
        off = j.claimed++ * j.piece;
        n = std::min(j.piece, j.bytes - off);
        job = j;
      }
    }
    std::string why;
    bool issued = true;
    if (dir >= 0) {
      issued = (!fork || ok(cudaStreamWaitEvent(w.stream, fork_[dir], 0),
                            "cudaStreamWaitEvent", ordinal_, why)) &&
               issue(w, Direction(dir), job, off, n, k, why);
    }
    // The previous download comes out of its slot while this piece moves.
    std::string drain_why;
    const bool drained = pending.n == 0 || drain(w, pending, pending_job, drain_why);
    std::lock_guard<std::mutex> lock(mutex_);
    if (pending.n > 0)
      finish(pending.dir, pending.generation, 1, drained ? "" : drain_why);
    pending = Pending{};
    if (dir < 0)
      continue;
    if (dir == kDown && issued) {
      pending = Pending{dir, job.generation, off, n, k};
      pending_job = job;
    } else {
      finish(dir, job.generation, 1, issued ? "" : why);
    }
    k ^= 1;
  }
}

// One piece in slot k: an upload's bytes copied into the slot and sent; a
// download's requested into the slot (drain() copies them out).
bool StagingPool::issue(Worker &w, Direction dir, const Job &job, size_t off, size_t n,
                        int k, std::string &why) {
  if (dir == kUp) {
    // The slot's previous copy must have left it before it is refilled.
    if (!ok(cudaEventSynchronize(w.done[k]), "cudaEventSynchronize", ordinal_, why))
      return false;
    std::memcpy(w.slot[k], job.host + off, n);
    if (!ok(cudaMemcpyAsync(job.dev + off, w.slot[k], n, cudaMemcpyHostToDevice,
                            w.stream),
            "cudaMemcpyAsync (staged upload)", ordinal_, why))
      return false;
  } else if (!ok(cudaMemcpyAsync(w.slot[k], job.dev + off, n, cudaMemcpyDeviceToHost,
                                 w.stream),
                 "cudaMemcpyAsync (staged download)", ordinal_, why)) {
    return false;
  }
  return ok(cudaEventRecord(w.done[k], w.stream), "cudaEventRecord", ordinal_, why) &&
         ok(cudaEventRecord(w.last[dir], w.stream), "cudaEventRecord", ordinal_, why);
}

bool StagingPool::drain(Worker &w, const Pending &p, const Job &job, std::string &why) {
  if (!ok(cudaEventSynchronize(w.done[p.slot]), "cudaEventSynchronize", ordinal_, why))
    return false;
  std::memcpy(job.host + p.off, w.slot[p.slot], p.n);
  return true;
}

} // namespace hce
