// The interface every inter-device scheduler implements.
//
// A scheduler is a passive object driven by the device controller threads
// (always under one lock, so implementations need no synchronisation):
//
//   begin(params)            once per execution of the region
//   next(d)      -> Run      device d runs [lb, ub) next
//                -> Wait     d must wait until another device reports
//                            (e.g. FDETS waits for the whole chunk to finish)
//                -> Done     d gets no more work in this execution
//   complete(d, range, t)    d finished `range` in t seconds (transfers
//                            included, as the papers measure T_curr.i)
//   drop(d)                  d failed or was excluded: give it no more work
//                            (its unfinished chunk is re-run by the runtime)
//
// The same object lives across executions of one source region, so a
// scheduler can learn from the previous execution (fastest chunk, last
// ratios) as the papers describe.  Iterations are normalised to [0, W).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hce {

class Seedable;
namespace profile {
class ProfileAware;
}

struct Range {
  int64_t lb = 0;
  int64_t ub = 0;
  int64_t size() const { return ub - lb; }
  bool empty() const { return ub <= lb; }
  friend bool operator==(const Range &, const Range &) = default;
};

struct SchedParams {
  int64_t iterations = 0;     // W
  int num_devices = 0;        // p
  int64_t initial_chunk = 0;  // W/n; 0 means W/128 (at least 1)
  double alpha = 0.1;         // FDETS/ADETS threshold
  std::vector<double> ratios; // initial partition ratios R_i, sum 1; empty = equal
  // Per-device: true for the host CPU device (HGuided and LogFit treat it
  // differently from accelerators).
  std::vector<bool> is_host;
  // Per-device lanes (0 = unknown): a chunk of fewer iterations costs as
  // much as one of this many.  The CPU's team size: its variant may
  // parallelise only the outer loop, so one iteration runs on one thread.
  std::vector<int64_t> lanes;
  // Per-device waves (0 = unknown): an accelerator's kernel runs its
  // iterations in waves of this many (every multiprocessor full), so a
  // chunk of 1.2 waves takes as long as one of 2 (Device::wave).
  // kWaveUnasked: not asked yet; wave_of(i) asks when a scheduler first
  // sizes a chunk for device i in an execution (Device::wave on a GPU is
  // the occupancy calculator, whose first call loads the kernel's module:
  // ~0.2 ms of warm lud's first execution on the H200, call JC, where auto
  // then ran the CPU alone).
  static constexpr int64_t kWaveUnasked = -1;
  std::vector<int64_t> waves;
  std::function<int64_t(int)> wave_of; // (during an execution; empty: 0)
  // Per-device speed when every device co-executes, relative to its speed
  // alone or beside the others otherwise (empty or 1: the same): under 1
  // for the CPU where the runtime lends part of its team to the
  // accelerators' copies in co-execution (region_exec.cpp
  // copy_threads_beside).  eft predicts its co-execution arm with it and
  // keeps its samples per team (the H200's blackscholes, call SB: co-
  // execution predicted 31.8 ms from the whole team's chunks, 43.8 taken
  // with 8 of 15 threads).
  std::vector<double> co_speed;
  // Per-device iterations per second an accelerator's staged copies allow
  // at most in a lending execution (0: unknown, or not lending): the
  // region's mapped bytes per iteration against the fastest staged copies
  // measured (region_exec.cpp set_staged_ceiling).  eft pauses a host far
  // under it while a cold accelerator measures itself alone.
  std::vector<double> rate_ceiling;
  // Whether the region runs in a data region: its arrays stay on the
  // accelerators between executions, so a host's rows are outputs an
  // accelerator uploads before it reads them in a later execution.
  bool data_region = false;
  // Whether the region maps arrays (a chunk copies rows to or from an
  // accelerator): not a loop that maps nothing, such as mcpi's reduction
  // over its iteration space, whose chunks have no copies to overlap.
  bool maps_rows = true;
  // In a data region's execution with a host and an accelerator: the bytes
  // of its arrays the accelerators' preparations would page-lock if the
  // host's team worked beside them (DataEnv::would_pin), asked when a
  // scheduler wants them (it walks the region's maps).  Empty where nothing
  // would be (no data region, no host, or the host lends copy threads, whose
  // copies stage).  A registration holds up every CUDA call of the process
  // (50-52 ms/GiB on the H100, bench/register_beside_copies.cu), where an
  // accelerator alone stages the arrays with every core (eft:
  // host_probe_deferred()).
  std::function<double()> register_bytes_of; // (during an execution)
  // Beside it (the same executions): the bytes of the rows the region reads
  // that the host lacks -- an accelerator holds them alone -- which a
  // host's first chunks would fetch (DataEnv::host_lacks).
  std::function<double()> host_fetch_bytes_of;
  // Pipelined execution (ADETS Alg. 4): next(d) may be called while d still
  // has one chunk in flight, to start its upload early.
  bool lookahead = false;
  // The time in seconds, for schedulers that plan by predicted finish times
  // (eft); unset means the steady clock.  The simulator (bench/sim) drives
  // the schedulers in virtual time through it.
  std::function<double()> clock;
};

