#include "chunk_loop.hpp"

#include "clock.hpp"
#include "cpu_device.hpp"
#include "log.hpp"
#include "slow_devices.hpp"
#include "trace.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <semaphore>
#include <thread>

namespace hce {
namespace {

std::string range_text(Range r) {
  return "[" + std::to_string(r.lb) + ", " + std::to_string(r.ub) + ")";
}

struct Shared {
  explicit Shared(ChunkLoopResult &out) : result(out) {}
  std::mutex mutex;
  std::condition_variable cv;
  Scheduler *scheduler = nullptr;
  ChunkLoopResult &result;
  int64_t iterations = -1; // W, when the caller gave it
  // Every iteration complete (result.completed covers [0, W)): read by the
  // prologues without the lock.
  std::atomic<bool> all_complete{false};
  // Host devices that compute this execution's chunks or may still ask for
  // one (not done, retired or paused): ChunkWorker::pipeline_after_first
  // waits for none.
  std::atomic<int> hosts_working{0};
  // Accelerators that have not yet asked for their first chunk (under the
  // mutex): ChunkWorker::first_ask_wait waits for none.
  int accelerators_unasked = 0;
  double t0 = 0;
  const std::string *label = nullptr; // the caller's, alive for the loop
};

// A chunk on its way through a device's stages.
struct InFlight {
  Range range;
  int slot = 0;
  double upload = 0, compute = 0; // seconds spent in each stage
  double first_upload = 0;        // of `upload`: ChunkWorker::first_upload_share
  double placed_upload = 0;       // ... ChunkWorker::placed_upload_share
};

// A blocking FIFO between two stages.
class StageQueue {
public:
  void push(InFlight c) {
    {
      std::lock_guard<std::mutex> lock(m_);
      q_.push_back(c);
    }
    cv_.notify_one();
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(m_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  std::optional<InFlight> pop() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return closed_ || !q_.empty(); });
    if (q_.empty())
      return std::nullopt;
    InFlight c = q_.front();
    q_.pop_front();
    return c;
  }

private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<InFlight> q_;
  bool closed_ = false;
};

class DeviceRun {
public:
  DeviceRun(Runtime &rt, Shared &sh, ChunkWorker &w, int slot)
      : rt_(rt), sh_(sh), w_(w), slot_(slot), dev_(rt.devices()[w.device]->name()),
        host_(rt.devices()[w.device]->uses_host_memory()) {}

  void run() {
    if (w_.prologue) {
      const double start = now_seconds();
      w_.prologue([this] { return !sh_.all_complete.load(std::memory_order_relaxed); });
      // The CPU's team made, a GPU's windows, pool and registrations: a
      // cold execution's first milliseconds (call OC) showed only as the gap
      // before a device's first chunk.
      if (trace_enabled())
        trace_event(dev_, "prepare", *sh_.label + " preparation", start, now_seconds());
    }
    if (!host_)
      asked_first();
    else if (w_.first_ask_wait > 0)
      wait_for_first_asks();
    if (w_.pipelined || run_sequential())
      run_pipelined();
    set_quiet(true);
    if (w_.epilogue && !failed_)
      w_.epilogue();
    if (retired_ && !failed_ && w_.retired &&
        !sh_.all_complete.load(std::memory_order_relaxed)) {
      const double start = now_seconds();
      w_.retired();
      if (trace_enabled())
        trace_event(dev_, "prepare", *sh_.label + " retired: cores handed over", start,
                    now_seconds());
    }
    if (failed_ && w_.on_failure) {
      std::string fatal = w_.on_failure();
      std::lock_guard<std::mutex> lock(sh_.mutex);
      if (!fatal.empty() && sh_.result.fatal.empty())
        sh_.result.fatal = fatal;
      for (const Range &r : w_.finished_by_rescue)
        sh_.result.completed.add(r.lb, r.ub);
      if (sh_.iterations >= 0 && sh_.result.completed.total_length() >= sh_.iterations)
        sh_.all_complete.store(true, std::memory_order_relaxed);
    }
    sh_.cv.notify_all();
  }

private:
  // An accelerator about to ask for its first chunk (ChunkWorker::
  // first_ask_wait).
  void asked_first() {
    std::lock_guard<std::mutex> lock(sh_.mutex);
    if (--sh_.accelerators_unasked == 0)
      sh_.cv.notify_all();
  }
  void wait_for_first_asks() {
    const double start = now_seconds();
    std::unique_lock<std::mutex> lock(sh_.mutex);
    sh_.cv.wait_for(lock, std::chrono::duration<double>(w_.first_ask_wait), [this] {
      return sh_.accelerators_unasked <= 0 ||
             sh_.all_complete.load(std::memory_order_relaxed) ||
             !sh_.result.fatal.empty();
    });
    lock.unlock();
    if (trace_enabled())
      trace_event(dev_, "prepare", *sh_.label + " first ask after the accelerators'",
                  start, now_seconds());
  }

