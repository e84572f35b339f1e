// The controller loop shared by every way of co-executing a loop (generated
// regions and the papers' hand-written API): each device's controller thread
// asks the scheduler for chunks, runs them, and reports how long they took.
//
// A chunk has three stages: upload (make its data valid on the device),
// compute, download (record its writes, bring results home).  A pipelined
// device runs them on three threads, one per stream, so that the upload of
// chunk k+1, the compute of chunk k and the download of chunk k-1 overlap:
// Fig. 8 and Algorithm 4 of the HCE paper.
#pragma once

#include "data/interval_set.hpp"
#include "runtime.hpp"
#include "sched/scheduler.hpp"

#include <functional>
#include <string>
#include <vector>

namespace hce {

class CpuDevice;

// At most this many chunks of one device are in flight (one per stage).
constexpr int kPipelineDepth = 3;

struct ChunkWorker {
  int device = 0; // index into Runtime::devices
  bool pipelined = false;
  // A sequential worker that switches to the pipeline for the rest of the
  // execution once a chunk after its first computed for longer than twice
  // its copies took: then the next chunk's upload and the last one's
  // download hide behind the kernels (region_exec.cpp: one-shot staged
  // regions under eft; copy-bound loops stay sequential, their uploads and
  // downloads share the staging threads).
  bool pipeline_when_compute_bound = false;
  // ... or, where the device's uploads and downloads run at once
  // (Device::copies_overlap), after a chunk (not its first) whatever the
  // chunks cost once no host device computes (done, retired or paused): a
  // copy-bound chunk's download then runs beside the next one's upload (the
  // H200's cold blackscholes: the GPU's chunks after the CPU retired went
  // up, computed and came home one after another, call YB).

