// One execution of a region's chunk loop in virtual time
// (runtime/src/chunk_loop.cpp as hce-sim models it): a device asks the
// scheduler for its next chunk when it is free; a sequential device runs
// upload, compute and download one after the other; a pipelined one
// (ADETS' default communication mode) has three streams and at most three
// chunks in flight and reports max(stage), as the runtime does.  A device
// told to Wait asks again when another device reports.  The scheduler reads
// the virtual clock through SchedParams::clock.
#pragma once

#include "residency.hpp"
#include "sched/scheduler.hpp"
#include "sim_profile.hpp"

#include <algorithm>
#include <deque>
#include <queue>
#include <string>
#include <utility>
#include <vector>

namespace hce::sim {

// A device as one execution sees it (costs already adjusted for its team).
struct SimDevice {
  DeviceCost cost;
  bool gpu = false;
  bool pipelined = false;
  // ChunkWorker::pipeline_when_compute_bound: pipelined from the chunk
  // after one (not its first) whose compute outlasted twice its copies.
  bool pipeline_when_compute_bound = false;
  // ChunkWorker::pipeline_after_first: ... from the chunk after one (not
  // its first) that ends while no host computes (host_quiet), whatever the
  // chunks cost (the GPU's uploads and downloads run at once).
  bool pipeline_after_first = false;
  double prepare = 0;     // seconds on its controller before its first chunk
  double first_extra = 0; // added to its first chunk's compute (a GPU kernel's first
                          // launch, the CPU's team creation)
  // Of `prepare`, the registration it starts with (seconds), in pieces of
  // reg_piece seconds: once every iteration is complete it stops at the
  // next piece (Device::prepare_host, 32 MiB pieces), and the rest is left
  // for a later execution (LoopSim::reg_undone).
  double reg = 0, reg_piece = 0;
  // A host lending threads to the GPU's copies: how much slower its team
  // computes for it (CopyLending::cpu), undone from the chunk after the
  // accelerators retired and the threads went back (Scheduler::lending).
  double lent_slowdown = 1;
};

// What one device did in one execution (ChunkWorker's counters).
struct DeviceRun {
  int64_t iterations = 0;
  int chunks = 0;
  double busy = 0, compute_busy = 0, bytes = 0;
  bool idle = false; // Scheduler::idle(): not woken
  // (iterations, seconds) of every chunk it completed (ChunkWorker::chunk_times).
  std::vector<std::pair<int64_t, double>> chunk_times;
};

// A stall (--stall): the device computes `factor` times slower during
// [from, from + len) of the program's virtual time -- a machine whose cores
// are taken for a while (the H100 machine of call GB ran lud's CPU alone in
// 0.0136-0.325 s).  A chunk is slowed only for the part of it inside the
// stall: a 2 ms stall does not make a 2 ms chunk that began in it take 50x
// as long (it did before session 76, which made cold kmeans look 7x slower
// than the GPU alone for a 2 ms stall of the CPU).
// With `beside` (`--stall DEV:FROM:LEN:FACTOR:beside`), only a chunk that
// begins while another device still works in its execution is slowed: the
// H100's lud (call V13) had its CPU team's chunks stall ~1 ms beside the
// GPU's work (more runnable threads than cores), 6 us with the GPU idle.
// With `woken` (`--stall DEV:FROM:LEN:SECONDS:woken`), the device's first
// chunk of an execution after one of the region's it did no work in (or of
// the region's first), begun in the window, takes SECONDS (`factor`) more,
// whatever its size: a team woken onto cores others hold.  With `each`,
// its first chunk of every execution begun in the window.  On the H100 of
// call V28 some processes' CPU team took 1.5-15 ms for its
// first execution after every stretch of the GPU alone, 10-90 us an
// execution in its long stretches, and its first 2-4 executions 3-13 ms.
struct Stall {
  std::string device; // "cpu", "gpu"
  double from = 0, len = 0, factor = 1;
  bool beside = false, woken = false, each = false;
  // How long `work` seconds of computing take when begun at time `t`.
  double duration(double t, double work) const;
};

struct ExecutionContext {
  const Region *region = nullptr;
  int execution = 0;
  Residency *residency = nullptr; // v2 profiles
  const Link *link = nullptr;
  double link_scale = 1;
  double dma_slowdown = 1;
  // Host contention (sim_profile.hpp); off unless the profile has it.
  Contention contention;
  // Copy threads lent beside the CPU's team (Machine::lending): the GPU's
  // pageable copies at this bandwidth each way, none registered, and
  // CopyLending's per-copy and first-chunk costs.  0: none.
  double lent_bw = 0;
  CopyLending lent;
  int lent_workers = 1; // the threads lent: the staging pool's workers
  // Machine::chunk_host / chunk_copy: a controller's per-chunk seconds
  // outside its timed stages, and per copying stage, when two or more
  // devices work.  0: none.
  double chunk_host = 0, chunk_copy = 0;
  // Machine::both_ways: a pipelined GPU's staged upload and download at once
  // move both_ways times the bytes of one alone.  0: the directions
  // independent.
  double both_ways = 0;
  // The link's copies are staged by the pool too (a one-shot region's
  // pageable arrays, program_sim.cpp one_shot_staged): both_ways applies to
  // them once the GPU pipelines, not only to copies lent beside the team.
  bool staged_link = false;
  // The program's virtual time at the execution's start, and the stalls of
  // its devices (Stall::device resolved to the execution's device index).
  double t0 = 0;
  std::vector<std::pair<int, Stall>> stalls;
  // Per device: it did no work in the region's previous execution, or this
  // is the region's first (Stall::woken).
  std::vector<bool> woken;
};

class LoopSim {
public:
  // --chunks: every chunk (device, range, start, stages) on stderr.
  static inline bool trace_chunks = false;