  // Asks the scheduler for this device's next chunk; nullopt when done.
  std::optional<Range> next_chunk() {
    std::unique_lock<std::mutex> lock(sh_.mutex);
    return next_locked(lock);
  }

  std::optional<Range> next_locked(std::unique_lock<std::mutex> &lock) {
    for (;;) {
      if (!sh_.result.fatal.empty() || failed_)
        return std::nullopt;
      Decision dec = sh_.scheduler->next(slot_);
      if (dec.kind == Decision::Done) {
        retired_ = sh_.scheduler->retired(slot_);
        return std::nullopt;
      }
      if (dec.kind == Decision::Run) {
        lend_back_ =
            lend_back_ || (w_.lending_ended && !lent_back_ && !sh_.scheduler->lending());
        paused_ = false;
        set_quiet(false);
        return dec.range;
      }
      if (!paused_ && w_.paused && sh_.scheduler->paused(slot_)) {
        paused_ = true;
        set_quiet(true);
        lock.unlock(); // (a fork: the others' completions go on meanwhile)
        const double start = now_seconds();
        w_.paused();
        if (trace_enabled())
          trace_event(dev_, "prepare", *sh_.label + " paused: cores handed over", start,
                      now_seconds());
        lock.lock();
        continue;
      }
      sh_.cv.wait(lock);
    }
  }

  void fail(Range range, const std::string &why) {
    std::lock_guard<std::mutex> lock(sh_.mutex);
    if (!failed_)
      warning(*sh_.label + ": " + dev_ + " failed on iterations " + range_text(range) +
              ": " + why + "; re-running them on the CPU and using " + dev_ +
              " no more in this execution");
    failed_ = true;
    sh_.result.failures += 1;
    sh_.scheduler->drop(slot_);
    sh_.cv.notify_all();
  }

  void complete(const InFlight &c, double download, double end) {
    std::lock_guard<std::mutex> lock(sh_.mutex);
    complete_locked(c, download, end);
  }

  // complete() and next_chunk() under one hold of the shared lock: half the
  // lock hand-offs per chunk when devices contend for it.
  std::optional<Range> complete_and_next(const InFlight &c, double download, double end) {
    std::unique_lock<std::mutex> lock(sh_.mutex);
    complete_locked(c, download, end);
    return next_locked(lock);
  }

  void complete_locked(const InFlight &c, double download, double end) {
    sh_.result.completed.add(c.range.lb, c.range.ub);
    if (sh_.iterations >= 0 && sh_.result.completed.total_length() >= sh_.iterations)
      sh_.all_complete.store(true, std::memory_order_relaxed);
    // In a pipeline the stages overlap: a chunk costs its slowest stage.
    const auto cost = [&](double upload) {
      return w_.pipelined ? std::max({upload, c.compute, download})
                          : upload + c.compute + download;
    };
    const double seconds = cost(c.upload);
    w_.iterations += c.range.size();
    w_.chunks += 1;
    w_.busy += seconds;
    w_.compute_busy += c.compute;
    w_.chunk_times.push_back({c.range.size(), seconds});
    w_.finish = end - sh_.t0;
    // One-time uploads leave the steady cost: a data region's first ones,
    // and all of them while the data moves to where a new mode wants it.
    const double one_time =
        sh_.scheduler->placing_data(slot_) ? c.placed_upload : c.first_upload;
    sh_.scheduler->complete(
        slot_, c.range,
        sh_.scheduler->steady_chunk_costs() ? cost(c.upload - one_time) : seconds);
    sh_.cv.notify_all();
  }