struct Decision {
  enum Kind { Run, Wait, Done } kind = Done;
  Range range;
  static Decision run(int64_t lb, int64_t ub) { return {Run, {lb, ub}}; }
  static Decision wait() { return {Wait, {}}; }
  static Decision done() { return {Done, {}}; }
};

class Scheduler {
public:
  virtual ~Scheduler() = default;
  virtual std::string_view name() const = 0;
  virtual void begin(const SchedParams &params) = 0;
  virtual Decision next(int device) = 0;
  virtual void complete(int device, Range range, double seconds) = 0;
  // Whether complete()'s seconds leave out a chunk's first uploads of a
  // data region's elements (ChunkWorker::first_upload_share): what the
  // device's chunks cost once its data is there.  The papers' schedulers
  // see the whole chunk, as their algorithms measure it.
  virtual bool steady_chunk_costs() const { return false; }
  // During an execution (with steady_chunk_costs): `device` runs alone in
  // the execution that puts the data where that mode wants it, so every
  // copy of a data region's elements into its stage -- the rows another
  // device wrote, fetched home for a host -- is placement, left out of its
  // chunks' steady cost like a first upload.  (The H100's cold fdtd2d: the
  // GPU alone's first execution of hz took 1.4 ms uploading the CPU's rows
  // of ex, a model of 24x its 0.06 ms chose the CPU alone, which fetched
  // 96 MiB home in 3.8 ms.)
  virtual bool placing_data(int device) const { return false; }
  virtual void drop(int device) = 0;
  // The partition ratios the scheduler would use now (for stats and for the
  // incremental-transfer planner); empty if it has none.
  virtual std::vector<double> current_ratios() const { return {}; }
  // After begin(): true if `device` will get no chunk in this execution as
  // planned (the runtime then skips its per-execution preparation).  A
  // scheduler that cannot tell says false.
  virtual bool idle(int device) const { return false; }
  // After an execution: `device` asked for work and the scheduler gave all
  // of it to others (eft: devices that could finish its block sooner took
  // it before it asked).  A scheduling outcome like idle(), reported as
  // left_out in HCE_STATS; a device that never asked is not covered.
  virtual bool gave_nothing(int device) const { return false; }
  // During an execution, once next(device) said Done: the scheduler retired
  // `device` while the others still had work (eft: a host lending copy
  // threads whose rows are worth less than what its team costs the
  // accelerators' copies).  The runtime hands its cores to the others
  // (region_exec.cpp).  Called under the loop's lock.
  virtual bool retired(int device) const { return false; }
  // During an execution, once next(device) said Wait: the scheduler holds
  // `device` back until others have measured themselves without it (eft:
  // a lending host far slower than a cold accelerator's copies could be);
  // its next Run, if any, ends that.  The runtime hands its cores to the
  // others meanwhile, as for retired().  Called under the loop's lock.
  virtual bool paused(int device) const { return false; }
  // During an execution: whether a host still lends threads to the
  // accelerators' copies (SchedParams::co_speed < 1).  false once the
  // accelerators retired (eft): the runtime gives the host's team its
  // threads back before its next chunk (chunk_loop.cpp).  Called under the
  // loop's lock.
  virtual bool lending() const { return true; }
  // What the scheduler decided for this execution and why, for people
  // (HCE_STATS); "" when there is nothing to say.  Devices are named by
  // their index in the region's device list.
  virtual std::string explain() const { return ""; }
  // What explain() says now, formatted when called: HCE_TRACE keeps one per
  // execution and writes them at exit (formatting eft's every execution
  // cost ~1.3 us of lud's 10-20 us on the H100, call V10, so that traced
  // runs overstated the runtime's cost).  A scheduler whose explain()
  // formats much keeps what it needs instead.
  virtual std::function<std::string()> explain_later() const {
    return [why = explain()] { return why; };
  }
  // After begin(): the wall this execution is predicted to take as planned,
  // in seconds; 0 when the scheduler has no prediction.  The runtime hides
  // one-time work behind a long execution with it (region_exec.cpp).
  virtual double expected_wall() const { return 0; }
  // After the execution, with the data placed back (the runtime's
  // DataEnv::end_region): its whole wall time, from before the data were
  // placed for it.  What a choice between modes should compare: the chunk
  // loop alone misses what a mode costs around it (matadd co-executed on
  // the H100: 19 ms in the loop, 32 ms in all, the rest unpinning the GPU's
  // share).  The simulator gives the loop's wall and the runtime's fixed
  // cost per execution (bench/sim/program_sim.cpp).  `one_time_s`: the
  // part of it the devices spent on what is done once for data that stays
  // (Device::one_time_seconds()), which the next executions will not pay.
  virtual void ended(double wall_s, double one_time_s) {}
  // The scheduler's other faces, or nullptr (a virtual call: a dynamic_cast
  // in each of the runtime's hooks cost ~450 instructions per execution).
  virtual Seedable *seedable() { return nullptr; }
  const Seedable *seedable() const { return const_cast<Scheduler *>(this)->seedable(); }
  virtual profile::ProfileAware *profile_aware() { return nullptr; }
  const profile::ProfileAware *profile_aware() const {
    return const_cast<Scheduler *>(this)->profile_aware();
  }
};

