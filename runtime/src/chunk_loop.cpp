#include "chunk_loop.hpp"

#include "clock.hpp"
#include "log.hpp"

#include <condition_variable>
#include <mutex>

namespace hce {
namespace {

std::string range_text(Range r) {
  return "[" + std::to_string(r.lb) + ", " + std::to_string(r.ub) + ")";
}

struct Shared {
  std::mutex mutex;
  std::condition_variable cv;
  Scheduler *scheduler = nullptr;
  ChunkLoopResult result;
};

void controller_job(Runtime &rt, Shared &sh, ChunkWorker &w, int slot,
                    const std::string &label, double t0) {
  const std::string &dev = rt.devices()[w.device]->name();
  std::unique_lock<std::mutex> lock(sh.mutex);
  for (;;) {
    if (!sh.result.fatal.empty())
      break;
    Decision dec = sh.scheduler->next(slot);
    if (dec.kind == Decision::Done)
      break;
    if (dec.kind == Decision::Wait) {
      sh.cv.wait(lock);
      continue;
    }
    lock.unlock();
    std::string why;
    double start = now_seconds();
    bool ok = w.run(dec.range, why);
    double end = now_seconds();
    lock.lock();
    if (!ok) {
      warning(label + ": " + dev + " failed on iterations " +
              range_text(dec.range) + ": " + why +
              "; re-running them on the CPU and using " + dev +
              " no more in this execution");
      sh.result.failures += 1;
      sh.scheduler->drop(slot);
      sh.cv.notify_all();
      if (w.on_failure) {
        lock.unlock();
        std::string fatal = w.on_failure();
        lock.lock();
        if (!fatal.empty() && sh.result.fatal.empty())
          sh.result.fatal = fatal;
      }
      break;
    }
    sh.result.completed.add(dec.range.lb, dec.range.ub);
    w.iterations += dec.range.size();
    w.chunks += 1;
    w.busy += end - start;
    w.finish = end - t0;
    sh.scheduler->complete(slot, dec.range, end - start);
    sh.cv.notify_all();
  }
  sh.cv.notify_all();
}

} // namespace

ChunkLoopResult run_chunk_loop(Runtime &rt, Scheduler &scheduler,
                               std::vector<ChunkWorker> &workers,
                               const std::string &label) {
  Shared sh;
  sh.scheduler = &scheduler;
  const double t0 = now_seconds();
  for (size_t i = 0; i < workers.size(); ++i)
    rt.controller(workers[i].device).post([&, i] {
      controller_job(rt, sh, workers[i], int(i), label, t0);
    });
  for (const ChunkWorker &w : workers)
    rt.controller(w.device).wait();
  sh.result.wall = now_seconds() - t0;
  return std::move(sh.result);
}

} // namespace hce