  // Runs one stage, timing and tracing it; false after a failure.
  bool stage(const ChunkWorker::Stage &f, const char *stream, InFlight &c,
             double &seconds) {
    std::string why;
    double start = now_seconds();
    bool ok = f(c.range, c.slot, why);
    double end = now_seconds();
    seconds = end - start;
    if (!ok) {
      fail(c.range, why);
      return false;
    }
    if (trace_enabled()) // the event's name costs a string per stage
      trace_event(dev_, stream, *sh_.label + " " + range_text(c.range), start, end);
    return true;
  }

  bool upload_stage(InFlight &c) {
    if (!stage(w_.upload, "upload", c, c.upload))
      return false;
    if (w_.first_upload_share)
      c.first_upload = c.upload * std::clamp(w_.first_upload_share(c.slot), 0.0, 1.0);
    if (w_.placed_upload_share)
      c.placed_upload = c.upload * std::clamp(w_.placed_upload_share(c.slot), 0.0, 1.0);
    return true;
  }

  // Returns true to go on in the pipeline (pipeline_when_compute_bound).
  bool run_sequential() {
    std::optional<Range> range = next_chunk();
    for (int k = 0; range; ++k) {
      if (lend_back_ && !lent_back_) { // (set under the lock: see next_locked)
        lent_back_ = true;
        w_.lending_ended();
      }
      InFlight c{*range, 0};
      double down = 0;
      if (!upload_stage(c))
        break;
      if (!stage(w_.compute, "compute", c, c.compute) ||
          !stage(w_.download, "download", c, down)) {
        w_.abandon(c.slot);
        break;
      }
      // Not by the first chunk: its first launch may outlast tiny copies.
      // Copy-bound, only once no host computes: beside the CPU's team an
      // accelerator asking an upload ahead commits rows at the copies' rate
      // of a quiet host (hce-sim: cold matadd on 3 of 9 profiles).
      const bool hosts_quiet = sh_.hosts_working.load(std::memory_order_relaxed) == 0;
      if (k > 0 &&
          ((w_.pipeline_after_first && hosts_quiet) ||
           (w_.pipeline_when_compute_bound && c.compute > 2 * (c.upload + down)))) {
        complete(c, down, now_seconds());
        if (trace_enabled())
          trace_event(dev_, "prepare",
                      *sh_.label + (w_.pipeline_after_first
                                        ? " copies overlap: pipelined from here"
                                        : " compute-bound: pipelined from here"),
                      now_seconds(), now_seconds());
        return true;
      }
      range = complete_and_next(c, down, now_seconds());
    }
    return false;
  }

  // Three threads, one per stream: this one uploads, `computer` computes,
  // `downloader` downloads (the device's stream threads).  At most kPipelineDepth chunks
  // are in flight, so chunk k's state slot (k mod depth) is free again when k+depth
  // starts.
  void run_pipelined() {
    std::counting_semaphore<kPipelineDepth> free_slots(kPipelineDepth);
    StageQueue to_compute, to_download;
    Controller &computer = rt_.stream_thread(w_.device, 0);
    Controller &downloader = rt_.stream_thread(w_.device, 1);
    computer.post([&] {
      while (auto c = to_compute.pop()) {
        if (failed_ || !stage(w_.compute, "compute", *c, c->compute)) {
          w_.abandon(c->slot);
          free_slots.release();
          continue;
        }
        to_download.push(*c);
      }
      to_download.close();
    });
    // A chunk that computed is released even once a later chunk failed:
    // its kernel wrote the device's copy, which the rescue (on_failure)
    // brings home -- an update in place in a data region, left unrecorded
    // and run again on the CPU, was applied twice with status 0 (the fault
    // matrix's inplace_data under ASan, adets, fail_compute:3).
    downloader.post([&] {
      while (auto c = to_download.pop()) {
        double down = 0;
        if (!stage(w_.download, "download", *c, down))
          w_.abandon(c->slot);
        else
          complete(*c, down, now_seconds());
        free_slots.release();
      }
    });
    for (int k = 0;; ++k) {
      free_slots.acquire();
      auto range = next_chunk();
      if (!range) {
        free_slots.release();
        break;
      }
      InFlight c{*range, k % kPipelineDepth};
      if (!upload_stage(c)) {
        free_slots.release();
        break;
      }
      to_compute.push(c);
    }
    to_compute.close();
    computer.wait();
    downloader.wait();
  }