  LoopSim(Scheduler &s, std::vector<SimDevice> devs, const ExecutionContext &ctx)
      : sched_(s), devs_(std::move(devs)), ctx_(ctx), st_(devs_.size()) {}
  // After begin(), once the devices that work are known: the GPU's copies
  // staged by threads lent beside the CPU's team (ExecutionContext::lent_bw).
  void lend_copy_threads(double bw) { ctx_.lent_bw = bw; }
  void lend_copy_threads(const CopyLending &l, int workers) {
    ctx_.lent_bw = l.bw;
    ctx_.lent = l;
    ctx_.lent_workers = std::max(1, workers);
  }

  // Scheduler::begin on the virtual clock; returns idle() of each device
  // (as region_exec.cpp reads it: an idle device is not woken, drop()).
  std::vector<bool> begin(SchedParams params);
  // The devices, for the caller to adjust after begin() (the CPU's team,
  // preparations), as region_exec.cpp does from idle().
  SimDevice &device(int d) { return devs_[size_t(d)]; }
  // Runs the execution; returns its wall (start to last report).
  double run();
  // Seconds of device d's registration (SimDevice::reg) it did not do.
  double reg_undone(int d) const { return st_[size_t(d)].reg_undone; }

  std::vector<DeviceRun> devices;

private:
  enum Kind { Complete = 0, Ask = 1 }; // completions first at equal times
  struct Event {
    double t;
    Kind kind;
    int dev;
    Range range;
    double seconds;
    // A host chunk's events carry its device's generation; a chunk stretched
    // by a later copy (stretch_hosts) pushes new ones and the old are
    // skipped.  0: never skipped.
    long gen = 0;
    // What the scheduler is told, when not `seconds`: the chunk less its
    // first uploads (Stages::first_up), for a steady-cost scheduler.
    double steady = -1;
    bool operator>(const Event &o) const { return t != o.t ? t > o.t : kind > o.kind; }
  };
  struct DeviceState {
    bool waiting = false, done = false;
    double up_free = 0, comp_free = 0, down_free = 0;
    // Its downloads queued or under way, [start, end) in stream order
    // (ExecutionContext::both_ways): an upload overlaps every one of them.
    std::deque<std::pair<double, double>> downs;
    std::deque<double> completions; // of the chunks in flight
    // The sequential host chunk in flight (contention: stretch_hosts).
    long gen = 0;
    double comp0 = 0, comp1 = 0, end = -1, total = 0;
    Range range;
    bool asked = false;    // its preparation is over
    double reg_undone = 0; // registration cut short (SimDevice::reg)
  };
  struct Stages {
    double up = 0, comp = 0, down = 0, bytes = 0;
    double first_up = 0;  // of `up`: Moves::first_up's share of its bytes
    double placed_up = 0; // ... Moves::resident's (Scheduler::placing_data)
    bool staged = false; // its copies by the threads lent beside the CPU's team
  };

  void ask(int d);
  Stages stages(int d, Range r, double start);
  // Seconds of [a, b) covered by the GPU's copies so far (with contention:
  // of pageable memory, `paged`, or of other memory).
  double copy_overlap(double a, double b) const;
  double copy_overlap(double a, double b, bool paged) const;
  // Contention: is a host device's team computing (a chunk in flight or
  // about to ask for one), and a GPU copy of pageable memory over [a, b)
  // issued now stretches the host chunks in flight.
  // A host the scheduler retired from the execution (Scheduler::retired):
  // the GPU's copies are then staged as alone, the team's cores freed
  // (region_exec.cpp).
  bool host_retired() const;
  // Or paused (Scheduler::paused: eft's waits_for_accelerators_alone) with
  // no chunk in flight: the GPU's copies staged as alone, too.
  bool host_quiet() const;
  bool host_paused(int j) const;
  bool host_active(int except) const;
  // Another device than `d` prepares or has work in flight at time `t` of
  // this execution (Stall::beside): not one waiting, asleep, for a probe.
  bool other_works(int d, double t) const;
  bool host_woken(int except) const; // a host device works in this execution
  void stretch_hosts(double a, double b);
  // A sequential controller's hand-off after each chunk, untimed
  // (ExecutionContext::chunk_host; only while two or more devices work).
  double host_gap() const { return co_ ? ctx_.chunk_host : 0; }
  // Event::steady for a chunk whose steady cost is `s` (-1: none kept).
  double steady(double s) const {
    return sched_.steady_chunk_costs() ? std::max(0.0, s) : -1;
  }
  // The upload the scheduler's steady cost leaves out (chunk_loop.cpp).
  double one_time(int d, const Stages &st) const {
    return sched_.placing_data(d) ? st.placed_up : st.first_up;
  }

  Scheduler &sched_;
  std::vector<SimDevice> devs_;
  ExecutionContext ctx_;
  std::vector<DeviceState> st_;
  std::vector<bool> idle_;
  // Two or more devices work in this execution (ExecutionContext::chunk_host).
  bool co_ = false;
  std::vector<std::pair<double, double>> copies_; // GPU copy intervals
  std::vector<bool> copy_paged_;                  // with contention
  std::priority_queue<Event, std::vector<Event>, std::greater<>> q_;
  double now_ = 0;
  long steps_ = 0;
  int64_t iterations_ = 0, completed_ = 0;
  // Every iteration is complete: registrations stop at their next piece.
  void cut_registrations();
};

} // namespace hce::sim