  bool pipeline_after_first = false;
  // The stages of one chunk; `slot` in [0, kPipelineDepth) names the state
  // the chunk keeps while in flight.  false + why on a device failure.
  using Stage = std::function<bool(Range, int slot, std::string &why)>;
  Stage upload, compute, download;
  // A chunk that passed `upload` but will not complete.
  std::function<void(int slot)> abandon;
  // After `upload`: the share of its time that moved data into the device
  // for good (a data region's elements it never held: first_to_device).
  // The scheduler's steady cost of the chunk leaves that time out
  // (Scheduler::steady_chunk_costs).  May be empty (none).
  std::function<double(int slot)> first_upload_share;
  // ... and the share that moved a data region's elements, first or again
  // (Scheduler::placing_data).  May be empty (none).
  std::function<double(int slot)> placed_upload_share;
  // The scheduler plans to give this device nothing in this execution:
  // its controller is not woken at all (it is dropped from the scheduler).
  bool idle = false;
  // Runs on the device's thread before it asks for its first chunk
  // (per-execution preparation: windows, pinning, broadcast uploads), so
  // that the other devices start computing meanwhile.  May be empty.
  // `wanted()` turns false once every iteration is complete: a long
  // preparation (pinning) stops there, since no chunk will use it in this
  // execution, and goes on at the next.
  std::function<void(const std::function<bool()> &wanted)> prologue;
  // A host's first ask, after its prologue, waits until every working
  // accelerator has asked for its first chunk (or every iteration is
  // complete), at most this many seconds; 0: none.  A program's first run
  // (take_first_ask_grace in cpu_device.hpp says why).
  double first_ask_wait = 0;
  // Runs on the device's thread once it has no chunk left in the execution
  // (and did not fail), whether or not the others are done: one-time work
  // for later executions that must not delay its chunks (DataEnv::prefetch
  // queues a data region's copies in the background).  May be empty.
  std::function<void()> epilogue;
  // Called on the device's thread (outside the lock) once its chunks are
  // done, when the scheduler retired it while other devices still had work
  // (Scheduler::retired): hands its cores to the others.  May be empty.
  std::function<void()> retired;
  // Called (outside the lock, on its thread) when the scheduler pauses it
  // (Scheduler::paused), once until it runs a chunk again.  May be empty.
  std::function<void()> paused;
  // On its controller, before its first chunk after the scheduler stopped
  // lending (Scheduler::lending(): the accelerators retired): the host's
  // team takes back the threads it lent their copies.  May be empty.
  std::function<void()> lending_ended;
  // Called (outside the lock, after the device's stages have stopped) after
  // a failure, to rescue the device's data; returns "" or a fatal error.
  // May fill finished_by_rescue (below).
  std::function<std::string()> on_failure;
  // Iterations of failed chunks whose results on_failure found final (not
  // to run again): the loop counts them completed.
  std::vector<Range> finished_by_rescue;
  // Filled in by the loop:
  int64_t iterations = 0, chunks = 0;
  double busy = 0, finish = 0; // seconds; finish relative to the loop start
  double compute_busy = 0;     // seconds of that in the compute stage
  // (iterations, seconds) of every chunk it completed.
  std::vector<std::pair<int64_t, double>> chunk_times;
  // What the device can do: the fastest rate among its chunks of at least
  // half its largest chunk's size (tiny chunks measure overheads, the first
  // one also one-time costs such as pinning host memory).  0 if none.
  double capability() const;
  // As a new one, the vectors' storage kept: field by field, since moving
  // a new one in (ten std::functions) cost ~290 instructions a worker at
  // every execution (lud's 511; VM callgrind, BM_ShrinkingRegion).
  void reset();
};

struct ChunkLoopResult {
  IntervalSet completed; // iterations some device finished
  size_t failures = 0;   // chunks a device failed on
  std::string fatal;     // unrecoverable error, empty when fine
  double wall = 0;
  // Empty, as a new one (the storage kept).
  void reset() {
    completed.clear();
    failures = 0;
    fatal.clear();
    wall = 0;
  }
  // What still has to run: iterations [0, W) no device completed (failed
  // chunks, and work no device was left to take after failures).
  IntervalSet missing(int64_t iterations) const {
    return completed.missing(IntervalSet(0, iterations));
  }
};

// How the thread that runs the loop spins while it waits for the devices'
// jobs (controller.hpp): Learned when it takes no core from them -- no CPU
// team among the workers that are not idle (the team has a thread on every
// core the accelerators' controllers leave) and, with their threads (three
// for a pipelined device), at most `cores` threads -- else Short.
SpinBackoff::Budget waiter_spin(const Runtime &rt,
                                const std::vector<ChunkWorker> &workers, int cores);

// The CPU whose team the calling thread creates while an accelerator runs
// alone (run_chunk_loop's `beside`, CpuDevice::create_team_asleep), or
// nullptr: the CPU is among `workers` but idle, one accelerator works, the
// scheduler predicts the execution (Scheduler::expected_wall) long enough to
// hide the team's creation, and this thread can run the CPU's chunks and
// has no team yet.  nbody on the
// H100: `forces` ran on the GPU alone, then `move`'s first CPU chunk paid
// ~1 ms for the team, the GPU alone's whole cost of `move`.  Not when the
// execution maps kQuietHostBytes or more of host memory (`mapped_bytes`):
// its copies are staged or registered by host threads, which the team's
// creation slows (QA's traces, H200: warm gemm on the GPU alone 17.4 ms
// against `gpu`'s 16.4, its upload 0.3 ms longer beside the 1.5 ms
// creation).
CpuDevice *team_to_create_beside(const Runtime &rt,
                                 const std::vector<ChunkWorker> &workers,
                                 double expected_wall, double mapped_bytes);

// Runs `scheduler` (begun already) over `workers` on their controllers and
// waits for all of them; one device that can (Device::enter_caller: the
// CPU outside a parallel region, else a GPU or a sim) runs on the calling
// thread instead.  `label` names the loop in warnings.  With `beside`,
// every device runs on its controller and the calling thread runs `beside`
// meanwhile (one-time work hidden behind the execution).  `iterations`:
// the loop's W, which tells the prologues when every iteration is complete
// (-1: never said).
ChunkLoopResult run_chunk_loop(Runtime &rt, Scheduler &scheduler,
                               std::vector<ChunkWorker> &workers,
                               const std::string &label,
                               const std::function<void()> &beside = {},
                               int64_t iterations = -1);
// The same into `out`, whose storage is kept (a site's executions reuse one).
void run_chunk_loop(Runtime &rt, Scheduler &scheduler, std::vector<ChunkWorker> &workers,
                    const std::string &label, const std::function<void()> &beside,
                    int64_t iterations, ChunkLoopResult &out);

} // namespace hce