  Runtime &rt_;
  Shared &sh_;
  ChunkWorker &w_;
  int slot_;
  std::string dev_;
  std::atomic<bool> failed_{false};
  // A host device: counted in Shared::hosts_working while not quiet.
  void set_quiet(bool quiet) {
    if (host_ && quiet != quiet_) {
      quiet_ = quiet;
      sh_.hosts_working.fetch_add(quiet ? -1 : 1, std::memory_order_relaxed);
    }
  }

  const bool host_;
  bool quiet_ = false;   // (a host device starts working: run_chunk_loop counts it)
  bool retired_ = false; // the scheduler retired it early (Scheduler::retired)
  bool paused_ = false;  // ... or paused it (Scheduler::paused): w_.paused() ran
  // Scheduler::lending() turned false; w_.lending_ended() ran.
  bool lend_back_ = false, lent_back_ = false;
};

// The cores this process may run on.
int usable_cores() {
  static const int n = [] {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
      return CPU_COUNT(&set);
    return std::max(1, int(std::thread::hardware_concurrency()));
  }();
  return n;
}

} // namespace

SpinBackoff::Budget waiter_spin(const Runtime &rt,
                                const std::vector<ChunkWorker> &workers, int cores) {
  int threads = 1; // the caller's
  for (const ChunkWorker &w : workers) {
    if (w.idle)
      continue;
    if (rt.devices()[size_t(w.device)]->uses_host_memory())
      return SpinBackoff::Budget::Short;
    threads += w.pipelined ? 3 : 1; // a pipeline's stream threads
  }
  return threads <= cores ? SpinBackoff::Budget::Learned : SpinBackoff::Budget::Short;
}

CpuDevice *team_to_create_beside(const Runtime &rt,
                                 const std::vector<ChunkWorker> &workers,
                                 double expected_wall, double mapped_bytes) {
  // Creating 16 threads took 1.0-1.2 ms on the H100 (calls DE, DG): an
  // execution predicted at twice that hides it with a margin.
  constexpr double kHidesTeamCreation = 2.5e-3;
  if (expected_wall < kHidesTeamCreation || mapped_bytes >= kQuietHostBytes)
    return nullptr;
  CpuDevice *cpu = nullptr;
  int working = 0;
  for (const ChunkWorker &w : workers) {
    Device *dev = rt.devices()[size_t(w.device)].get();
    if (!w.idle && dev->uses_host_memory())
      return nullptr; // the CPU (or a host device) works: nothing to hide
    if (!w.idle)
      ++working;
    else if (dev->kind() == DeviceKind::Cpu)
      cpu = static_cast<CpuDevice *>(dev);
  }
  return working == 1 && cpu && cpu->team_wanted_here() ? cpu : nullptr;
}

double ChunkWorker::capability() const { return rate_of_large_chunks(chunk_times); }

// Every field of ChunkWorker: one added there must be reset here (the size
// check below fails until this list is looked at again).
static_assert(sizeof(void *) != 8 || sizeof(std::function<void()>) != 32 ||
                  sizeof(ChunkWorker) == 496,
              "ChunkWorker's fields changed: update ChunkWorker::reset()");