// A scheduler that can start from cost models measured earlier (the
// persistent profile, the simulator): device `device` is modelled as
// overhead_s + n * per_iteration_s seconds for a chunk of n iterations.
class Seedable {
public:
  virtual ~Seedable() = default;
  virtual void seed(int device, double overhead_s, double per_iteration_s) = 0;
  // The measured wall time of one execution of this region, co-executed
  // (device = -1) or by `device` alone, from earlier runs: a scheduler that
  // chooses between the two starts from it instead of exploring.
  // `measurements`: how many executions that wall merges (the profile
  // sample's weight; 1: one execution, maybe a slow moment; 0: unknown).
  virtual void seed_mode(int device, double wall_s, double measurements) {}
  // After an execution: the mode it ran in and its wall time, when that
  // execution measured the mode (not a learning or data-moving one).
  virtual bool measured_mode(int &device, double &wall_s) const { return false; }
  // Whether that measurement is of a mode the scheduler does not run as a
  // rule (an exploration, a retry of the runner-up): the profile keeps it
  // whatever the execution's number, where it samples the others
  // (profile::recorded_execution), or the next run pays for it again.
  virtual bool measured_rarely() const { return false; }
  // The cost model o + n * c it holds for `device` now, learnt beside the
  // other devices of this execution: what the next run should start from
  // (a device's samples measured alone, or in another device set, are not).
  virtual bool learnt_model(int device, double &overhead_s, double &per_iteration_s) const {
    return false;
  }
};

// Creates the scheduler called `name` (static, quick, split, hguided, logfit,
// fdets, adets, auto); nullptr for an unknown name.
std::unique_ptr<Scheduler> make_scheduler(std::string_view name);
// The names make_scheduler accepts, in a stable order.
const std::vector<std::string> &scheduler_names();

} // namespace hce