void ChunkWorker::reset() {
  device = 0;
  pipelined = pipeline_when_compute_bound = pipeline_after_first = false;
  for (Stage *f : {&upload, &compute, &download})
    if (*f)
      *f = nullptr;
  if (abandon)
    abandon = nullptr;
  if (first_upload_share)
    first_upload_share = nullptr;
  if (placed_upload_share)
    placed_upload_share = nullptr;
  idle = false;
  if (prologue)
    prologue = nullptr;
  first_ask_wait = 0;
  for (std::function<void()> *f : {&epilogue, &retired, &paused, &lending_ended})
    if (*f)
      *f = nullptr;
  if (on_failure)
    on_failure = nullptr;
  finished_by_rescue.clear();
  iterations = chunks = 0;
  busy = finish = compute_busy = 0;
  chunk_times.clear();
}

ChunkLoopResult run_chunk_loop(Runtime &rt, Scheduler &scheduler,
                               std::vector<ChunkWorker> &workers,
                               const std::string &label,
                               const std::function<void()> &beside, int64_t iterations) {
  ChunkLoopResult out;
  run_chunk_loop(rt, scheduler, workers, label, beside, iterations, out);
  return out;
}

void run_chunk_loop(Runtime &rt, Scheduler &scheduler, std::vector<ChunkWorker> &workers,
                    const std::string &label, const std::function<void()> &beside,
                    int64_t iterations, ChunkLoopResult &out) {
  out.reset();
  Shared sh(out);
  sh.scheduler = &scheduler;
  sh.iterations = iterations;
  sh.label = &label;
  sh.t0 = now_seconds();
  // None for the idle.  On the stack for the usual few devices: a short
  // execution (lud's ~15 us) allocates nothing here.
  constexpr size_t kOnStack = 4;
  std::array<std::optional<DeviceRun>, kOnStack> run_here;
  std::vector<std::unique_ptr<DeviceRun>> run_more(
      workers.size() > kOnStack ? workers.size() - kOnStack : 0);
  std::array<DeviceRun *, kOnStack> few{};
  std::vector<DeviceRun *> many(workers.size() > kOnStack ? workers.size() : 0);
  DeviceRun **runs = workers.size() > kOnStack ? many.data() : few.data();
  for (size_t i = 0; i < workers.size(); ++i) {
    if (workers[i].idle)
      runs[i] = nullptr;
    else if (i < kOnStack)
      runs[i] = &run_here[i].emplace(rt, sh, workers[i], int(i));
    else
      runs[i] = (run_more[i - kOnStack] =
                     std::make_unique<DeviceRun>(rt, sh, workers[i], int(i)))
                    .get();
  }
  for (size_t i = 0; i < workers.size(); ++i)
    if (workers[i].idle)
      scheduler.drop(int(i)); // before any device asks: nothing to re-run
    else if (rt.devices()[size_t(workers[i].device)]->uses_host_memory())
      sh.hosts_working.fetch_add(1, std::memory_order_relaxed);
    else
      ++sh.accelerators_unasked;
  // One device may run on this thread: the CPU first (its team is this
  // thread's; on a controller it would be a second team, spinning on the
  // same cores), else an accelerator.  The others are handed to their
  // controllers first, so that they start at once.
  Device *here = nullptr;
  size_t here_slot = workers.size();
  for (bool host : {true, false})
    for (size_t i = 0; i < workers.size() && !here && !beside; ++i) {
      Device *dev = rt.devices()[size_t(workers[i].device)].get();
      if (!workers[i].idle && dev->uses_host_memory() == host && dev->enter_caller()) {
        here = dev;
        here_slot = i;
      }
    }
  for (size_t i = 0; i < workers.size(); ++i)
    if (!workers[i].idle && i != here_slot)
      rt.controller(workers[i].device).post([&, i] { runs[i]->run(); });
  if (here) {
    runs[here_slot]->run();
    here->leave_caller();
  } else if (beside) {
    beside();
  }
  const SpinBackoff::Budget spin = waiter_spin(rt, workers, usable_cores());
  for (size_t i = 0; i < workers.size(); ++i)
    if (!workers[i].idle && i != here_slot)
      rt.controller(workers[i].device).wait(spin);
  sh.result.wall = now_seconds() - sh.t0;
}

} // namespace hce
