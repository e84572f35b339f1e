// eft: earliest-finish-time chunking, the default behind `auto`.
//
// Not one of the papers' algorithms: it is what the H100 traces of the
// papers' schedulers asked for (docs/schedulers.md, "eft"; issue 12):
//
//  * No rounds.  A device never waits for another device's chunk (FDETS'
//    synchronous rounds made a GPU that needed 22 ms wait on 19 ms CPU
//    chunks).
//  * A cost model per device, t(n) = o + n * c (per-chunk overhead o,
//    seconds per iteration c, transfers included), fitted by least squares
//    to the chunks it completed, kept across the executions of a region and
//    seedable from a persistent profile (seed()).  A chunk's first uploads
//    of a data region's elements are not in it (steady_chunk_costs(),
//    ChunkWorker::first_upload_share): they stay on the device, and its
//    later chunks of them do not pay again.  With them, the H200's cold
//    jacobi2d and heat3d split their second executions by GPU models of
//    uploads at 20-30 GB/s, ~1.5 us a row as the CPU's 1.9, where the GPU
//    then computed a row in 0.05 us; the CPU's rows went back and forth
//    (call JA; 0.75-0.82x and 0.75-0.79x as long without, calls JB, JC).
//  * Earliest finish time.  With the models, the iterations still unassigned
//    are split so that every device would finish at the same time T:
//    sum_j max(0, T - a_j - o_j) / c_j = R, where a_j is the time until
//    device j is free.  A device's share S_j is what it can do before T.  A
//    device whose share is under one iteration gets nothing: it would finish
//    after the others could have finished everything (gemm's CPU next to an
//    H100).  It waits, in case the others turn out slower than predicted.
//  * Blocks and stealing.  Each execution starts from one contiguous block
//    per device (the EFT split of W once every device has a model, so that
//    an iterative region in a data region keeps its partition and its data;
//    the initial ratios before that).  A device takes chunks from the head of
//    its own block (an accelerator of a region that maps nothing, from the
//    tail: from_tail()) and, once that is empty, steals from the tail of the
//    block that would take its owner longest to finish.
//  * Chunk sizes follow the share: the whole share when the model predicted
//    the device's last chunk within 15% (or that chunk, of half the share or
//    more, took no longer: proven_at_scale()) and no faster device's model is
//    from this execution only (others_unsettled()), half of it otherwise;
//    while it is
//    learning, never more than 4x its largest chunk or, by the model, 4x
//    its longest chunk so far.  A
//    device with no model yet gets a small probe (W/1024, at least one
//    iteration, at least its lanes), so that the probe of a device 100x
//    slower than the others costs little; while any device is still to be
//    probed, the others keep growing their chunks rather than taking their
//    whole share, none predicted to take longer than the execution so far
//    (while_others_probe()) -- not beside a host probed again that its
//    model from later executions gives almost nothing (others_unprobed()).
//    A host whose chunks were mostly its fork grows by size, not by the
//    time its model predicts (rate_unmeasured()).
//  * Lanes (SchedParams::lanes, Device::lanes): a chunk of fewer iterations
//    costs as much -- the CPU's team, a 1-D CUDA kernel's block on every
//    multiprocessor.  A device whose lanes end before the others could
//    finish without it takes its lanes (split()); an accelerator's lanes
//    that its chunks disprove are dropped (lanes_disproved()).
//  * Models from fewer than three executions are provisional
//    (provisional()): a device left out on such a model is probed again at
//    the 2nd, 8th, 32nd ... execution where that can pay for itself
//    (reprobe_pays()), a seeded one goes back to its seed; one
//    that no measured wall backs (unconfirmed()) at the 16th, 32nd ..., and a
//    chunk 4x faster than its model replaces its samples; an arm's
//    excess is the median of its last five measurements and a fit drops chunks far above
//    its line, so one slow execution does not rule a device out for good (the H100's
//    lud).
//  * A device's chunks that ran with no other device's chunk in flight are
//    kept apart too (Dev::alone): a host whose chunks beside the others all
//    had its lanes' size is predicted alone from those, after one probe run
//    by itself (plan_alone_probe()); a stall beside the GPU otherwise reads
//    as a per-iteration cost and rules the host's arm out unmeasured.  An
//    earlier run's wall of that arm (the profile cache's) does not spare the
//    probe, and the probe replaces it (end_alone_probe()).
//  * A measured arm whose fastest wall would beat the best is retried with
//    a backoff (a stale winner, unmeasured_within_budget()); a host whose
//    every wall came from a stall, by the loop at its fastest chunks' rate
//    (optimistic_wall()).
//  * An arm never measured and estimated far from the best is explored
//    within a budget of 2% of the site's time (unmeasured_within_budget()):
//    its estimate may come from a slow start of the machine.
//  * Every device gets work or is reported left out (issue 15): idle()
//    before the execution (planned to get nothing), gave_nothing() after it
//    (it asked, but devices that could finish its block sooner had taken
//    it: a controller that starts late behind a 30 ms preparation).  Every
//    block starts non-empty (the initial ratios give each device one
//    iteration when W >= p), and an owner takes at least one iteration of
//    its block even when its EFT share has dropped below one.  Thieves do
//    not wait for a late owner: on the H100 profile that cost matadd a
//    third of its time (bench/sim floors).  Except for its probe, while it
//    has no model or probes it again, once its last ask found its block
//    taken (Dev::starved).
#include "common.hpp"
#include "eft_arm.hpp"
#include "eft_model.hpp"

#include "clock.hpp"
#include "settings.hpp" // kRegisterSecondsPerByte

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>

namespace hce::sched {
namespace {

using namespace eft; // Model, Samples, fit ...

constexpr double kConfident = 0.15;   // relative prediction error
constexpr int64_t kGrowth = 4;        // chunk growth while learning
// host_probe_deferred(): a registration worth deferring a host's probe for
// (0.4-0.6 ms; what registering costs a byte: settings.hpp
// kRegisterSecondsPerByte, shared with the copy threads' lending rule).
constexpr double kDeferRegisterBytes = 8.0 * (1 << 20);
// host_probe_deferred(): what a host's first probe at a data region's site
// costs the execution beside an accelerator alone that would end sooner:
// its first chunk there carries one-time costs and moves the rows it
// touches off the accelerator and back.  The H100's cold fdtd2d (call V23,
// fd-cold2): the CPU's first chunk at fdtd2d.hz, one row, 0.314 ms computing
// and 0.045 uploading, beside 0.05 ms executions of the GPU alone; the
// H200's bfs profile (11-29, 12-01): 1024 vertices in 0.38 ms beside 0.05.
constexpr double kHostFirstProbe = 0.3e-3;
// What exploring may cost of a site's time so far (issue 12: within 0.98x
// of the best): unmeasured_within_budget(), host_probe_deferred().
constexpr double kExplore = 0.02;
constexpr int kSettledExecutions = 3; // a model from fewer is provisional
constexpr double kFasterThanModel =
    4; // complete(): a chunk this much faster resets the fit
// unconfirmed(): the first probe again of a model no measured wall backs.
// Not before the 16th execution: most regions of the suite run 10-20 times,
// and a probe in a learning execution cost cg's cold run 3% (hce-sim).
constexpr int kFirstUnconfirmedReprobe = 16;
// ... of a host's whose probe is predicted within the chosen mode's
// execution (it runs beside it and costs only its overrun): from the 4th.
// A cold lud whose CPU probes all ran inside a short stall of the machine
// ran the GPU alone at 13x the CPU alone's cost until the 16th (hce-sim
// --stall cpu:0:0.002:20: 0.675 of the CPU alone, 0.911 from the 4th; the
// H100's cold runs of call V21 that ran the GPU alone 12 times: 14-15 ms
// against 6-7).  The 29 calibrated profiles' runs are unchanged.
constexpr int kFirstUnconfirmedHostReprobe = 4;
constexpr double kRetryWithin = 1.3; // choose_mode(): runner-ups measured again
// dominates(): an accelerator this many times faster than the other devices
// together, by their models, takes its share whole.
constexpr double kDominates = 16;
// retires_beside_copies(): a lending host's rate, relative to the others'.
constexpr double kLendingWorthRate = 0.5;
// waits_for_accelerators_alone(): an accelerator's chunks after its first
// (which carries one-time costs) that a far slower host waits for.
constexpr int kMeasuredAlone = 2;
// rate_at_most(): what a host's chunks in its first execution at a site may
// have spent on one-time costs (a cold team's fork and first touches: the
// H100's cold lud, one row in 1.9 ms against 10-40 us steady), and the
// chunks' time in an execution from which on, less that, they bound the
// host's rate (a loose bound just past it, a sound one: what the chunks ran
// over what of their time was not one-time costs).
constexpr double kHostOneTime = 2e-3;
// accelerator_rate_at_most(): the chunks' time (its first at the site left
// out) from which on an accelerator's fastest chunk bounds its rate.
constexpr double kAcceleratorBoundingProbe = 2 * kHostOneTime;
// rate_at_most(): what one chunk may have stalled, once, beyond its work --
// the longest such stall seen, the freshly booted H100's first fork of a
// team (5 ms; forks are outside the chunks since ensure_team).  One chunk
// alone bounds the host's rate only beyond it; from a second chunk on, a
// stall shows as one chunk far slower than the other.
constexpr double kHostStall = 5e-3;
// alone_probe_size(): the per-iteration work a host's alone probe has by
// its model, so that its time is not just the team's fork.
constexpr double kAloneProbeWork = 20e-6;

// lanes_untested: the first execution that tests an accelerator's lanes.
constexpr int kFirstLanesTest = 8;
// host_learning_range(): a host's share of W kept for its first chunks.
constexpr int64_t kHostLearningShare = 64;
// Per-chunk overhead assumed until two chunk sizes tell it apart.
class EftScheduler final : public Scheduler, public Seedable {
public:
  Seedable *seedable() override { return this; }
  std::string_view name() const override { return "eft"; }

  void begin(const SchedParams &params) override {
    clock_ = params.clock; // (not the whole SchedParams: a third of a held begin())
    wave_of_ = params.wave_of;
    p_ = std::max(0, params.num_devices);
    W_ = std::max<int64_t>(0, params.iterations);
    data_region_ = params.data_region;
    maps_rows_ = params.maps_rows;
    register_bytes_of_ = params.register_bytes_of;
    host_fetch_bytes_of_ = params.host_fetch_bytes_of;
    adopt_device_set();
    use_co_speed(false); // the models as the samples are: see Dev::speed
    for (int i = 0; i < p_; ++i)
      read_device_params(i, params);
    choose_mode();
    for (Dev &d : dev_)
      reset_execution_counts(d); // (choose_mode() read the last execution's)
    if (p_ == 1)
      choice_.solo = solo_ = 0; // nothing to balance: no probes, no growth
    // A CPU with threads lent computes at its co-execution speed
    // throughout: lent when it and an accelerator both work, the runtime's
    // test (region_exec.cpp share_copy_threads), an alone probe included.
    lends_ = lends();
    lent_back_ = false;
    use_co_speed(lends_);
    place_blocks(params);
    asked_.assign(p_, false);
    exec_begin_ = last_complete_ = now();
    exec_wall_ = 0;
    exec_one_time_ = 0;
  }

  // A different device set: the models belong to other devices.  Seeds
  // survive (they are per device name).  A different trip count keeps the
  // models (costs are per iteration): lud's trailing update shrinks every
  // execution and must not probe every device each time.
  void adopt_device_set() {
    if (static_cast<int>(dev_.size()) == p_)
      return;
    std::vector<Model> seeds(p_);
    for (int i = 0; i < p_ && i < int(dev_.size()); ++i)
      seeds[i] = dev_[i].seed;
    dev_.assign(p_, Dev{});
    for (int i = 0; i < p_; ++i)
      dev_[i].seed = seeds[i];
  }

  // Device i's settings for this execution from `params`, and its state
  // from the last one (whether it starved, its probe again's start).
  void read_device_params(int i, const SchedParams &params) {
    Dev &d = dev_[i];
    d.co_speed = i < int(params.co_speed.size()) && params.co_speed[i] > 0
                     ? std::min(1.0, params.co_speed[i])
                     : 1;
    d.host = i < int(params.is_host.size()) && params.is_host[i];
    d.ceiling =
        i < int(params.rate_ceiling.size()) ? std::max(0.0, params.rate_ceiling[i]) : 0;
    d.lanes = i < int(params.lanes.size()) && !d.lanes_disproved
                  ? std::max<int64_t>(0, params.lanes[i])
                  : 0;
    d.wave = i < int(params.waves.size()) ? params.waves[i] : 0; // (whole_waves)
    d.active = true;
    d.retired = false;
    d.paused = false;
    d.inflight.clear();
    d.busy_until = 0;
    const bool asked = int(asked_.size()) == p_ && asked_[size_t(i)];
    // (An accelerator's is kept while it is left out and does not ask.)
    if (asked || d.host)
      d.starved = asked && d.assigned == 0;
    // A probe again that came too late to get anything bounds how soon the
    // device can start (Dev::starts_after); one that got work clears it.
    // An accelerator's is made again at the first execution it can come in
    // time for, its probe kept for it (Dev::starved, kept_for()), not 4x as
    // many executions later: its late start may be a learning phase's (its
    // preparation moving what the other regions' co-execution left on the
    // host).  The H200's cold cg (call XA, p-1) probed its dot's GPU at the
    // 2nd execution (its first launch: 34 K rows in 0.19 ms, 31 lanes'
    // waves 4.8 ms by its lanes' model), again at the 3rd, where it prepared
    // 0.28 ms while the CPU took everything, and then not before the 12th:
    // the CPU alone ran the rest of the run at 0.68-0.73 ms (the vectors
    // fetched home each time), the GPU alone's 0.03.  Once per probe again
    // that gets work (Dev::reprobe_resumed).  Not a host's: its late start
    // is its controller's, in every execution.
    if (d.reprobe && asked) {
      d.starts_after = d.assigned == 0 ? d.first_ask : 0;
      if (d.assigned > 0) {
        d.reprobe_resumed = false;
      } else if (!d.host && !d.reprobe_resumed) {
        d.next_reprobe = exec_ + 1;
        d.reprobe_resumed = true;
      }
    }
    d.assigned = 0;
    if (!d.model.known() && d.seed.known()) {
      d.model = d.seed;
      d.model.lanes = double(d.lanes);
    }
  }

  // Each device's block of the execution, by the mode choose_mode() chose.
  void place_blocks(const SchedParams &params) {
    if (alone_probe_ >= 0) {
      plan_alone_probe();
    } else if (solo_ >= 0) {
      // The fastest device alone: the others are left out (idle()).
      for (int i = 0; i < p_; ++i) {
        dev_[i].block = i == solo_ ? Range{0, W_} : Range{W_, W_};
        dev_[i].active = i == solo_;
      }
    } else {
      plan_blocks(params);
    }
  }

  // A data region's first uploads are one-time work: the models are of
  // the chunks' steady cost (see the file's comment).
  bool steady_chunk_costs() const override { return true; }
  // A device alone in the execution that settles its mode, after the run's
  // first: the uploads of rows the others wrote (a host's fetches of rows
  // the accelerators hold) are the switch's, not the arm's steady cost --
  // an arm is measured by its next execution, and its model must not be
  // moved by this one's copies meanwhile.
  bool placing_data(int device) const override {
    return settling_ && device == solo_ && exec_ > 1;
  }

  void ended(double wall_s, double one_time_s) override {
    exec_wall_ = wall_s;
    exec_one_time_ = std::max(0.0, one_time_s);
  }

  Decision next(int device) override {
    if (device < 0 || device >= p_ || !dev_[device].active)
      return Decision::done();
    if (!asked_[device])
      dev_[device].first_ask = now() - exec_begin_;
    asked_[device] = true;
    const int64_t R = unassigned();
    if (R <= 0)
      return Decision::done();
    Dev &d = dev_[device];
    const double t = now();
    if (d.host && lends_)
      retire_filling_accelerators();
    int64_t size;
    bool leave_learning = false; // take(): hosts keep the rest of host_learning_range()
    if (alone_probe_ >= 0) {
      // Everybody waits for the alone probe, which runs by itself.
      if (device != alone_probe_ || !d.inflight.empty())
        return Decision::wait();
      size = std::min(d.block.size(), alone_probe_chunk_);
    } else if (solo_ == device) {
      // Alone, nobody can take over a tail: everything in one chunk, one
      // launch.  (A share rounded down left lud's CPU a second chunk of one
      // row in a fifth of its executions, each a fork and join more.)
      size = R;
    } else if (needs_probe(d)) {
      if (!d.inflight.empty())
        return Decision::wait(); // one probe at a time
      // A probe of fewer iterations than the device has lanes costs as much.
      size = probe_size(d);
      // An accelerator whose lanes cover the loop, asking before any host
      // has started: all but the hosts' learning ranges (take()) in one
      // kernel, which costs what its block would (lanes_probe_takes_all()).
      if (lanes_probe_takes_all(device)) {
        size = R;
        leave_learning = true;
        d.lanes_untested = true;
      } else if (first_upload_takes_all(device)) {
        size = R;
        leave_learning = true;
      }
    } else if (const int64_t fill = fill_before_retiring(device, t); fill > 0) {
      size = fill;
    } else if (retires_beside_copies(device)) {
      // A host's share is not worth the accelerators' staged copies it
      // slows; an accelerator's not worth the threads the host lends them.
      retire(device);
      return Decision::done();
    } else if (waits_for_accelerators_alone(device)) {
      d.paused = true; // (Scheduler::paused: its team sleeps meanwhile)
      return Decision::wait();
    } else {
      const double share = eft_share(device, R, t);
      if (share < 1) {
        // Its first chunk of a planned block: the plan said it works.
        const bool planned = d.assigned == 0 && !d.block.empty();
        if (!planned && !earliest_for_one(device, t))
          return Decision::wait();
        // Fewer iterations than its lanes cost as much: a host with a team
        // of 15 took nbody's bodies one at a time, 136 us each, where 15
        // cost the same (hce-sim, a lanes probe that left the CPU a
        // remainder it was earliest for one by one: 46 ms).
        size = std::max<int64_t>(1, d.lanes);
      } else {
        size = share_chunk(device, share, t);
      }
    }
    if (d.lanes_test && d.exec_chunks == 0 && d.inflight.empty())
      size = std::min(size, std::max<int64_t>(1, W_ / 3)); // (lanes_untested)
    if (d.wave == SchedParams::kWaveUnasked)
      d.wave = wave_of_ ? std::max<int64_t>(0, wave_of_(device)) : 0;
    size = whole_waves(d, std::clamp<int64_t>(size, 1, R), R);
    Range r = take(device, size, leave_learning);
    if (r.empty())
      return Decision::wait(); // all that is left is a late device's probe
    launch(device, r, t);
    return Decision::run(r.lb, r.ub);
  }

  // A chunk of a device's EFT share (`share` iterations, at least one) at
  // time `t`: whole when every model it was split by holds, else halved and
  // bounded while the models are young.
  int64_t share_chunk(int device, double share, double t) {
    Dev &d = dev_[device];
    // While another device is still to be probed, the share leaves it
    // out (no model) and may be all that is left: a device keeps growing
    // by kGrowth instead of committing to it (the H100's cold nbody: the
    // CPU took its whole block, 80 ms, while the GPU, 16x faster, was
    // still creating its buffers).
    const bool probing = others_unprobed(device);
    // A share is as good as every model it was split by: while a faster
    // device's model is from this execution only, the share is halved
    // (the H200's cold blackscholes: the CPU took its whole share, 5.8 M
    // options at 88 K/ms, by a GPU model its first chunks had made look
    // slow, and finished 27 ms after the GPU).
    const bool confident = (d.confident || proven_at_scale(d, share)) && !probing &&
                           !others_unsettled(device);
    const bool cheap = share * d.model.c <= 4 * d.model.o; // overhead-bound
    // Nobody left to share with (the others retired): one chunk, one
    // launch, as alone.
    const bool dominant = dominates(d, device, probing);
    const bool whole = confident || cheap || last_active(device) || dominant;
    // Down: a chunk never ends after T (one iteration of a slow device
    // is long; the fast ones take the fraction at little cost).
    // (1e-6: a share that is an integer but for rounding is not cut to
    // one iteration less, which would cost another chunk.)
    int64_t size = std::max<int64_t>(1, int64_t(whole ? share + 1e-6 : share / 2));
    if (!confident && d.largest > 0)
      size = std::min(size, growth_limit(d));
    // A dominant accelerator whose growth bound leaves a fifth of its share
    // or less: the rest in the same chunk, not in a kernel of its own.
    if (dominant && size < share && 5 * size >= 4 * int64_t(share))
      size = int64_t(share + 1e-6);
    // Probed again, it grows from what it ran in this execution, not
    // from its earlier chunks: the others may have taken their whole
    // shares by its old model (others_unprobed()), and one chunk of its
    // block by a model of one probe could hold the execution (hce-sim,
    // the H100 profile of 11-24-j: cold bfs's CPU took its half, 5.8 ms
    // against 3.1).
    if (d.reprobe && d.exec_chunks > 0)
      size = std::min(size, kGrowth * std::max<int64_t>(1, d.exec_done));
    // So, on the host, within twice the execution so far while another
    // device's model is unconfirmed in a cold execution (others_cold),
    // whichever of the two it makes look faster: on the H200 a GPU
    // chunk of 34 K options took 2.5 ms (1.7 ms of it a first download
    // of 270 KB, later ones 2.4 GB/s), the CPU, faster per iteration by
    // that model, took its whole block at 9.9 ms, 7.8 M options, and
    // finished 49 ms after the GPU (call VA).  Within once the
    // execution so far, hce-sim's cold jacobi2d (11-24 profile) fell
    // 0.973 -> 0.922 (the CPU's chunks small through the GPU's first
    // uploads).  A host chunk costs a fork; an accelerator's would cost
    // copies and a launch (call UB).
    // A host lending copy threads and slower than the others together,
    // within half the execution so far: it may retire
    // (retires_beside_copies()) once the accelerators' models hold,
    // and a long chunk delays that (the H200's cold blackscholes, call
    // DA: a CPU chunk of 21.7 ms taken at 11.5 ms, by a GPU model its
    // first small chunks made look as slow as the CPU; the CPU retired
    // at 33 ms, after which the GPU staged alone at 600 K rows/ms
    // against 300-350 K beside it).  Not a host twice as fast as the
    // others (matadd's CPU, 2.4x the GPU): the bound only gave the
    // slower GPU more rows (call DC: cold matadd 1.08x as long).  A host
    // about as fast as them is bounded too: the GPU's first chunks carry
    // one-time costs (call FC: its first two, 34 K options in 2.6 ms and
    // 137 K in 1.5, made it no faster than the CPU's 85 K/ms; the CPU's
    // next chunk, within twice the execution so far, took 20.1 ms, and it
    // retired at 30.3 ms where the GPU's third chunk, 180 K/ms at 15.3,
    // would have retired it).
    if (probing && d.largest > 0)
      size = std::min(size, while_others_probe(d, t));
    else if (d.host && others_cold(device) && d.largest > 0)
      size = std::min(
          size,
          while_others_probe(d, t, lends_ && under_twice_the_others(device) ? 0.5 : 2));
    // A seed not yet confirmed by a steady chunk (an earlier run's
    // model, maybe of other data or another machine): the device's
    // first chunk of an execution is an eighth of its share, so a wrong
    // seed costs an eighth of what it would (a stale cache gave a sim
    // 1000x slower than it said half of 65536 iterations: 16 s), and
    // the measured chunk rules from the next execution (a seed is taken
    // back after a cold first execution, see provisional()).
    if (!confident && !cheap && d.seed.known() && !d.steady && d.assigned == 0)
      size = std::min(size, std::max<int64_t>(1, int64_t(share / 8)));
    // Fewer iterations than lanes cost as much as lanes; the split
    // checked that those fit before the others finish.
    size = std::max(size, d.lanes);
    return size;
  }

  // Device `device` runs `r` from time `t`: in flight (beside another
  // device's chunk or not), its model's busy time and its assigned count.
  void launch(int device, Range r, double t) {
    Dev &d = dev_[device];
    d.paused = false;
    // Whether the chunk runs beside another device's, in either order.
    bool beside = false;
    for (int j = 0; j < p_; ++j)
      if (j != device)
        for (Flight &f : dev_[j].inflight)
          beside = f.beside = true;
    d.inflight.push_back(
        {r, t, d.model.known() ? d.model.time(double(r.size())) : 0, beside, d.speed});
    d.busy_until = std::max(d.busy_until, t) +
                   (d.model.known() ? d.model.time(double(r.size())) : 0);
    d.assigned += r.size();
  }

  void complete(int device, Range range, double seconds) override {
    if (device < 0 || device >= p_)
      return;
    Dev &d = dev_[device];
    auto it = std::find_if(d.inflight.begin(), d.inflight.end(),
                           [&](const Flight &f) { return f.range == range; });
    if (it == d.inflight.end())
      return;
    const Flight flight = *it; // (its speed: an accelerator may retire meanwhile)
    d.inflight.erase(it);
    const double t = last_complete_ = now();
    // A first chunk at the site may carry one-time costs (rate_at_most()):
    // a host's less kHostOneTime; an accelerator's is left out
    // (accelerator_rate_at_most()).
    const bool site_first = d.first_exec < 0 || d.first_exec == exec_;
    const bool first_chunk = site_first && d.exec_chunks == 0;
    // The alone probe's first chunk of two (plan_alone_probe()): its team's
    // waking is not what the host's rows cost.
    const bool waking = alone_probe_ == device && !d.block.empty();
    if (alone_probe_ == device && d.block.empty()) {
      // A host's probe in its first execution at the site carries its team's
      // creation (the H200's lud: one row in ~1 ms against ~10 us after)
      // and stays out of what it measured alone (Dev::alone): it is probed
      // again at the next
      // execution, where the probe says what the host costs.  Seen from a
      // profile cache filled while the CPU was slow (call TB): the one slow
      // probe confirmed the seed and the GPU alone ran on to the 150th
      // execution in half the runs.
      if (site_first && d.host) {
        d.next_alone_probe = exec_ + 1;
        d.probe_again = true;
      }
      end_alone_probe();
    }
    if (seconds <= 0 || range.empty())
      return;
    count_chunk(d, range, seconds, flight, first_chunk);
    if (!waking)
      record_sample(device, range, seconds, flight);
    // What is still in flight, re-predicted from its completion (the time
    // taken above, one clock read less per chunk).
    d.busy_until = t;
    for (const Flight &f : d.inflight)
      d.busy_until += d.model.time(double(f.range.size()));
  }

  void drop(int device) override {
    if (device < 0 || device >= p_)
      return;
    dev_[device].active = false;
    dev_[device].inflight.clear();
    if (alone_probe_ == device)
      end_alone_probe();
  }

  bool retired(int device) const override {
    return device >= 0 && device < p_ && dev_[device].retired;
  }

  bool lending() const override { return !lent_back_; }

  bool paused(int device) const override {
    return device >= 0 && device < p_ && dev_[device].paused;
  }

  bool gave_nothing(int device) const override {
    return device >= 0 && device < p_ && device < int(asked_.size()) && asked_[device] &&
           dev_[device].assigned == 0;
  }
  // A device alone on a settled choice: its arm's estimate (measured walls,
  // else the model's).  Learning executions (probes) have none.
  double expected_wall() const override {
    const Choice &c = choice_;
    if (!c.all_known || c.reprobe || c.alone_probe >= 0 || c.solo < 0)
      return 0;
    return c.est[size_t(c.solo + 1)];
  }

  // Formatted when asked, from what choose_mode() kept: a string per
  // execution cost a resident region about a microsecond.  explain_later()
  // keeps a copy of it for HCE_TRACE.
  std::string explain() const override { return format_choice(choice_); }
  std::function<std::string()> explain_later() const override {
    return [c = choice_] { return format_choice(c); };
  }

private:
  struct Choice;
  static std::string format_choice(const Choice &c) {
    char why[200];
    if (c.reprobe)
      std::snprintf(why, sizeof why,
                    "learning: probing again a device left out after one execution");
    else if (c.alone_probe >= 0)
      std::snprintf(why, sizeof why,
                    "learning: device %d probed alone (its chunks beside the others "
                    "all had its lanes' size), then %s",
                    c.alone_probe, c.solo >= 0 ? "one device alone" : "co-execution");
    else if (c.deferred.bytes > 0)
      std::snprintf(
          why, sizeof why,
          "device %d alone, the host not probed yet: co-executing would "
          "register %.3g MiB beside its team, over %g%% of the site's time so far",
          c.solo, c.deferred.bytes / double(1 << 20), 100 * kExplore);
    else if (c.deferred.probe_s > 0)
      std::snprintf(why, sizeof why,
                    "device %d alone, the host not probed yet: its first probe "
                    "(~%.3g ms) would outlast this device's execution, and cost over "
                    "%g%% of the site's time so far",
                    c.solo, 1e3 * c.deferred.probe_s, 100 * kExplore);
    else if (c.solo >= 0 && !c.all_known)
      std::snprintf(why, sizeof why, "device %d alone: the only device", c.solo);
    else if (!c.all_known)
      std::snprintf(why, sizeof why, "learning: probing the devices' costs");
    else if (c.solo >= 0)
      std::snprintf(
          why, sizeof why,
          "device %d alone%s: %.3g ms per execution %s, co-execution %.3g ms %s", c.solo,
          c.held ? " (held)" : "", 1e3 * c.est[size_t(c.solo + 1)],
          c.measured[size_t(c.solo + 1)] ? "measured" : "predicted", 1e3 * c.est[0],
          c.measured[0] ? "measured" : "predicted");
    else
      std::snprintf(why, sizeof why,
                    "co-execution: %.3g ms per execution %s, device %d alone %.3g ms %s",
                    1e3 * c.est[0], c.measured[0] ? "measured" : "predicted", c.runner_up,
                    c.runner_up >= 0 ? 1e3 * c.est[size_t(c.runner_up + 1)] : 0.0,
                    c.runner_up >= 0 && c.measured[size_t(c.runner_up + 1)]
                        ? "measured"
                        : "predicted");
    std::string out = why;
    if (c.all_known) {
      // Every arm's estimate, m(easured n times) or p(redicted): what the
      // choice compared (HCE_TRACE's region track, hce-sim --explain).
      out += "; arms:";
      for (size_t a = 0; a < c.est.size(); ++a) {
        char one[64];
        std::snprintf(one, sizeof one, " %s %.3g%s%d",
                      a == 0 ? "co" : std::to_string(a - 1).c_str(), 1e3 * c.est[a],
                      c.measured[a] ? "m" : "p", c.measured[a]);
        out += one;
      }
    }
    return out;
  }

public:
  std::vector<double> current_ratios() const override {
    std::vector<double> r(p_, 0);
    int64_t total = 0;
    for (int i = 0; i < p_; ++i)
      total += dev_[i].assigned;
    for (int i = 0; i < p_ && total > 0; ++i)
      r[i] = double(dev_[i].assigned) / double(total);
    return r;
  }

  // Planned to get nothing: a modelled device with an empty block whose
  // share of all W, with every device free, is under one iteration.
  bool idle(int device) const override {
    if (device == alone_probe_)
      return false;
    if (solo_ >= 0)
      return device != solo_;
    if (device < 0 || device >= p_ || !dev_[device].model.known() ||
        !dev_[device].block.empty())
      return false;
    return split(double(W_), zeros())[device] < 1;
  }

  void seed(int device, double overhead_s, double per_iteration_s) override {
    if (device < 0 || per_iteration_s <= 0)
      return;
    if (device >= int(dev_.size()))
      dev_.resize(device + 1);
    dev_[device].seed = {std::max(0.0, overhead_s), per_iteration_s, 0};
  }

  void seed_mode(int device, double wall_s, double measurements) override {
    if (!(wall_s > 0) || device < -1)
      return;
    if (device + 1 >= int(seed_walls_.size())) {
      seed_walls_.resize(device + 2, 0);
      seed_counts_.resize(device + 2, 0);
    }
    seed_walls_[device + 1] = wall_s;
    seed_counts_[device + 1] = measurements;
  }
  bool measured_mode(int &device, double &wall_s) const override {
    if (!mode_measured_ && !first_measured_ && !explore_aborted())
      return false;
    // The arm's median excess with this execution's, at this execution's
    // prediction: what the profile cache keeps is as robust to one slow
    // execution as the choice is.
    device = solo_;
    // A run's first execution keeps its one-time work: the cache keeps it
    // only for a region that runs once, which pays that work in every run
    // (blackscholes' GPU alone makes the staging pool each time).
    const double wall = first_measured_ ? exec_wall() : measured_wall(solo_);
    const Arm &m = arms_[size_t(solo_ + 1)];
    wall_s = measured_pred_ > 0
                 ? (m.seeded ? wall : m.excess(wall / measured_pred_) * measured_pred_)
                 : wall;
    return wall_s > 0;
  }

  // An exploration's or a retry's measurement: the arm it measured is not
  // the one the site runs (retry_from_).  Without it in the cache, every run
  // explored that arm again: the H100's lud (call FA, 24 runs) measured the
  // GPU alone in each, once, at an execution the profile does not sample
  // (the 384th), and paid ~1.5 ms of a 12 ms run for it every time.
  bool measured_rarely() const override {
    return (mode_measured_ || explore_aborted()) && retry_from_ != kNoRetry &&
           solo_ != retry_from_;
  }
  // An explored arm's settling execution that took kExploreAbort times the
  // best arm's estimate: choose_mode() takes it as the arm's measurement.
  // For a device alone, its own chunks' time is what is compared, not the
  // wall: the settling execution also brings the data to that device (the
  // H100's lud, call FB: the CPU alone explored after the GPU alone took
  // 1.2-2 ms of which its chunk took 10-20 us -- the rows fetched back and
  // the team woken -- was taken for its cost, 4x the GPU alone's, and the
  // GPU alone ran the rest of the run at 20x the CPU's time).
  // Not a host's (a retry as a stale winner, an exploration): its first
  // execution back is the least like the next ones (on the H100 of call V28 a team coming
  // back after the GPU alone took 1.5-15 ms for a 10-90 us execution, and every retry
  // judged by it found the CPU slow: warm lud 107-253 ms against the CPU alone's ~10), so
  // the next execution measures it.
  bool explore_aborted() const {
    if (!exploring_ || !settling_ || !(measured_pred_ > 0))
      return false;
    if (solo_ >= 0 && solo_ < p_ && dev_[size_t(solo_)].host)
      return false;
    const double spent =
        solo_ >= 0 && solo_ < p_ ? dev_[size_t(solo_)].exec_busy : exec_wall();
    return spent > kExploreAbort * explore_best_;
  }

  bool learnt_model(int device, double &overhead_s,
                    double &per_iteration_s) const override {
    if (device < 0 || device >= p_)
      return false;
    // What it costs alone, where its model beside the others may hold a stall
    // (solo_model()): the next run predicts its arm alone from that.
    if (const Dev &d = dev_[device]; d.model.lanes_only && alone_model(d).known()) {
      overhead_s = alone_model(d).o;
      per_iteration_s = alone_model(d).c;
      return true;
    }
    // Not a young model once the region runs again: the cache would keep a
    // slow start (a region's only execution is kept, Store::record).
    if (!dev_[device].model.known() || provisional(dev_[device]) ||
        (young(dev_[device]) && exec_ > dev_[device].first_exec))
      return false;
    const Dev &d = dev_[device];
    const Model m = rescaled(d.fit_stale ? fitted(d) : d.model, d.speed);
    overhead_s = m.o;
    per_iteration_s = m.c;
    return true;
  }

  // Introspection for tests and the simulator.
  std::vector<double> modelled_rates() const {
    std::vector<double> r;
    for (const Dev &d : dev_) {
      const Model m = d.fit_stale ? fitted(d) : d.model;
      r.push_back(m.known() ? 1 / m.c : 0);
    }
    return r;
  }

private:
  struct Flight {
    Range range;
    double start = 0, predicted = 0;
    bool beside = false; // another device had a chunk in flight meanwhile
    double speed = 1;    // Dev::speed when it was issued
  };
  struct Dev {
    bool host = false, active = true, confident = false;
    // Its last chunk took at least (1 - kConfident) of the model's
    // prediction: the model does not make it look slower than it is.
    bool not_faster = false;
    // Its last chunk took at most (1 + kConfident) of the prediction, and
    // had `last_chunk` iterations (proven_at_scale()).
    bool not_slower = false;
    int64_t last_chunk = 0;
    // This execution: retired by retires_beside_copies() (Scheduler::retired).
    bool retired = false;
    // ... or waiting by waits_for_accelerators_alone() (Scheduler::paused).
    bool paused = false;
    Model model, seed;
    // SchedParams::co_speed, and the speed `model` is at now: samples,
    // seeds and learnt_model() are at speed 1 (a chunk's seconds times the
    // speed it ran at), `model` is at the execution's (use_co_speed()).
    double co_speed = 1, speed = 1;
    // SchedParams::rate_ceiling: iterations per second its staged copies
    // allow at most in this execution (0: unknown).
    double ceiling = 0;
    // It asked in the last execution and got nothing: the others had taken
    // its block before it came (a GPU whose preparation outlasts the CPU's
    // whole execution: lud on the H100, call AL, learnt nothing in 511
    // executions at 200 us each, against 15-40 us for the CPU alone).  An
    // accelerator's stays set through the executions it is left out of, up
    // to its next ask.  While it has no model, or probes it again, thieves
    // leave it its probe (kept_for()).
    bool starved = false;
    // A probe again it found taken was made again at the next execution it
    // could come in time for (read_device_params()); cleared once a probe
    // again gets work.
    bool reprobe_resumed = false;
    bool lanes_disproved = false; // see lanes_disproved()
    // Its lanes took the loop before any host started (lanes_probe_takes_all)
    // and no chunk of another size has tested them since: its first chunk
    // of the next_lanes_test-th execution is a third of the loop (lanes_test).
    bool lanes_untested = false, lanes_test = false;
    int next_lanes_test = kFirstLanesTest;
    Samples samples;              // every chunk: the model for co-execution
    // The chunks during which no other device had one in flight, and their
    // model: what the device costs alone.  On the H100 the CPU's chunks
    // beside the GPU stalled 1-17 ms for 15 rows of lud (10-40 us alone)
    // while the GPU pinned and copied; a model of those predicted the CPU
    // alone 60-450x too slow, and that arm was never measured.
    Samples alone;
    // Their model (alone_model()), refitted only when read: only a device
    // whose chunks all had its lanes' size reads it, and a fit per chunk was
    // a tenth of a resident region's execution.  alone_host and
    // alone_lanes: the fit's inputs as at the last chunk alone.
    mutable Model alone_fit;
    mutable bool alone_stale = false;
    // Samples added since `model` was fitted (complete(), held executions).
    bool fit_stale = false;
    bool alone_host = false;
    int64_t alone_lanes = 0;
    int next_alone_probe = 1;  // the earliest execution of its next alone probe
    bool probe_again = false;  // its alone probe was its first chunk at the site
    int first_exec = -1;       // exec_ of its first sample at this site
    bool steady = false;       // it has samples of a later execution
    int sampled_execs = 0;     // executions it has completed chunks in
    int last_sample_exec = -1; // the last of them
    bool reprobe = false;      // this execution probes its model again
    int next_reprobe = 1;      // the earliest execution that may do so
    // Seconds from an execution's start to its first next() (first_ask), and
    // that of its last probe again in which the others had taken everything
    // before it asked (0: none, or a later probe again got work): the H200's
    // lud GPU registers its rows before it asks, 0.17 ms, where the CPU alone
    // takes 0.04 ms; each of a cold run's four probes again cost that
    // (hce-sim), and none could pay (reprobe_pays()).
    double first_ask = 0;
    double starts_after = 0;
    // The fastest rate (iterations per second, at speed 1) its chunks of
    // any execution showed, each but its first at the site, where two such
    // chunks ran in one execution (kFasterThanModel times that where one
    // did); 0: none yet (reprobe_pays()).
    double rate_bound = 0;
    std::vector<Flight> inflight;
    double busy_until = 0, longest = 0;
    double exec_busy = 0; // its chunks' seconds in the last execution
    int64_t exec_done = 0; // the iterations of those chunks
    int exec_chunks = 0;   // how many
    // The fastest of them, iterations per second (a host's first at the
    // site less kHostOneTime; an accelerator's left out), and the
    // accelerator's chunks counted in it.
    double exec_best_rate = 0;
    double exec_counted_busy = 0;
    // Its chunks of the last execution but its first at the site: how many,
    // and the fastest one's iterations per second (Dev::rate_bound).
    int exec_later_chunks = 0;
    double exec_later_rate = 0;
    // An accelerator about to retire: the host's chunk it works beside
    // until that ends (fill_before_retiring()).
    int fill_host = -1;
    Range fill_for;
    int64_t largest = 0, assigned = 0, lanes = 0;
    int64_t wave = 0; // SchedParams::waves (whole_waves())
    Range block; // [head, tail): the owner takes the head, thieves the tail
  };

  // A new execution's counts (Dev::exec_*), and whether it tests the
  // device's lanes.
  void reset_execution_counts(Dev &d) {
    d.exec_busy = 0;
    d.exec_done = 0;
    d.exec_chunks = 0;
    d.exec_best_rate = 0;
    d.exec_counted_busy = 0;
    d.exec_later_chunks = 0;
    d.exec_later_rate = 0;
    d.fill_host = -1;
    // A lanes' claim one chunk size backs: tested at the 8th, 32nd ...
    // execution (a false one made the device take the whole loop in
    // every execution, 1.33x the balanced time, SchedEft.AFalseClaim...).
    d.lanes_test = d.lanes_untested && exec_ >= d.next_lanes_test;
    if (d.lanes_test)
      d.next_lanes_test = 4 * exec_;
  }

  // The execution's counts of a completed chunk (Dev::exec_*), and whether
  // the model predicted it.
  void count_chunk(Dev &d, Range range, double seconds, const Flight &flight,
                   bool first_chunk) {
    const double one_time = first_chunk ? kHostOneTime : 0;
    if (d.host && seconds > one_time)
      d.exec_best_rate =
          std::max(d.exec_best_rate, double(range.size()) / (seconds - one_time));
    if (!d.host && !first_chunk) {
      d.exec_best_rate = std::max(d.exec_best_rate, double(range.size()) / seconds);
      d.exec_counted_busy += seconds;
    }
    if (!first_chunk) {
      d.exec_later_chunks += 1;
      d.exec_later_rate =
          std::max(d.exec_later_rate, double(range.size()) / (seconds * flight.speed));
    }
    d.exec_busy += seconds;
    d.exec_done += range.size();
    d.exec_chunks += 1;
    d.largest = std::max(d.largest, range.size());
    d.longest = std::max(d.longest, seconds);
    const double predicted = flight.predicted;
    d.confident = predicted > 0 && std::abs(seconds - predicted) <= kConfident * seconds;
    d.not_faster = predicted > 0 && seconds >= (1 - kConfident) * predicted;
    d.not_slower = predicted > 0 && seconds <= (1 + kConfident) * predicted;
    d.last_chunk = range.size();
  }

  // A device's last chunk had at least half the iterations of its share
  // and took no longer than its model predicted (within kConfident): at the
  // share's scale the model does not make the device look faster than it
  // is, so a whole share ends no later than predicted -- where a model off
  // only by being pessimistic halved the share, one launch more.  A GPU's
  // kernels are concave in their iterations (mcpi on the H100, call MB: a
  // line through its learning chunks, 1.5-48 K rows, predicted its block's
  // 340 K rows at 0.65 ms, taken 0.38), and the halves of the steal after
  // it cost a kernel's ~0.1 ms drain each (hce-sim, h100-2026-12-05-mcpi:
  // cold auto 0.93x as long).
  static bool proven_at_scale(const Dev &d, double share) {
    return d.not_slower && 2 * double(d.last_chunk) >= share;
  }

  // A completed chunk into the device's samples and model (and its samples
  // alone when it ran by itself).
  void record_sample(int device, Range range, double seconds, const Flight &flight) {
    Dev &d = dev_[device];
    const double predicted = flight.predicted;
    // A device's first execution at this site carries one-time costs (a
    // data region's first upload, the kernel's first launch): once it has
    // chunks of a later execution, those first ones leave the fit, and the
    // model the profile cache keeps (learnt_model) is the steady one (the
    // H100's kmeans: a GPU model with its first launch and upload in it
    // made the next run co-execute at 0.75x the GPU alone).
    if (d.first_exec < 0)
      d.first_exec = exec_;
    d.steady = d.steady || exec_ > d.first_exec;
    // A chunk of a later execution that took under a quarter of what the
    // model predicted: the device got faster (a stall at the machine's start
    // ended), and its earlier chunks no longer say what it costs.  The fit
    // would keep the slow line and drop this chunk as the one far off it.
    if (predicted > 0 && seconds * kFasterThanModel < predicted && !d.samples.empty() &&
        d.samples.last_exec() < exec_)
      d.samples.clear();
    if (d.last_sample_exec != exec_)
      ++d.sampled_execs;
    d.last_sample_exec = exec_;
    // Kept as the whole team would have taken them (Dev::speed).
    const double kept = seconds * flight.speed;
    d.samples.add(range.size(), kept, exec_, d.first_exec, d.host ? d.lanes : 0);
    if (d.lanes_untested && 3 * range.size() <= 2 * d.largest)
      d.lanes_untested = false; // a chunk of another size: lanes_disproved() can tell
    bool lanes_changed = false;
    if (!d.host && d.lanes > 0 && lanes_disproved(d.samples.v(), d.lanes)) {
      d.lanes_disproved = true; // modelled without lanes from now on
      d.lanes = 0;
      lanes_changed = true;
    }
    // A held execution's chunk that its model predicted (d.confident) leaves
    // the model as fitted: one more sample it agrees with moves it little,
    // and the fit was ~1.3k instructions of each of lud's 511 executions
    // on the CPU alone beside an idle GPU (VM callgrind).  The sample is
    // kept; the hold's end (choose_mode()) fits them all, learnt_model()
    // reads a fresh fit.
    if (held_ && device == solo_ && d.confident && d.model.known() && !lanes_changed)
      d.fit_stale = true;
    else
      refit(d);
    if (!flight.beside && exec_ > d.first_exec) { // (no one-time costs: see above)
      d.alone.add(range.size(), kept, exec_, d.first_exec, d.host ? d.lanes : 0);
      // Fitted when read (alone_model()), with the host and lanes of now.
      d.alone_stale = true;
      d.alone_host = d.host;
      d.alone_lanes = d.lanes;
    }
  }

  // Exploration: the cheapest arm other than `best` never measured, if its
  // two executions (one settles, one measures) are predicted to cost at most
  // kExplore of the wall this site has run so far, with what explorations
  // already cost beyond the best arm's estimate (explore_spent_: an arm's
  // prediction is what is in doubt; an explored arm whose first execution
  // takes kExploreAbort times the best's is measured by it), and it is estimated
  // beyond kRetryWithin of the best (nearer ones are retried anyway); -2 if
  // none.  An arm
  // predicted from samples taken while the machine was slow (the H100's lud:
  // the CPU's chunks in the process's first milliseconds, 100x their later
  // time) is otherwise never measured; the budget bounds what a correct
  // prediction costs to confirm (2% of the site's time, once per arm).
  // Co-execution's and a host's arm alone; not an accelerator's alone, whose
  // prediction is below its wall by right (below).
  //
  // A device's arm whose only wall is an earlier run's (seed_mode), or a
  // host's arm with one wall of this run, is in doubt too (once: Arm::doubted)
  // when that wall is kSeedDoubt times what the device's model predicts now
  // and the model says it would beat the best: one slow execution stored in
  // the profile cache (the H100's lud, call AY: the CPU alone 6.68 ms against
  // 10-40 us, measured in a slow moment), or measured once in this run (call
  // EE: 8.09 ms, and the GPU alone ran the rest of the run at 0.3-0.7 ms),
  // otherwise left that device out for good.  (Not an accelerator's own
  // wall: its per-execution copies are in no chunk, so its model is below
  // its wall by right.)  Its cost is taken from the
  // model; if the wall was right, the settling execution measures it
  // (kExploreAbort) and the next run's seed is this run's.
  //
  // A stale winner is explored again too, with exponential backoff instead
  // of the budget: an arm measured slow now whose fastest measurement ever
  // (fastest_wall(), an earlier run's included) would beat the best -- also
  // within kRetryWithin of it (hce-sim's lud, its CPU 20x for 10 ms: the
  // CPU alone stalled at 1.2x the GPU alone waited 270 executions for the
  // exploration budget, the runner-up retry's backoff grown in the stall).
  // A machine's cores may be taken for a while: on the H100 machine of call
  // GB the CPU stalled inside a warm lud run, its arm alone was measured at
  // 2-12 ms per execution once, and the GPU alone ran the rest of the run at
  // 20x the CPU alone's time (its model had absorbed the stall too, so no
  // doubt arose).  It is retried once the site has run as long as its last
  // slow wall (Arm::stale_wait), twice as long after each retry that finds
  // it slow still: a stall that lasts costs at most about half the time it
  // lasts, and the run is back on the faster arm at most about the stall's
  // length after it ends.  (A budget of kExplore would wait 50 times a 10 ms
  // stall's wall.)
  int unmeasured_within_budget(int best) {
    constexpr double kSeedDoubt = 4;
    const std::vector<double> &est = choice_.est;
    int pick = -2;
    pick_stale_ = false;
    double pick_cost = 0;
    for (int a = -1; a < p_; ++a) {
      const Arm &m = arm(a);
      const double pr = doubt_prediction(a);
      const bool doubtful_seed =
          a >= 0 && !m.doubted && (m.seeded || (m.n == 1 && dev_[size_t(a)].host)) &&
          est[size_t(a + 1)] > kSeedDoubt * pr && pr < est[size_t(best + 1)];
      const bool second = second_opinion(a, best);
      const double fastest = optimistic_wall(a);
      const bool stale_winner = m.n != 0 && !m.seeded && fastest > 0 &&
                                fastest < est[size_t(best + 1)] &&
                                site_wall_ >= m.stale_after;
      if (a == best || (m.n != 0 && !doubtful_seed && !stale_winner && !second))
        continue;
      const double cost = doubtful_seed || second ? pr
                          : stale_winner          ? fastest
                                                  : est[size_t(a + 1)];
      // An accelerator's arm never measured is not explored on the budget:
      // its estimate is its prediction, which leaves its per-execution data
      // movement out (in no chunk), so one beyond kRetryWithin of the best
      // cannot win.  Its model in doubt (chunks inside a stall) is a probe
      // again's to test (unconfirmed()), at a probe's cost.  On the H100
      // (call V10) 5 of 8 cold lud runs ran the GPU alone once in a late
      // execution, predicted at 8-30x the CPU alone: 0.15-0.24 ms each, 3-5x
      // the prediction (its windows made again, its first copy's wait).
      const bool below_its_wall = a >= 0 && !dev_[size_t(a)].host && m.n == 0;
      // (A second opinion also within kRetryWithin of the best: the retry
      // every kRetry executions never comes to a loop that runs once.)
      if ((second || stale_winner ||
           (!below_its_wall &&
            est[size_t(a + 1)] > kRetryWithin * est[size_t(best + 1)] &&
            explore_spent_ + 2 * cost <= kExplore * site_wall_)) &&
          (pick < -1 || cost < pick_cost)) {
        pick = a;
        pick_cost = cost;
        pick_stale_ = stale_winner && !doubtful_seed;
      }
    }
    return pick;
  }

  // A stale winner's wait (Arm::stale_wait) at most what balances the
  // retry just made against what staying could lose: the retry cost
  // `excess`, its walls beyond the best's estimate, and each second on the best arm loses
  // 1 - fastest/best of it if the stall is over.  Waiting kRegretBalance
  // times that cost's worth keeps a stall that lasts at most about
  // 1/(kRegretBalance + 1) dearer than the best arm alone, and the run back
  // on the stale winner at most kRegretBalance retries' cost after the
  // stall ends.  Doubling alone waits up to the stall's length after it:
  // the H200's warm lud on a machine whose cores were taken at times (call
  // AB) ran the GPU alone 151 and 69 executions at 0.46-0.58 ms each, the
  // CPU alone's 0.009.  Infinity where the stale winner is no faster.
  double regret_balanced_wait(int stale, int best, double excess) {
    constexpr double kRegretBalance = 4;
    const double best_wall = choice_.est[size_t(best + 1)];
    const double fastest = optimistic_wall(stale);
    if (!(best_wall > 0) || !(fastest > 0) || fastest >= best_wall)
      return std::numeric_limits<double>::infinity();
    const double lost_per_second = 1 - fastest / best_wall;
    return std::max(best_wall, kRegretBalance * std::max(0.0, excess) / lost_per_second);
  }

  // The prediction an arm's walls are doubted against: the models' (pred_),
  // or for a host device whose model this run fitted from few chunks the
  // earlier run's model (its seed) where that is lower.  One chunk the OS
  // stalled is then a model 300x too slow, the device's arm alone looks
  // slow by its wall and by its model alike, and nothing doubts it (hce-sim
  // --stall cpu:0.001:0.01:300 on lud: the GPU alone ran 490 executions at
  // 20x the CPU alone's time, 0.28 s against 0.02; the H200's call PA
  // measured that loss in round 3, 0.30 s against the CPU alone's 0.011).
  // Doubting costs one measurement at the seed's prediction; a model that
  // was right is confirmed by it.
  double doubt_prediction(int a) const {
    constexpr int64_t kFewChunks = 4;
    const double pr = pred_[size_t(a + 1)];
    if (a < 0)
      return pr;
    const Dev &d = dev_[size_t(a)];
    if (!d.host || !d.seed.known() || d.samples.size() >= size_t(kFewChunks))
      return pr;
    const double seeded = d.seed.time(double(W_));
    return seeded > 0 ? std::min(pr, seeded) : pr;
  }

  // A second opinion: a device's arm whose only wall is one execution of
  // one earlier run (Arm::seed_once) is measured again in this run, outside
  // the exploration budget, where its model disputes that wall (kRetryWithin)
  // and says it would beat the best arm, and the wall is within twice the
  // best's (what the measurement costs if the wall was right).  A
  // program that runs its loop once has no budget: on the H200 (call MC)
  // matadd's CPU alone, measured once at 36 ms in the machine's first
  // process (23 ms in calls MA and MB), kept every later run co-executing at
  // 27 ms; in call BC blackscholes' GPU alone, measured once at 46 ms in a
  // fresh machine's first GPU process (29-32 ms after), kept seven warm runs
  // co-executing at 37-44 ms.  Once: the profile then holds two
  // measurements, the faster kept (profile::merge_into).  An accelerator's
  // model is below its wall by right (its per-execution copies are in no
  // chunk), so its once-measured arm is measured again whenever it is
  // within twice the best: one execution per profile cache.  Not
  // co-execution's, whose model misses what overlapping costs.
  bool second_opinion(int a, int best) {
    constexpr double kWithin = 2;
    if (a < 0)
      return false;
    const Arm &m = arm(a);
    const double pr = pred_[size_t(a + 1)], e = choice_.est[size_t(a + 1)],
                 b = choice_.est[size_t(best + 1)];
    return m.seeded && m.seed_once && !m.doubted && e > kRetryWithin * pr && pr < b &&
           e <= kWithin * b;
  }

  // A device's arm alone at this execution's trip count by its fastest
  // measurement (Arm::best_wall), scaled from that trip count by
  // the device's model now: the model's level may hold a stall, its shape
  // bridges trip counts (lud's GPU alone, 0.79 ms at 511 rows, takes
  // 0.66 ms at 31, not 0.05).  0 for co-execution or none.
  double fastest_wall(int a) {
    const Arm &m = arm(a);
    if (a < 0 || m.best_wall <= 0 || m.best_trip <= 0)
      return 0;
    const Model &model = solo_model(dev_[size_t(a)]);
    const double then = model.time(double(m.best_trip));
    return then > 0 ? m.best_wall * model.time(double(W_)) / then : 0;
  }

  // What arm `a` alone could take at this execution's trip count: its
  // fastest wall (fastest_wall()), or for a host, if lower, the loop at the
  // fastest rate its chunks ever showed (Dev::rate_bound), its team's forks
  // left out.  A host whose every wall came from a stall has no fast one,
  // and its model absorbed the stall: hce-sim's cold lud with the CPU 100x
  // for 5 ms from its first execution alone (--stall cpu:0.0013:0.005:100)
  // measured it at 0.7 ms, doubted it once inside the stall, and ran the
  // GPU alone for 500 executions, 11x the CPU alone's time (V19's H100
  // round 5: 7.32 ms once, 466 executions, 0.20 s against 0.007).  Its
  // rate from before the stall makes it a stale winner, retried with the
  // backoff (unmeasured_within_budget(), regret_balanced_wait()).  Only a
  // wall kStalledWall times that rate's or more: the bound may be
  // kFasterThanModel times a chunk's rate, and a host's fork and first
  // touches put its clean walls above it too (the 11-23 profile's cold cg:
  // its CPU alone, 1.63 ms against a bound of 0.4, retried at 4x: cold
  // auto / best 1.318 -> 1.305).  The stalls above were 60-600x.
  double optimistic_wall(int a) {
    constexpr double kStalledWall = 4 * kFasterThanModel;
    const double fastest = fastest_wall(a);
    if (a < 0 || !dev_[size_t(a)].host || !(dev_[size_t(a)].rate_bound > 0) || W_ <= 0)
      return fastest;
    const double bound = double(W_) / dev_[size_t(a)].rate_bound;
    return fastest > 0 && fastest < kStalledWall * bound ? fastest : bound;
  }

  // The model that predicts the device alone (its arm in choose_mode()): its
  // model from every chunk, unless those all had the lanes' size
  // (Model::lanes_only) -- then what it measured alone (Dev::alone), else its
  // seed (an earlier run's, learnt_model()).
  const Model &solo_model(const Dev &d) const {
    if (!d.model.lanes_only)
      return d.model;
    const Model &alone = alone_model(d);
    return alone.known() ? alone : d.seed.known() ? d.seed : d.model;
  }

  // The fit of the device's samples, at its speed now (Dev::fit_stale).
  Model fitted(const Dev &d) const {
    return rescaled(fit(d.samples.v(), d.host, d.lanes, fit_scratch_), 1 / d.speed);
  }
  void refit(Dev &d) {
    d.model = fitted(d);
    d.fit_stale = false;
  }

  // The device's model alone (Dev::alone_fit), fitted if a chunk came since.
  const Model &alone_model(const Dev &d) const {
    if (d.alone_stale) {
      d.alone_fit = fit_alone(d.alone.v(), d.alone_host, d.alone_lanes, fit_scratch_);
      d.alone_stale = false;
    }
    return d.alone_fit;
  }

  // An execution that starts with a host device's alone probe: a host whose
  // chunks all had the lanes' size, and whose arm alone was never measured
  // in this run (a wall from the profile cache does not count: call CA's
  // warm lud kept a slow start's 1.9 ms per execution for the CPU alone),
  // runs one probe-sized chunk by itself while everybody else waits (asleep,
  // in the chunk loop), so that its arm alone is predicted from what it
  // costs alone (solo_model()).  Nothing else tells a stall beside the
  // others' chunks from a slow row.  Again at the 8th, 32nd ... execution
  // while that arm stays unmeasured and left out: on the H100 lud's CPU was
  // slow for its first milliseconds, alone too (call AP: a probe alone at
  // the 3rd execution took 1.8 ms for 15 rows, 10-40 us later; AQ).  Each
  // probe costs the others one chunk of the host's lanes.  Then the chosen
  // mode runs without it; the execution does not measure that mode.
  // A host's probe is two chunks of the probe's size, one after the other,
  // where the model says one is affordable (host_probe_affordable()): the
  // first pays waking a team that did not work in the last execution and
  // is no sample, the second measures it (alone_probe_chunk_).  On the H100
  // of call V28 some processes' CPU team took 1.5-15 ms to come back from
  // idle for a 10 us execution; a one-chunk probe measured only that, its
  // model said the CPU alone took 1.5 ms, and the GPU alone ran cold lud in
  // 180-217 ms against the CPU alone's ~10 (hce-sim --stall
  // cpu:0:1:0.003:woken).
  void plan_alone_probe() {
    const int i = alone_probe_;
    const Dev &h = dev_[size_t(i)];
    alone_probe_chunk_ = alone_probe_size(h);
    const Model &m = h.model.known() ? h.model : h.seed;
    const bool two = h.host && m.known() &&
                     host_probe_affordable(h, m.time(double(alone_probe_chunk_)));
    const int64_t n =
        std::min((two ? 2 : 1) * alone_probe_chunk_, std::max<int64_t>(1, W_ / 2));
    if (solo_ >= 0) {
      for (int j = 0; j < p_; ++j) {
        dev_[j].block = j == solo_ ? Range{n, W_} : Range{W_, W_};
        dev_[j].active = j == solo_;
      }
    } else {
      // The EFT split of the rest among the others.
      dev_[i].active = false;
      std::vector<double> w = split(double(W_ - n), zeros());
      std::vector<bool> active(p_, true);
      active[size_t(i)] = false;
      w[size_t(i)] = 0;
      std::vector<int64_t> sizes = split_sizes(W_ - n, w, active);
      int64_t lb = n;
      for (int j = 0; j < p_; ++j) {
        dev_[j].block = j == i ? Range{W_, W_} : Range{lb, lb + sizes[size_t(j)]};
        lb += j == i ? 0 : sizes[size_t(j)];
      }
    }
    dev_[i].block = {0, n};
    dev_[i].active = true;
  }
  // A host's alone probe: enough iterations that their work by its model
  // (the lower of its seed's and this run's) is kAloneProbeWork, up to the
  // largest probe (probe_size()'s W / 2p).  A one-row chunk measures the
  // team's fork: fitted alone (o = c = t / 2) it made lud's CPU 70x slower
  // per row than it is (1.85 us against 0.027), and from a profile cache
  // filled while the CPU was slow (every CPU sample 20x) the GPU alone ran
  // 155 executions at 17x the CPU alone's time (hce-sim: 0.074 s against
  // 0.013).  A host that really is that slow pays kAloneProbeWork a probe.
  //
  // A model of lanes-sized chunks only cannot tell the chunk's cost from its
  // rows' (Model::lanes_only): its rate is an upper bound, and a probe of the
  // lanes' size measures the chunk's cost again.  Such a probe takes what its
  // upper-bound rate fits in the time the chosen mode predicts for the whole
  // execution: at worst the execution costs twice that.  The H100's cold
  // lud (call RH, traces t8 run 1): beside the GPU the CPU's team sleeps
  // between chunks, and 15 rows cost 50-100 us of waking it for ~1 us of
  // work; the alone probe of 15 rows took 63 us, the CPU alone was
  // predicted at 1.5 ms per execution (10-15 us measured later) and the
  // GPU alone ran at 0.52 ms until a probe again at the 16th execution.
  int64_t alone_probe_size(const Dev &d) const {
    const int64_t n = probe_size(d);
    double c = 0;
    for (const Model *m : {&d.seed, &d.model})
      if (m->known())
        c = c > 0 ? std::min(c, m->c) : m->c;
    if (!d.host || !(c > 0))
      return n;
    const int64_t most = std::max<int64_t>(n, W_ / (2 * std::max(1, p_)));
    const double by_work = std::ceil(kAloneProbeWork / c);
    const int64_t sized = by_work >= double(most) ? most : std::max(n, int64_t(by_work));
    if (!d.model.lanes_only)
      return sized;
    const Model &alone = alone_model(d);
    const Model &bound = alone.known() && alone.c < d.model.c ? alone : d.model;
    const double budget = solo_ + 1 < int(pred_.size()) ? pred_[size_t(solo_ + 1)] : 0;
    const double by_budget = std::floor((budget - bound.o) / bound.c);
    return by_budget >= double(most) ? most
                                     : std::max(sized, int64_t(std::max(0.0, by_budget)));
  }

  // The alone probe completed (or its device was dropped): the others go on.
  void end_alone_probe() {
    const int i = alone_probe_;
    alone_probe_ = -1;
    dev_[i].active = false; // the mode was chosen without it
    // What this run measured alone outranks an earlier run's wall of the
    // arm (the profile cache's, maybe from a slow start of the machine: the
    // H100's warm lud held the CPU alone at 0.7-10 ms per execution against
    // ~40 us, call CA): the arm is estimated from the probe, then measured.
    if (arm(i).seeded) {
      seed_walls_[size_t(i + 1)] = 0;
      arm(i) = Arm{};
    }
  }

  // While a device's model is unconfirmed, a chunk may take at most kGrowth
  // times its longest chunk so far (by the model), or be kGrowth times its
  // largest: probes grow by time, so a device whose chunks cost the same
  // whatever their size (a kernel that does not fill the GPU) gets the rest
  // in one chunk instead of growing 16, 64, 256 ...
  //
  // Never faster than its staged copies allow (stages_rows()): a copying
  // accelerator's first chunks may all cost a copy's latency, and growing
  // by the rate that makes gave the H100's cold matadd (call MB) its whole
  // block after chunks of 8 and 32 rows (1.14 and 1.15 ms): 4056 rows, 25.7
  // ms of copies, where the CPU alone takes 17 for all 8192.
  int64_t growth_limit(const Dev &d) const {
    int64_t by_size = (flat(d) ? kGrowth * kGrowth : kGrowth) * d.largest;
    // Up to a wave at once: a kernel of fewer iterations than the device
    // holds at once runs them side by side, so a part wave costs about a
    // whole one (hce-sim, the 12-07 H100 nbody profile: the GPU's probes
    // 16, 75, 1056 rows became 16, 1056; cold auto/best 0.903 -> 0.930,
    // gemm 1.043 -> 1.056, the other 140 cells within 0.5%).  Call V10 on
    // the H100, 8 paired rounds, could not tell it from the noise: cold
    // nbody 1.02x as long by the paired median (0.69-1.26), best single /
    // cold auto 0.85 -> 0.89 by the medians; gemm cold 1.00.
    if (!d.host && d.wave > 0 && d.largest < d.wave)
      by_size = std::max(by_size, d.wave);
    double budget = kGrowth * d.longest - d.model.o;
    if (budget <= 0 || d.model.c <= 0 || rate_unmeasured(d))
      return by_size;
    double by_time = budget / std::max(d.model.c, stages_rows(d) ? 1 / d.ceiling : 0.0);
    return by_time >= 9e18 ? std::numeric_limits<int64_t>::max()
                           : std::max(by_size, int64_t(by_time));
  }

  // An accelerator's chunk of a wave or more (its kernel's iterations with
  // every multiprocessor full, SchedParams::waves) is a whole number of
  // them, the nearest: a part wave costs a whole one.  The H200's cold gemm
  // (call QJ, waves of 132 rows): chunks of 544, 166, 740 and 282 rows,
  // 4.1, 1.3, 5.6 and 2.1 waves, took 2.85, 1.20, 3.00 and 1.75 ms, 16
  // waves' time for 13 waves' rows.  Half a wave or more is one wave when
  // the kernel's time is its latency (flat(): 93, 99 and 112 rows took
  // 0.58-0.71 ms, the 2-row probe 0.61); the loop's rest stays whole, and
  // smaller chunks (probes) are left as they are.
  int64_t whole_waves(const Dev &d, int64_t size, int64_t R) const {
    if (d.host || d.wave <= 0 || size >= R)
      return size;
    if (size < d.wave)
      return 2 * size >= d.wave && flat(d) ? std::min(R, d.wave) : size;
    return std::min(R, (size + d.wave / 2) / d.wave * d.wave);
  }

  // An accelerator whose largest chunk took no longer than one of at most
  // half its iterations: its chunks' time is a kernel's latency, not their
  // iterations, so their rate is not measured yet and a chunk grows
  // kGrowth^2 rather than kGrowth.  The H200's cold gemm (call QI): chunks
  // of 2, 8 and 39 rows took 0.59, 0.50 and 0.53 ms (each thread's k loop
  // of 2048 is the kernel), and growing from 8 by kGrowth cost five such
  // kernels, 2.7 ms for 127 rows, where one of 325 took 1.4 ms.
  bool flat(const Dev &d) const {
    if (d.host)
      return false;
    const std::pair<int64_t, double> *big = nullptr;
    for (const auto &s : d.samples.v())
      if (!big || s.first > big->first)
        big = &s;
    if (!big)
      return false;
    for (const auto &s : d.samples.v())
      if (2 * s.first <= big->first && big->second <= s.second)
        return true;
    return false;
  }

  // While another device is still to be probed, a chunk is predicted to
  // take at most `times` as long as the execution so far (1 unless said
  // otherwise), and has at least as many
  // iterations as the device's largest: the probe may show that device
  // doing the rest at once, and what was taken before costs at most the time
  // already spent (the H100's cold nbody: the CPU's fourth chunk, 11.6 ms,
  // outlasted the GPU's probe, after which the GPU did the rest in 4.7 ms).
  int64_t while_others_probe(const Dev &d, double t, double times = 1) const {
    if (!d.model.known())
      return std::numeric_limits<int64_t>::max();
    if (rate_unmeasured(d))
      return kGrowth * d.largest;
    const double by_time = (times * (t - exec_begin_) - d.model.o) / d.model.c;
    if (by_time >= 9e18)
      return std::numeric_limits<int64_t>::max();
    return std::max(d.largest, int64_t(std::max(0.0, by_time)));
  }

  // A host whose chunks so far were mostly its fork: its longest spent less
  // on its iterations than the model's overhead, so the model's rate is a
  // difference of two near-equal times (the H200's cold jacobi2d,
  // sweep_BA: 3 rows in 13.8 us, 7 in 14.0, a rate of 20 M rows/s against
  // ~1 M).  Its chunks then grow by size, not by the time that rate
  // predicts: by time the CPU took its whole block, 2037 rows, 2.3 ms,
  // while the GPU, its probe done, waited (call PA).  (Not an accelerator:
  // a kernel that does not fill the GPU costs the same whatever its size,
  // and growing by time gives it the rest in one chunk, growth_limit().)
  bool rate_unmeasured(const Dev &d) const {
    return d.host && d.model.known() && d.longest - d.model.o < d.model.o;
  }

  // Probing a host costs what co-executing makes the accelerator register
  // beside its team: a data region's arrays, page-locked whole
  // (SchedParams::register_bytes_of), where the accelerator alone stages
  // them with every core.  A registration holds up every CUDA call of the
  // process (bench/register_beside_copies.cu, call S1: 50-52 ms/GiB, other
  // threads' copies and launches waiting 1.3-9.3 ms): the H100's cold cg
  // (call RP) paid ~9 ms registering 150 MiB over its first executions, at
  // 0.67 of the GPU alone; registering it for its first execution only and
  // probing the host at the next (T1, session 88: cg 1.08, kmeans 1.07) did
  // not pay either, the vectors then registered beside the team.  So while
  // no host has a model (none from this run, none from the profile cache)
  // and that registration would cost over kExplore of the site's time
  // so far and more than the accelerator alone's execution by its model
  // (at least kDeferRegisterBytes), the one accelerator runs alone:
  // its index, with the bytes in `why.bytes`; else -1.  As the site's time
  // grows (a long solver), the host is probed once the registration is
  // within the budget; an array the accelerator holds whole that the
  // region only reads is never registered (DataEnv::spans_to_pin), so what
  // remains is what the region writes.
  //   Nor, with nothing to register, while the host's first probe
  // (kHostFirstProbe) would cost more than that budget and the
  // accelerator alone's execution, by its model: the registration over,
  // the H100's cold fdtd2d probed the CPU at its three sites from their
  // second executions, 0.5-0.7 ms more per site than the GPU alone's
  // 10 executions of ~0.05 ms (call V23; V12: cold 0.91).  A host faster
  // than such an accelerator gains at most its execution's time each time,
  // and is probed once 2% of the site's time covers the probe.  At a
  // site's first execution, with no model of the accelerator yet, the
  // probe waits where it would fetch rows only an accelerator holds
  // (SchedParams::host_fetch_bytes_of): fdtd2d.hz reads ex and ey, which
  // the GPU alone wrote at the sites before it, and its first execution
  // with the CPU's probe took 0.62-0.75 ms against the GPU alone's
  // 0.30-0.51 (V23).  So it does while the accelerator's model is from its
  // first execution only, whose one-time costs it carries (bfs on the H100
  // 11-27 profile: 0.335 ms predicted after its first execution, 0.063 in
  // the next ones).
  struct Deferral {
    double bytes = 0;   // the registration deferred (0: none)
    double probe_s = 0; // else the host's first probe's cost (kHostFirstProbe)
  };
  int host_probe_deferred(Deferral &why) const {
    why = {};
    if (p_ < 2 || !register_bytes_of_)
      return -1;
    int accelerator = -1;
    bool host = false;
    for (int i = 0; i < p_; ++i) {
      const Dev &d = dev_[i];
      if (!d.active)
        continue;
      if (d.host) {
        if (d.model.known() || d.seed.known())
          return -1;
        host = true;
      } else if (accelerator >= 0) {
        return -1; // several: the learning executions split among them
      } else {
        accelerator = i;
      }
    }
    if (!host || accelerator < 0)
      return -1;
    // Nor once an execution of the accelerator alone costs as much as the
    // registration: a host far faster than it would otherwise wait for the
    // budget (a GPU 30x slower than the CPU, 10 ms an execution, would run
    // 25 of them before a 64 MiB registration came within 2%).
    const Dev &a = dev_[size_t(accelerator)];
    const double alone = a.model.known() ? solo_model(a).time(double(W_)) : 0;
    const double budget = std::max(kExplore * site_wall_, alone);
    const double b = register_bytes_of_();
    if (b >= kDeferRegisterBytes && b * kRegisterSecondsPerByte > budget) {
      why.bytes = b;
      return accelerator;
    }
    if (a.model.known() && a.steady
            ? kHostFirstProbe > budget
            : host_fetch_bytes_of_ && host_fetch_bytes_of_() > 0) {
      why.probe_s = kHostFirstProbe;
      return accelerator;
    }
    return -1;
  }

  double now() const { return clock_ ? clock_() : now_seconds(); }

  // A model from the device's first execution at this site only, once a
  // later execution has begun without the device running again.  It may
  // carry one-time costs: on the H100's cold lud one row on a cold OpenMP
  // team (1.9 ms) made the CPU look 10^4 times slower than it is; the GPU
  // alone ran the 510 executions left at 13x the CPU's time, and the
  // profile cache kept the model for the next run.  Such a model does not
  // leave its device out for good (reprobe_) and is not what the cache
  // keeps (learnt_model).  A seeded device goes back to its seed instead
  // (choose_mode): the cache keeps steady models (Store::record), so an
  // earlier run's steady cost beats this run's cold first execution (the
  // H100's warm cg: a CPU left out after one cold spmv paid a learning
  // execution).
  //
  // More generally a model from fewer than kSettledExecutions executions is
  // provisional once one begins without the device: a machine may be slow
  // for its first milliseconds (the H100 machine of 2026-11-24's call D ran
  // lud's first two CPU executions at 5 and 1.8 ms, the third at 0.1 ms), so
  // one re-probe was not enough either.  A device left out on such a model
  // is probed again at the region's 2nd, 8th, 32nd ... execution (reprobe_)
  // until its samples span enough executions.
  bool provisional(const Dev &d) const {
    return !d.seed.known() && (cold_only(d) || (young(d) && exec_ > d.last_sample_exec));
  }
  // A model from fewer than kSettledExecutions executions.
  bool young(const Dev &d) const {
    return d.model.known() && d.sampled_execs < kSettledExecutions;
  }
  // A model from the device's first execution only, and a later one begun.
  bool cold_only(const Dev &d) const {
    return d.model.known() && !d.steady && d.first_exec >= 0 && exec_ > d.first_exec;
  }
  // Whether the device's next chunk is a probe: it has no model, or this
  // execution probes its provisional one again.
  bool needs_probe(const Dev &d) const {
    return !d.model.known() || (d.reprobe && (provisional(d) || unconfirmed(d)));
  }
  // Whether probing a provisional model again can pay for itself: at the
  // fastest its chunks showed (Dev::rate_bound), the device would run a
  // fraction f of the loop in the chosen mode's time T, which would take
  // T / (1 + f) with it at best; over the `horizon` executions until its
  // next probe again that gains at most horizon T f / (1 + f), against a
  // learning execution that costs about T more (the H200's cold heat3d,
  // call YB: the CPU, 80 planes in 3.8 ms, probed again beside the GPU's
  // 0.14 ms executions at a cost of 0.3-0.5 ms each, four times in 20
  // executions; cold kmeans, 1-2.3 ms for one).  Unbounded: it may pay.
  bool reprobe_pays(const Dev &d, double chosen, int horizon) const {
    if (!(d.rate_bound > 0) || !(chosen > 0) || W_ <= 0)
      return true;
    const double f = d.rate_bound * chosen / double(W_);
    return double(horizon) * f / (1 + f) >= 1;
  }
  // Whether the device's last probe again asked for work only after the
  // chosen mode's predicted time (Dev::starts_after): another probe again
  // would find the others done before it starts, and cost its start.
  static bool starts_too_late(const Dev &d, double chosen) {
    return d.starts_after > 0 && chosen > 0 && d.starts_after >= chosen;
  }

  // A model no measured wall ever backed: the device left out since it was
  // learnt, and neither its arm alone nor co-execution measured in this
  // run.  Its chunks may all have run inside a stall at the machine's start
  // (hce-sim --stall cpu:0.001:0.002:30 on lud, cold: the CPU's three
  // learning executions all stalled, the GPU alone ran 200 executions at
  // 40x the CPU's time before an exploration found it out: 0.140 s against
  // the CPU alone's 0.017).  Such a device is probed again at the 16th
  // execution, then at 4x the last probe's (64th, 256th ...).  (Not
  // provisional(): the profile cache keeps the model.)
  bool unconfirmed(const Dev &d) const {
    const int i = int(&d - dev_.data());
    return !d.seed.known() && d.model.known() && exec_ > d.last_sample_exec &&
           arms_.size() == size_t(p_ + 1) && arms_[size_t(i + 1)].n == 0 &&
           arms_[0].n == 0;
  }

  // A host left out on an earlier run's model: seeded (the profile cache's)
  // and no chunk of it at this site in this run, outside data regions (a
  // probe there moves the arrays: warm jacobi2d 0.99 -> 0.77 in hce-sim).
  // A cache filled while the machine's cores were taken predicts the host
  // alone many times too slow by its model and walls alike (the H200's lud
  // from its cache with every CPU sample 30x, call TC: the GPU alone ran
  // all 511 executions, 0.156 s against the CPU alone's 0.013), so neither
  // doubtful_seed nor the exploration budget measures it.  Probed alone
  // from the 16th execution (and at the next: Dev::probe_again), then at
  // every fourfold: end_alone_probe() makes its arm this run's, estimated
  // from the probe (TC: 0.026 s; the clean cache's runs unchanged).
  bool seed_unsampled(const Dev &d) const {
    return !data_region_ && d.host && d.seed.known() && d.model.known() &&
           d.first_exec < 0 && exec_ >= kFirstUnconfirmedReprobe;
  }

  // Whether an active device other than `device` is still to be probed.
  // Not a host probed again whose model is from later executions than its
  // first at the site (a young or unconfirmed model, not cold_only()) and
  // gives it under kSmallShare of the loop: even kFasterThanModel times
  // faster it would take under a quarter, so the others take their whole
  // shares and a probe again costs its probe, not the execution.  (Growing
  // by kGrowth beside it, the H200's GPU ran jacobi2d's and heat3d's
  // executions that probed the CPU again in three or four chunks against
  // one alone: 0.23-0.53 ms against 0.13, call JC.)  A model from the first
  // execution only may be off by any factor (one-time costs: hce-sim's cold
  // bfs on the H100 profile of 11-24-j, the GPU's; the H100's cold lud, the
  // CPU's, 10^4), and one that gives its device more may well take over
  // the loop when it proves faster (the same profile's cold kmeans, the CPU
  // 23% by its model, took its whole half beside a GPU that had committed
  // to its own: 12.9 ms against 6.2).
  bool others_unprobed(int device) const {
    constexpr double kSmallShare = 1.0 / 16;
    for (int j = 0; j < p_; ++j) {
      const Dev &o = dev_[j];
      if (j == device || !o.active || !needs_probe(o))
        continue;
      if (!o.host || !o.model.known() || cold_only(o) ||
          split(double(W_), zeros())[j] >= kSmallShare * double(W_))
        return true;
    }
    return false;
  }

  // Another working device, faster per iteration, whose model is from this
  // execution only (its first at this site): a cold execution's first
  // chunks carry one-time costs (a pool, a first launch, first
  // registrations), and a share split by such a model may be far too large
  // for this device.  (Not a slower one's: the faster device's share is then
  // the larger, its chunks end sooner, and halving them cost gemm's and
  // mcpi's cold GPU 13-16% in launches, call UB.)
  bool others_unsettled(int device) const {
    const Dev &d = dev_[device];
    for (int j = 0; j < p_; ++j) {
      const Dev &o = dev_[j];
      if (j != device && o.active && o.model.known() && o.first_exec == exec_ &&
          o.model.c < d.model.c)
        return true;
    }
    return false;
  }

  // Another working device whose model is from this execution's chunks
  // and no earlier run's (no seed), and has not predicted a chunk within
  // kConfident since (a first chunk has no prediction): its first chunks
  // may have paid one-time costs the fit still carries (call VB: a GPU's
  // first 34 K options in 2.0 ms, its next 137 K in 1.3 ms).
  bool others_cold(int device) const {
    for (int j = 0; j < p_; ++j) {
      const Dev &o = dev_[j];
      if (j != device && o.active && o.model.known() && o.first_exec == exec_ &&
          !o.seed.known() && !o.confident)
        return true;
    }
    return false;
  }

  // A host lending copy threads (lends()) whose model makes it under
  // kLendingWorthRate of the working devices' rate retires from the
  // execution: its rows are worth less than what its team costs the
  // accelerators' staged one-shot copies, which then go on alone (its
  // team asleep, the output's pages faulted in ahead by the freed cores:
  // region_exec.cpp, Scheduler::retired()).  The H200's cold blackscholes
  // (call CD): the team, 8 threads beside the GPU's 8 staging threads,
  // computed 99 K rows/ms while the GPU's rate beside it was 330 K, against
  // 630 K alone with the prefaulter -- each row the GPU gets crosses host
  // memory three times (array, staging slot, link), and the team's compute
  // and page faults take the host's memory and cores; break-even about
  // 0.9 of the GPU's rate beside it.  Its cold gemm (call VC): the GPU
  // staged 6.4-8.2 GB/s beside the CPU's 1-row chunks, about 13 alone, for
  // 0.3% of the rows on the CPU.  matadd's memory-bound CPU, 2.4x the
  // GPU's rate, keeps co-executing.  Once what it ran bounds the host's
  // rate (rate_at_most(); not a short cold probe, mostly the team's fork:
  // the SA-SB profile's cold matadd, 8 rows in 1 ms, looked 50x slower per
  // row than the CPU is and would have left the GPU alone at 0.42x) and
  // every other working device has a model (one-time costs make an
  // accelerator's first chunks look slower, never faster).  Only for this
  // execution: the next begins with every device active, and one that
  // stalled is probed again (provisional(), unconfirmed()).
  //
  // So does an accelerator under kLendingWorthRate of the others' rate
  // (accelerator_rate_at_most()): its rows are worth less than the threads
  // the host lends its copies, which go back to the host's team.  The
  // H200's cold matadd (call FA): the CPU's team, halved, computed 188-271
  // rows/ms beside the GPU's copies (356 alone), the GPU 72-81 -- together
  // less than the CPU alone.  With half the team lent, the host alone is
  // at most twice as fast as beside; the GPU is worth keeping above half
  // of what that gains.  The H100's cold blackscholes (hce-sim's 11-27
  // profile: the GPU 99 K rows/ms beside the CPU's 161-180 K, 1.5x the CPU
  // alone) keeps its GPU.
  //
  // An accelerator whose staged copies could not outrun the hosts' whole
  // teams even at their ceiling (worth_of_lent_threads()) is held to what
  // the lent threads cost instead.
  bool retires_beside_copies(int device) const {
    const Dev &d = dev_[device];
    if (!lends_ || !(d.model.c > 0) || last_active(device))
      return false;
    const double rate = d.host ? rate_at_most(d) : accelerator_rate_at_most(d);
    const double others = others_rate(device, /*probed=*/true);
    const double worth = d.host ? kLendingWorthRate : worth_of_lent_threads(d);
    return rate > 0 && others > 0 && rate < worth * others;
  }

  // The fraction of the others' rate under which an accelerator retires
  // beside a lending host: kLendingWorthRate, or, where its staged copies'
  // ceiling is under the hosts' whole teams' rate (their rate beside it
  // over SchedParams::co_speed), what the lent threads cost at most: the
  // host's rate beside it times 1/co_speed - 1.  The H100's cold matadd
  // (call QA): the GPU ran 120-220 rows/ms beside the CPU's halved team at
  // 233-260 (470 alone) and never retired under half of that; its ceiling
  // (48 GB/s over 192 KiB a row, 244 rows/ms) is half the team's.  Not
  // blackscholes' GPU (its ceiling 1.2 M options/ms against the team's
  // ~0.36 M), whose learning chunks beside the team can run slower than
  // the CPU (hce-sim's 11-24 to 11-27 H100 profiles: 1.13-1.32x as long
  // under the cost line).
  double worth_of_lent_threads(const Dev &d) const {
    if (!stages_rows(d))
      return kLendingWorthRate;
    double whole = 0, lent_cost = 0;
    for (const Dev &h : dev_)
      if (h.host && h.active && h.model.c > 0 && h.co_speed < 1) {
        whole += 1 / (h.model.c * h.co_speed);
        lent_cost = std::max(lent_cost, 1 / h.co_speed - 1);
      }
    if (!(whole > d.ceiling))
      return kLendingWorthRate;
    return std::clamp(lent_cost, kLendingWorthRate, 1.0);
  }

  // A lending host under kLendingWorthRate of what the accelerators' staged
  // copies allow (their rate_ceiling) waits while each cold accelerator,
  // prepared, runs its first kMeasuredAlone chunks after its first: beside
  // the host's team they measure the contended rate (the H200's cold
  // blackscholes: the GPU's first three chunks at ~130 K rows/ms beside the
  // team, 600 K once alone, call FD), which made the host look worth
  // keeping for 15-19 ms of co-execution that ran both devices slower than
  // the GPU alone.  Measured alone, the GPU's rate retires the host at its
  // next ask (retires_beside_copies()) or the host goes on.  Never while an
  // accelerator prepares (the host's chunks are free then), nor on a seed
  // (a warm run knows the rates), nor where the host's whole team could be
  // worth keeping at the ceiling (matadd's CPU, 190-270 rows/ms beside the
  // GPU with half its team, 356 alone, against ~490 at 48 GB/s; by its
  // halved team's rate it waited in some runs, call GA: 1.07x as long).
  // What waiting costs where the host turns out worth it: its rows for
  // those chunks' time -- not once one of them (not its first) ran slower
  // than the host (the H100's cold blackscholes, hce-sim's 11-27 profile:
  // the GPU's second chunk at 98 K rows/ms, the CPU's 180 K; waiting for its
  // third cost 5.7 ms of the CPU's, 0.735 -> 0.707 of the GPU alone).
  bool waits_for_accelerators_alone(int device) const {
    const Dev &d = dev_[device];
    // Two chunks at least: one may have stalled (a cold team's first fork;
    // the host would then retire on that one chunk's rate).
    if (!d.host || !lends_ || d.exec_chunks < 2)
      return false;
    const double rate = rate_at_most(d);
    if (!(rate > 0))
      return false;
    double ceiling = 0;
    bool measuring = false;
    for (int j = 0; j < p_; ++j) {
      const Dev &o = dev_[j];
      if (j == device || !o.active || o.host)
        continue;
      if (!(o.ceiling > 0) || !asked_[size_t(j)])
        return false; // preparing, or no ceiling to weigh the host against
      if (o.exec_best_rate > 0 && o.exec_best_rate < rate)
        return false; // a chunk of it (not its first) already slower
      ceiling += o.ceiling;
      const bool cold = !o.seed.known() && (o.first_exec < 0 || o.first_exec == exec_);
      measuring = measuring || (cold && o.exec_chunks < 1 + kMeasuredAlone);
    }
    // The whole team's rate (its threads lent back) against the ceiling.
    return measuring && rate / d.co_speed < kLendingWorthRate * ceiling;
  }

  // What an accelerator's rate is at most, by its chunks of this execution
  // (0: not bounded yet): the faster of its model's marginal rate and its
  // fastest chunk's, once kAcceleratorBoundingProbe of chunks counts -- not its
  // first at the site, which carries one-time costs (the kernel's first
  // launch, the staging pool's first copies: cold matadd's 8-row first
  // GPU chunk took 0.92 ms, 9 rows/ms against its third's 72).
  double accelerator_rate_at_most(const Dev &d) const {
    if (d.exec_counted_busy < kAcceleratorBoundingProbe || !(d.exec_best_rate > 0))
      return 0;
    return std::max(d.exec_best_rate, 1 / d.model.c);
  }

  // An accelerator that retires (retires_beside_copies()) gives the host's
  // team its threads back at the team's next chunk: until the chunk in
  // flight when it would first have retired ends, its rows cost nothing
  // more, and it takes chunks that end with it by the models (at least a
  // probe's).  The chunk's end, not the model's: hce-sim's 11-29-sab
  // matadd: a GPU retired 5.5 ms before the CPU's chunk ended (4% longer);
  // filling until the chunk's predicted end, 3 ms before (1%).  Not every
  // host chunk after it: they follow one another, and a GPU filling each
  // never retired (hce-sim's 11-29 matadd, 0.834 -> 0.773).  0: retire.
  int64_t fill_before_retiring(int device, double t) {
    Dev &d = dev_[device];
    if (d.host || !retires_beside_copies(device))
      return 0;
    if (d.fill_host < 0)
      for (int j = 0; j < p_ && d.fill_host < 0; ++j)
        if (dev_[j].host && dev_[j].active && !dev_[j].inflight.empty()) {
          d.fill_host = j;
          d.fill_for = dev_[j].inflight.back().range;
        }
    if (d.fill_host < 0)
      return 0;
    const Dev &h = dev_[d.fill_host];
    if (std::none_of(h.inflight.begin(), h.inflight.end(),
                     [&](const Flight &f) { return f.range == d.fill_for; }))
      return 0;
    const double left = h.busy_until - t - d.model.o;
    const int64_t fits = left > 0 ? int64_t(left / d.model.c) : 0;
    return std::max(fits, probe_size(d));
  }

  // A host asks for its next chunk: the accelerators that worked beside
  // its last one before retiring (fill_before_retiring()) retire now, so
  // that this chunk has the whole team (lending()); their chunks in flight
  // complete beside it.
  void retire_filling_accelerators() {
    for (int j = 0; j < p_; ++j) {
      const Dev &a = dev_[j];
      if (!a.host && a.active && a.fill_host >= 0 && retires_beside_copies(j))
        retire(j);
    }
  }

  void retire(int device) {
    Dev &d = dev_[device];
    d.active = false;
    d.retired = true;
    if (!d.host && !an_accelerator_active()) {
      // The lent threads go back to the host's team (lending()): the
      // models at the whole team's speed from here.
      lends_ = false;
      lent_back_ = true;
      use_co_speed(false);
    }
  }

  bool an_accelerator_active() const {
    return std::any_of(dev_.begin(), dev_.end(),
                       [](const Dev &d) { return d.active && !d.host; });
  }

  // What the host's rate (iterations per second, this execution's speed)
  // is at most, by what it ran so far; 0 when that does not bound it.
  //  * Its last chunk was predicted and took no less than the prediction
  //    (within kConfident): the model's rate.
  //  * Its chunks of this execution took more than kHostOneTime: the
  //    iterations they ran over their time, less kHostOneTime in the
  //    device's first execution at this site, whatever of that one-time
  //    costs were.  From kHostOneTime on, not twice it: the H100's cold
  //    blackscholes (call MB, hce-sim's h100-2026-12-05-bs profile): the
  //    CPU's first two chunks ran 2.4 ms when the GPU first asked, and
  //    unbounded the CPU co-executed a third, 3.2 ms beside the GPU's
  //    learning chunks, instead of waiting while the GPU measured itself
  //    alone (waits_for_accelerators_alone(); 30.8 -> 24.1 ms).  A chunk
  //    slower or faster than predicted bounds the rate as well as one on
  //    time: the H200's cold blackscholes (call DC):
  //    the CPU's chunks at 88, 73, 79 K rows/ms beside the GPU's copies,
  //    each 17% off its prediction, kept it from retiring for 14 ms more;
  //    its cold gemm: two rows in 7.7 ms, 600x slower per row than the
  //    GPU, then two more in 7.4 ms that left the GPU a tail.
  //    A stall hits one chunk: with two chunks or more, the faster of
  //    that and their fastest chunk's rate; with one chunk in the first
  //    execution, the rate beyond kHostStall (gemm's probe bounds its
  //    CPU at once; a cold probe of matadd's CPU, 2.4x the GPU, that
  //    stalled 5 ms does not retire it).
  double rate_at_most(const Dev &d) const {
    if (d.not_faster)
      return 1 / d.model.c;
    if (d.exec_done == 0 || d.exec_busy <= kHostOneTime)
      return 0;
    const bool site_first = d.first_exec == exec_;
    if (site_first && d.exec_chunks < 2)
      return d.exec_busy > kHostStall ? double(d.exec_done) / (d.exec_busy - kHostStall)
                                      : 0;
    const double one_time = site_first ? kHostOneTime : 0;
    return std::max(double(d.exec_done) / (d.exec_busy - one_time), d.exec_best_rate);
  }

  // A copying accelerator (stages_rows()) whose model is from its chunks
  // (not a seed alone) and whose longest chunk spent less on its iterations
  // than the model's overhead (as rate_unmeasured() for a host): its
  // chunks' time is mostly the copies' latency, and the rate its model
  // reads from them one its copies may never reach; what it did show
  // (Dev::exec_best_rate) is what it is worth to others_rate() then.  The
  // H100's cold matadd (call MB): after chunks of 8 and 32 rows in 1.14 and
  // 1.15 ms the GPU's model said 3.4 M rows/s, and the CPU (137 K rows/s
  // beside it, 490 K alone) retired; the GPU then moved the rest at 160 K,
  // 54 ms against 17 for the CPU alone.  (Cold gemm's GPU showed 61 rows/ms
  // in 78 rows, its CPU 0.33: it still retires.)
  bool copies_unmeasured(const Dev &d) const {
    return stages_rows(d) && d.model.known() && !d.samples.empty() &&
           d.longest - d.model.o < d.model.o;
  }

  // An accelerator that stages each chunk's rows through the lent threads
  // (a ceiling on its rate) outside a data region: in one, its arrays stay
  // on it after the first execution, and its chunks copy far less than their
  // rows' mapped bytes.
  bool stages_rows(const Dev &d) const { return d.ceiling > 0 && !data_region_; }

  // Whether `device`'s model makes it less than twice as fast as the other
  // active devices together (false while one of them has no model).
  bool under_twice_the_others(int device) const {
    const Dev &d = dev_[device];
    if (!d.model.known() || !(d.model.c > 0))
      return false;
    const double others = others_rate(device, /*probed=*/false);
    return others > 0 && kLendingWorthRate / d.model.c < others;
  }

  // The other active devices' iterations per second together by their
  // models; 0 while one of them has none (or, `probed`, is still to be
  // probed).
  double others_rate(int device, bool probed) const {
    double rate = 0;
    for (int j = 0; j < p_; ++j) {
      const Dev &o = dev_[j];
      if (j == device || !o.active)
        continue;
      if (!o.model.known() || !(o.model.c > 0) || (probed && needs_probe(o)))
        return 0;
      if (probed && copies_unmeasured(o)) { // what it showed, not its model
        rate += o.exec_best_rate;
        continue;
      }
      rate += 1 / o.model.c;
    }
    return rate;
  }

  // An accelerator kDominates times faster than the other devices together
  // (by its model, which its growth bound still holds to): halving its
  // share while the model is young protects what the others could take
  // over, under a sixteenth of the rest, and costs a kernel's overhead.
  // hce-sim's H100 mcpi (12-05): the GPU, 40x the CPU, ran its 740 K rows
  // in two chunks of 0.39 ms where one takes 0.67 (a full kernel's 113 us
  // twice); cold auto 1.45 -> 1.38 ms, no other profile's cell worse.
  // Measured (H100, call RD, 60 paired rounds): cold mcpi 0.97x as long.
  bool dominates(const Dev &d, int device, bool probing) const {
    if (d.host || probing || !(d.model.c > 0))
      return false;
    const double others = others_rate(device, false);
    return others > 0 && others * d.model.c * kDominates < 1;
  }

  // Whether every device but `device` has retired from this execution.
  bool last_active(int device) const {
    for (int j = 0; j < p_; ++j)
      if (j != device && dev_[j].active)
        return false;
    return true;
  }

  int64_t unassigned() const {
    int64_t r = 0;
    for (const Dev &d : dev_)
      r += d.block.size();
    return r;
  }

  // Co-execution or one device alone, by measured wall time per execution
  // (what the cost models miss -- per-execution transfers, halo copies,
  // synchronisation, the CPU slowed by the copy engines -- shows there).
  //
  // The modes are arms: co-execution (-1) and each device alone (0..p-1).
  // An arm's estimate for this execution is its prediction by the models
  // (the EFT finish time; the device's t(W) alone) times its `excess`, the
  // measured wall over the prediction at the time it was measured, so that
  // a wall measured at another trip count still compares (lud's trailing
  // update shrinks every execution).  An arm not measured yet is estimated
  // by its prediction -- co-execution's with a 25% and 1 ms surcharge: on
  // the H100 it lost whenever the models promised less (the costs above).
  // The arm with the lowest estimate runs; so an arm is tried only when its
  // prediction beats what the others measured (lud: the GPU alone, fastest
  // by the models, measured 5x slower than the CPU's prediction, so the CPU
  // alone is tried and kept).  The first execution after a switch moves data
  // and does not count; the second measures the arm.
  //
  // Every kRetry executions in one mode the runner-up is measured again if
  // its estimate is within kRetryWithin of the best (an arm measured far
  // slower is not paid for again); a retry that confirms the mode in use
  // doubles the interval (up to kMaxRetry).  Walls from earlier runs of the
  // program (seed_mode(), the profile store) count as a measurement until
  // this run measures the arm itself, so a second run starts in the better
  // mode without exploring.
  // What an unmeasured co-execution's prediction is taken times, beyond
  // kCoSurcharge: the largest excess (wall over model) of an earlier run's
  // walls of the devices alone (seeded arms), among the devices the split
  // gives a tenth of W or more (read right after choose_mode()'s split).
  // Those walls carry what the chunk models leave out -- a one-shot loop's
  // preparation: the staging pool, pinning -- and so will the devices'
  // walls beside each other.  QB (H200, 11-29): gemm's GPU alone measured
  // 18.7 ms against a model of ~13; co-execution, predicted below it, was
  // explored in a warm run and took 26.3 ms.  Walls this run measured are
  // left out: a cold run's first execution carries its data's placement.
  double unmeasured_co_excess() {
    constexpr double kLeadShare = 0.1;
    double e = 1;
    for (int i = 0; i < p_; ++i)
      if (split_shares_[size_t(i)] >= kLeadShare * double(W_) && arm(i).seeded)
        e = std::max(e, arm(i).excess());
    return e;
  }

  // Every kRetry executions in one mode a runner-up is measured again; a
  // retry that confirms the mode doubles the interval, up to kMaxRetry.
  static constexpr int kRetry = 16, kMaxRetry = 256;

  // At the start of an execution: records what the last one measured
  // (record_last_execution), estimates every arm (estimate_arms), runs the
  // best unless a retry, an exploration (plan_retry), a reprobe
  // (plan_reprobes) or a host's probe alone (pick_alone_probe) is due.
  void choose_mode() {
    int was = solo_;
    const bool measured_now = record_last_execution(was);
    const double wall = exec_wall();
    ++exec_;
    for (Dev &d : dev_)
      if (cold_only(d) && d.seed.known()) {
        d.model = d.seed; // an earlier run's steady cost (provisional())
        d.model.lanes = double(d.lanes);
      }
    held_ = keeps_settled_alone(was, measured_now);
    choice_.held = held_;
    if (held_)
      return;
    for (Dev &d : dev_) // (samples of the hold's executions)
      if (d.fit_stale)
        refit(d);
    settled_until_ = 0; // (a full choice: note_settled_alone() may set it again)
    solo_ = -1;
    bool all_known = p_ >= 2;
    for (const Dev &d : dev_)
      all_known = all_known && d.model.known();
    int best = -2, runner_up = -2; // -2: none yet (-1 is co-execution)
    // Every arm's estimate and prediction (kept for explain()).
    choice_.est.assign(size_t(p_ + 1), 0);
    pred_.assign(size_t(p_ + 1), 0);
    choice_.measured.assign(size_t(p_ + 1), 0);
    if (all_known) {
      estimate_arms();
      rank_arms(was, best, runner_up);
      solo_ = best;
      if (measured_now)
        back_off_stale_winner(was, best, wall);
      plan_retry(was, best, runner_up, measured_now);
      measured_pred_ = pred_[solo_ + 1];
      measured_trip_ = W_;
    }
    if (plan_reprobes(all_known)) {
      all_known = false;
      solo_ = -1;
    }
    Deferral deferral;
    const int deferred = !all_known ? host_probe_deferred(deferral) : -1;
    if (deferred >= 0)
      solo_ = deferred;
    alone_probe_ = pick_alone_probe(all_known);
    choice_.alone_probe = alone_probe_;
    choice_.reprobe = reprobe_;
    choice_.all_known = all_known;
    choice_.solo = solo_;
    choice_.deferred = deferral;
    choice_.runner_up = runner_up;
    for (size_t a = 0; a < arms_.size(); ++a)
      choice_.measured[a] = arms_[a].n;
    // The first execution after a switch moves data: it does not count.
    settling_ = solo_ != was || exec_ == 1;
    mode_measured_ = !settling_ && all_known && alone_probe_ < 0;
    // A run's first execution in a mode the seeds chose: not a measurement
    // for this run's arms (it also places the data), but the only one a
    // program that runs the region once ever makes.  measured_mode() hands
    // it to the profile cache, which keeps it only if the region does not
    // execute again (Store::record): without it a one-execution program
    // never learnt what co-execution costs (matadd on the H100, call CE:
    // co-executed in 0.059 s, then still predicted at 21 ms against the
    // CPU alone's measured 22 ms).
    first_measured_ = exec_ == 1 && all_known && alone_probe_ < 0;
    if (solo_ != was)
      mode_since_ = exec_;
    note_settled_alone(was, best);
  }

  // The arms' record of the execution that ended, which ran arm `was`
  // (-1 where the arms are new: first use, or other devices); true if it
  // measured that arm.
  bool record_last_execution(int &was) {
    if (static_cast<int>(arms_.size()) != p_ + 1) { // first use, or other devices
      arms_.assign(p_ + 1, Arm{});
      retry_after_ = kRetry;
      retry_from_ = kNoRetry;
      mode_measured_ = false;
      was = -1;
    }
    if (exec_ >= 2) // (the first execution's one-time costs are no budget)
      site_wall_ += std::max(0.0, exec_wall());
    for (Dev &d : dev_) { // (the last execution's counters)
      const double model_rate = d.model.known() ? 1 / d.model.c : 0.0;
      if (d.exec_later_chunks >= 2)
        d.rate_bound = std::max({d.rate_bound, d.exec_later_rate, model_rate});
      // One chunk after its first: a bound of kFasterThanModel times its
      // rate (a chunk that much faster would reset the fit, complete()).
      // Left unbounded, the H100's cold nbody probed the CPU again in its
      // 2nd execution: its two chunks of the 1st (16 and 66 rows, 1.3 ms)
      // ended as the GPU's (1.77 ms alone) did; 101 rows beside it held the
      // execution 0.11 ms longer, for a CPU 75 times slower (V6s).
      else if (d.exec_later_chunks == 1)
        d.rate_bound =
            std::max({d.rate_bound, kFasterThanModel * d.exec_later_rate, model_rate});
    }
    bool measured_now = false; // the execution that ended measured `was`
    const double wall = exec_wall(), arm_wall = measured_wall(was);
    if (mode_measured_ && measured_pred_ > 0) {
      measured_now = true;
      Arm &m = arm(was);
      m.n = m.seeded ? 1 : m.n + 1;
      m.add(arm_wall / measured_pred_, arm_wall, measured_trip_);
    } else if (explore_aborted()) {
      // An explored arm whose first execution already took kExploreAbort
      // times the best arm's: that is its measurement (a second one would
      // only spend the budget again).
      measured_now = true;
      Arm &m = arm(was);
      m.n = 1;
      m.add(arm_wall / measured_pred_, arm_wall, measured_trip_);
    }
    explored_now_ = exploring_ && measured_now;
    if (exploring_) {
      explore_spent_ += std::max(0.0, wall - explore_best_);
      explore_excess_ += std::max(0.0, wall - explore_best_);
      exploring_ = !measured_now;
    }
    return measured_now;
  }

  // Every arm's prediction by the models (pred_) and estimate for this
  // execution's trip count (choice_.est); an earlier run's wall of an arm
  // not measured yet is its first measurement.
  void estimate_arms() {
    constexpr double kCoSurcharge = 1.25, kMinGain = 1e-3; // unmeasured co
    std::vector<double> &est = choice_.est, &pred = pred_;
    use_co_speed(true);
    split(double(W_), zeros());
    pred[0] = finish_time_;
    use_co_speed(false);
    for (int i = 0; i < p_; ++i)
      pred[i + 1] = solo_model(dev_[i]).time(double(W_));
    for (int a = -1; a < p_; ++a) {
      Arm &m = arm(a);
      const double pr = pred[a + 1];
      if (m.n == 0 && m.seed_wall > 0 && pr > 0) {
        m.add(m.seed_wall / pr, m.seed_wall, W_); // an earlier run's wall
        m.n = 1;
        m.seeded = true;
      }
    }
    const double co_excess = unmeasured_co_excess();
    for (int a = -1; a < p_; ++a) {
      const Arm &m = arm(a);
      const double pr = pred[a + 1];
      const double near = m.n ? m.near_wall(W_) : 0;
      est[a + 1] = near > 0 ? near
                   : m.n    ? m.excess() * pr
                   : a < 0  ? kCoSurcharge * co_excess * pr + kMinGain
                            : pr;
    }
  }

  // The arms with the lowest and the next lowest estimates, the mode that
  // ran (`was`) kept against a gain under 3%.
  void rank_arms(int was, int &best, int &runner_up) {
    const std::vector<double> &est = choice_.est;
    for (int a = -1; a < p_; ++a) {
      if (best < -1 || est[a + 1] < est[best + 1]) {
        runner_up = best;
        best = a;
      } else if (runner_up < -1 || est[a + 1] < est[runner_up + 1]) {
        runner_up = a;
      }
    }
    // Hysteresis: a measured mode gives way to another measured one only
    // for a 3% gain, so that noise does not make it switch (and move data).
    // Not at a run's first execution: no mode ran yet (matadd, call CF:
    // co-execution seeded at 18.9 ms kept over the CPU alone's 18.5).
    if (exec_ > 1 && best != was && arm(was).n > 0 && arm(best).n > 0 &&
        est[best + 1] > 0.97 * est[was + 1])
      best = was;
  }

  // The stale winners' backoff (unmeasured_within_budget): arm `was`, just
  // measured at `wall`, lost to `best`.  A retry's cost is all its
  // executions' walls beyond the best's estimate, its settling one's too.
  void back_off_stale_winner(int was, int best, double wall) {
    Arm &m = arm(was);
    if (best == was) {
      m.stale_wait = 0;
    } else {
      const double excess = std::max(wall - choice_.est[size_t(best + 1)],
                                     explored_now_ ? explore_excess_ : 0.0);
      m.stale_wait = std::min(std::max(2 * m.stale_wait, wall),
                              regret_balanced_wait(was, best, excess));
      m.stale_after = site_wall_ + m.stale_wait;
    }
  }

  // Which arm runs instead of `best`, if any: a retry of the runner-up every
  // retry_after_ executions in one mode, or an exploration
  // (unmeasured_within_budget()).  A runner-up never measured is tried once
  // the best is measured (the mode's 2nd execution) rather than at the
  // 16th: its prediction is all there is, and one from chunks that moved a
  // partition's data (a data region's first executions) may be far above
  // what it costs (hce-sim, the H100's cold cg: spmv's GPU alone predicted
  // 1.38 ms, 0.06 measured, kept on the CPU alone at 1.16 ms for every
  // execution).  It costs at most kRetryWithin of the best for one
  // execution.
  void plan_retry(int was, int best, int runner_up, bool measured_now) {
    const std::vector<double> &est = choice_.est;
    const bool never_measured =
        runner_up >= -1 && arm(runner_up).n == 0 && arm(best).n > 0;
    const bool settled =
        exec_ - mode_since_ >= (never_measured ? kSettledExecutions - 1 : retry_after_);
    if (retry_from_ != kNoRetry) {
      // A retry ran: its arm is measured (or this is its settling run).
      if (was == retry_from_ || measured_now) {
        retry_after_ =
            best == retry_from_ ? std::min(2 * retry_after_, kMaxRetry) : kRetry;
        retry_from_ = kNoRetry;
      } else {
        solo_ = was; // still settling the retried arm
      }
    } else if (was == best && settled && runner_up >= -1 &&
               est[runner_up + 1] <= kRetryWithin * est[best + 1]) {
      solo_ = runner_up; // measure the runner-up again
      retry_from_ = was;
    } else if (int a = unmeasured_within_budget(best);
               a >= -1 && ((was == best && arm(was).n > 0) ||
                           (exec_ == 1 && second_opinion(a, best)))) {
      solo_ = a; // measure an arm never measured, once (unmeasured_within_budget)
      arm(a).doubted = arm(a).n > 0;
      // A stale winner's slow walls are what is in doubt: the retry's
      // measurement stands alone (one fast retry after a 100 ms stall
      // was outvoted by four stalled walls, and the GPU alone ran on).
      if (pick_stale_)
        arm(a).forget();
      retry_from_ = was;
      exploring_ = true;
      explore_best_ = est[best + 1];
      explore_excess_ = 0;
    }
  }

  // A host's unconfirmed model probed again although its probe is
  // predicted to outlast the chosen mode's execution: where the probe costs
  // at most kHostProbeShare of the site's time so far.  Its model may be a
  // stall's: the CPU's chunks of a cold lud's first three executions all
  // inside a 4 ms stall of its team (hce-sim --stall cpu:0.001:0.004:1000
  // on the rows-kernel profile) predicted its 16-row probe at 1.2 ms beside
  // the GPU alone's 0.45 ms executions, and the GPU alone ran the 508 left,
  // 0.114 s against the CPU alone's 0.011 (call V7, the H100: 1 of 10 cold
  // runs, 0.142 s against 0.0077).  A probe runs beside the chosen mode
  // and costs only its overrun; a host's probe is its lanes' rows.  (Not an
  // accelerator's: its probe's copies and first launch are real, 11-23's
  // lud GPU: 26 ms.)
  // (`later`: the site's time to come, for a hold that must not pass it.)
  bool host_probe_affordable(const Dev &d, double probe, double later = 0) const {
    constexpr double kHostProbeShare = 0.25;
    return d.host && probe <= kHostProbeShare * (site_wall_ + later);
  }

  // Whether a device left out on a provisional or unconfirmed model is
  // probed again instead (Dev::reprobe): a learning execution (co-execution
  // from the initial ratios; the device takes a probe first), at
  // exponentially spaced executions.
  bool plan_reprobes(bool all_known) {
    reprobe_ = false;
    for (int i = 0; i < p_; ++i) {
      Dev &d = dev_[i];
      // An unconfirmed model is probed only where its probe is predicted to
      // take no longer than the chosen mode's execution: the probe runs
      // beside it (11-23's lud GPU, a 26 ms probe against 50 us executions,
      // lost 28% of a cold run to three such probes, hce-sim).
      const double chosen = solo_ + 1 < int(choice_.est.size()) && solo_ >= -1
                                ? choice_.est[size_t(solo_ + 1)]
                                : 0;
      const double probe = d.model.time(double(probe_size(d)));
      const bool doubt =
          provisional(d) ||
          (unconfirmed(d) && (probe <= chosen || host_probe_affordable(d, probe)));
      const int first = d.host && probe <= chosen ? kFirstUnconfirmedHostReprobe
                                                  : kFirstUnconfirmedReprobe;
      const int at = provisional(d) ? d.next_reprobe : std::max(d.next_reprobe, first);
      d.reprobe = all_known && doubt && exec_ >= at &&
                  (solo_ >= 0 ? solo_ != i : split(double(W_), zeros())[i] < 1) &&
                  !starts_too_late(d, chosen) &&
                  (!provisional(d) || reprobe_pays(d, chosen, 3 * exec_));
      // One attempt each time (it may not get to run); an unconfirmed model
      // at every doubling: its chunks may all have run inside a slow start
      // that outlasted its young model's probes (the 16th execution).
      if (d.reprobe)
        d.next_reprobe = (provisional(d) ? 4 : 2) * exec_;
      reprobe_ = reprobe_ || d.reprobe;
    }
    return reprobe_;
  }

  // The host probed alone in this execution, or -1.
  int pick_alone_probe(bool all_known) {
    for (int i = 0; i < p_ && all_known && W_ >= 2 * p_; ++i) {
      Dev &d = dev_[i];
      if (d.host && solo_ != i && exec_ >= d.next_alone_probe &&
          (arm(i).n == 0 || arm(i).seeded) &&
          (d.model.lanes_only || seed_unsampled(d) || d.probe_again)) {
        d.next_alone_probe = 4 * exec_;
        d.probe_again = false;
        return i;
      }
    }
    return -1;
  }

  // A device alone, settled and far ahead of every other arm, stays alone
  // for the next few executions on its own estimate: the other arms'
  // estimates (the co-execution arm's split, the explorations' and the
  // stale winners' tests) are made again only every kSettledHold
  // executions, when the trip count moved kNearTrip or more, when the
  // device's own estimate rose past kFarAhead times below the best other
  // arm's, or at the next execution a probe again, an alone probe or the
  // settled retry is due.  Those tests cost an execution of lud's trailing
  // update on the CPU alone beside an idle GPU ~2k instructions (~1.5 us of
  // 16 on the H200, where the CPU alone on a process without the GPU
  // spends none of them); what they could decide moves by kFarAhead only
  // through the device's own walls, which are measured every execution.
  static constexpr int kSettledHold = 8;
  static constexpr int kNoDueExecution = std::numeric_limits<int>::max();
  static constexpr double kFarAhead = 2;

  // After a full choice: where the settled device alone (solo_ == was ==
  // best, nothing probed or retried) may hold without one.
  void note_settled_alone(int was, int best) {
    if (!(was >= 0 && solo_ == was && best == was && exec_ >= 2 && p_ >= 2 &&
          retry_from_ == kNoRetry && !exploring_ && !reprobe_ && alone_probe_ < 0 &&
          mode_measured_ && choice_.all_known))
      return;
    const std::vector<double> &est = choice_.est;
    double others = std::numeric_limits<double>::infinity();
    for (int a = -1; a < p_; ++a)
      if (a != was)
        others = std::min(others, est[size_t(a + 1)]);
    const double mine = est[size_t(was + 1)];
    if (!(mine > 0) || !(others >= kFarAhead * mine))
      return;
    int64_t until = exec_ + kSettledHold;
    double limit = others / kFarAhead; // (settled_limit_)
    // The settled retry (choose_mode): its test is made on time.
    if (exec_ - mode_since_ < retry_after_)
      until = std::min<int64_t>(until, mode_since_ + retry_after_);
    for (int i = 0; i < p_; ++i) {
      const Dev &d = dev_[size_t(i)];
      if (i == was)
        continue;
      // A model that may be doubted (no seed) is tested for a probe again
      // at every execution from its next one on (choose_mode): held only
      // until then.  A provisional() one from d.next_reprobe (it may become
      // provisional: young, or from its first execution only); an
      // unconfirmed() one from the 16th at the earliest, and only while its
      // probe is predicted within the chosen arm's estimate -- which the
      // hold keeps under `others / kFarAhead`.
      // One due already that did not come stays out of the hold only where
      // its other tests cannot pass within it while the chosen arm's
      // estimate stays under the hold's limit, which is lowered for it as
      // far as the chosen arm's own estimate: a provisional one's
      // reprobe_not_within() (reprobe_free_limit()); an unconfirmed one's
      // probe predicted beyond the estimate, a host's not affordable within
      // the hold either (host_probe_affordable()).  A cold lud's GPU could
      // pay a probe again only at 7x the CPU alone's estimate, its probe
      // 4x it, and no execution of the CPU alone was held (hce-sim; a warm
      // run held 84%).
      if (!d.seed.known() && d.model.known()) {
        const bool may_be_provisional = cold_only(d) || young(d);
        const double probe = d.model.time(double(probe_size(d)));
        int at = kNoDueExecution;
        if (may_be_provisional)
          at = d.next_reprobe;
        else if (probe <= limit ||
                 (d.host && host_probe_affordable(d, probe, kSettledHold * limit)))
          at = std::max(d.next_reprobe, kFirstUnconfirmedReprobe);
        if (at > exec_)
          until = std::min<int64_t>(until, at);
        else if (may_be_provisional)
          limit = reprobe_free_limit(d, mine, limit, exec_ + kSettledHold);
        else if (d.host && host_probe_affordable(d, probe, kSettledHold * limit))
          return;
        else
          limit = std::min(limit, std::nextafter(probe, 0.0));
        if (limit < mine)
          return;
      }
      if (d.host && d.next_alone_probe > exec_)
        until = std::min<int64_t>(until, d.next_alone_probe);
    }
    settled_until_ = until;
    settled_solo_ = was;
    settled_trip_ = W_;
    settled_limit_ = limit;
  }

  // The largest chosen-arm estimate in [mine, limit] under which device d's
  // provisional probe again cannot come before execution `until`
  // (reprobe_not_within(), false at most above some estimate); under `mine`
  // where it may come at `mine` already.
  double reprobe_free_limit(const Dev &d, double mine, double limit,
                            int64_t until) const {
    if (reprobe_not_within(d, limit, until))
      return limit;
    if (!reprobe_not_within(d, mine, until))
      return 0;
    double lo = mine, hi = limit; // not within at lo, within at hi
    for (int k = 0; k < 16 && hi > 1.01 * lo; ++k) {
      const double mid = std::sqrt(lo * hi);
      (reprobe_not_within(d, mid, until) ? lo : hi) = mid;
    }
    return lo;
  }

  // Whether a provisional model's probe again (choose_mode) cannot come
  // before execution `until` while the chosen arm's estimate stays at most
  // `chosen`: it starts too late for any such estimate, or it cannot pay
  // over a horizon of 3 `until` executions at trip counts down to 0.9 W
  // (reprobe_pays() grows with the estimate and the horizon, and falls
  // with the trip count).
  bool reprobe_not_within(const Dev &d, double chosen, int64_t until) const {
    constexpr double kLowestTrip = 1 - Arm::kNearTrip;
    return starts_too_late(d, chosen) ||
           !reprobe_pays(d, chosen / kLowestTrip,
                         int(std::min<int64_t>(3 * until, 1 << 30)));
  }

  // choose_mode() for an execution note_settled_alone() covers: the device
  // alone again, its arm's estimate and prediction updated, nothing else.
  bool keeps_settled_alone(int was, bool measured_now) {
    if (exec_ >= settled_until_ || was != settled_solo_ || !measured_now ||
        std::abs(double(W_ - settled_trip_)) >
            Arm::kNearTrip * double(std::max(W_, settled_trip_)))
      return false;
    Arm &m = arm(was);
    const double pr = solo_model(dev_[size_t(was)]).time(double(W_));
    const double near = m.n ? m.near_wall(W_) : 0;
    const double mine = near > 0 ? near : m.excess() * pr;
    if (!(mine > 0) || mine > settled_limit_)
      return false;
    m.stale_wait = 0; // (as a full choice that keeps the best does)
    choice_.est[size_t(was + 1)] = mine;
    pred_[size_t(was + 1)] = pr;
    choice_.measured[size_t(was + 1)] = m.n;
    for (Dev &d : dev_)
      d.reprobe = false;
    solo_ = was;
    measured_pred_ = pr;
    measured_trip_ = W_;
    settling_ = false;
    mode_measured_ = true;
    first_measured_ = false;
    return true;
  }

  // One contiguous block per device in device order: the EFT split of W when
  // every device has a model, the initial ratios otherwise.
  // A model of chunks that take `factor` times as long.
  static Model rescaled(Model m, double factor) {
    m.o *= factor;
    m.c *= factor;
    return m;
  }

  // Whether this execution runs a device that lends threads (co_speed < 1)
  // beside an accelerator, by idle() as the runtime reads it.
  bool lends() const {
    if (std::none_of(dev_.begin(), dev_.end(),
                     [](const Dev &d) { return d.co_speed < 1; }))
      return false; // (no split per execution where nothing is lent)
    bool lender = false, accelerator = false;
    for (int i = 0; i < p_; ++i) {
      if (dev_[size_t(i)].co_speed >= 1 && dev_[size_t(i)].host)
        continue;
      if (idle(i))
        continue;
      lender = lender || dev_[size_t(i)].co_speed < 1;
      accelerator = accelerator || !dev_[size_t(i)].host;
    }
    return lender && accelerator;
  }

  // Puts every device's model at its co-execution speed (`co`) or at 1.
  void use_co_speed(bool co) {
    for (Dev &d : dev_) {
      const double s = co ? d.co_speed : 1;
      if (s != d.speed && d.model.known())
        d.model = rescaled(d.model, d.speed / s);
      d.speed = s;
    }
  }

  void plan_blocks(const SchedParams &params) {
    std::vector<double> w(p_, 0);
    bool all_known = p_ > 0 && !reprobe_;
    for (const Dev &d : dev_)
      all_known = all_known && d.model.known();
    if (all_known) {
      std::vector<double> a(p_, 0);
      std::vector<double> s = split(double(W_), a);
      for (int i = 0; i < p_; ++i)
        w[i] = s[i];
    } else {
      w = initial_ratios(params);
    }
    // The EFT split may give a device nothing (idle(): left out); the
    // initial ratios give every device an iteration when W >= p.
    std::vector<bool> active(p_, true);
    std::vector<int64_t> sizes =
        all_known ? split_sizes(W_, w, active) : split_sizes_each(W_, w, active);
    int64_t lb = 0;
    for (int i = 0; i < p_; ++i) {
      dev_[i].block = {lb, lb + sizes[i]};
      lb += sizes[i];
    }
  }

  // EFT split of R iterations among the active modelled devices, given the
  // seconds a[j] until each is free: shares s_j = max(0, T - a_j - o_j) / c_j
  // with sum s_j = R.  Unmodelled or inactive devices get 0.
  // The result lives in the scheduler (valid until the next split): this
  // runs several times per execution, and allocating cost a resident
  // region's execution more than the split itself.
  const std::vector<double> &split(double R, const std::vector<double> &a) const {
    std::vector<int> &idx = split_idx_;
    idx.clear();
    for (int j = 0; j < p_; ++j)
      if (dev_[j].active && dev_[j].model.known())
        idx.push_back(j);
    std::vector<double> &s = split_shares_;
    s.assign(size_t(p_), 0);
    if (idx.empty() || R <= 0)
      return s;
    // A device whose share is under its lanes still takes the time of its
    // lanes.  If that ends after T, it takes none and the others' shares
    // grow -- unless without it they would finish after it could have done
    // its lanes: then it takes its lanes (fewer cost as much) and the others
    // the rest (the H100's nbody: 16384 bodies on the GPU take the 4.7 ms of
    // its lanes, the CPU alone 150 ms).  Repeat until no such device is left.
    for (;;) {
      split_among(R, a, idx, s);
      auto late = std::find_if(idx.begin(), idx.end(), [&](int j) {
        const Model &m = dev_[j].model;
        return s[j] > 0 && s[j] < m.lanes && a[j] + m.time(s[j]) > finish_time_ + 1e-12;
      });
      if (late == idx.end() || idx.size() == 1)
        return s;
      const int j = *late;
      const Model &m = dev_[j].model;
      const double ready = a[j] + m.time(m.lanes); // its lanes done
      idx.erase(late);
      split_among(R, a, idx, s);
      if (finish_time_ <= ready + 1e-12)
        continue; // the others finish first without it
      const double lanes = std::min(R, m.lanes);
      if (R > lanes) {
        split_among(R - lanes, a, idx, s);
      } else {
        s.assign(size_t(p_), 0);
        finish_time_ = 0;
      }
      s[j] = lanes;
      finish_time_ = std::max(finish_time_, ready);
      return s;
    }
  }

  // The EFT split of R among the devices `idx` (see split()); sets
  // finish_time_ to T.
  void split_among(double R, const std::vector<double> &a, const std::vector<int> &among,
                   std::vector<double> &s) const {
    s.assign(size_t(p_), 0);
    std::vector<int> &idx = split_order_;
    idx = among;
    auto start = [&](int j) { return a[j] + dev_[j].model.o; };
    std::sort(idx.begin(), idx.end(), [&](int x, int y) { return start(x) < start(y); });
    // Add devices in order of when they can start; T is where the rate
    // sum of the devices started so far covers R.
    double rate = 0, covered = 0, T = start(idx[0]);
    size_t k = 0;
    for (; k < idx.size(); ++k) {
      const double next_start = start(idx[k]);
      const double reach = covered + rate * (next_start - T);
      if (rate > 0 && reach >= R)
        break;
      covered = rate > 0 ? reach : covered;
      T = next_start;
      rate += 1 / dev_[idx[k]].model.c;
    }
    T += (R - covered) / rate;
    finish_time_ = T;
    for (int j : idx)
      s[j] = std::max(0.0, (T - start(j)) / dev_[j].model.c);
  }

  double free_in(int j, double t) const { return std::max(0.0, dev_[j].busy_until - t); }

  double eft_share(int device, int64_t R, double t) const {
    std::vector<double> &a = free_in_;
    a.resize(size_t(p_));
    for (int j = 0; j < p_; ++j)
      a[j] = free_in(j, t);
    return split(double(R), a)[device];
  }

  const std::vector<double> &zeros() const {
    zeros_.assign(size_t(p_), 0);
    return zeros_;
  }

  // Whether `device` would finish one more iteration before every other
  // modelled device: someone must take work when every share rounds to 0.
  bool earliest_for_one(int device, double t) const {
    auto finish = [&](int j) { return free_in(j, t) + dev_[j].model.time(1); };
    for (int j = 0; j < p_; ++j)
      if (j != device && dev_[j].active && dev_[j].model.known() &&
          finish(j) < finish(device))
        return false;
    return true;
  }

  // `size` iterations for `device`: from the head of its own block, else
  // from the tail of the block that would take its owner longest.
  // With `leave_learning`, a host that has not started keeps its learning
  // range (lanes_probe_takes_all()).
  Range take(int device, int64_t size, bool leave_learning = false) {
    Range &own = dev_[device].block;
    if (size < own.size() && from_tail(device)) {
      Range r{own.ub - size, own.ub};
      own.ub = r.lb;
      return r;
    }
    if (!own.empty()) {
      Range r{own.lb, std::min(own.ub, own.lb + size)};
      own.lb = r.ub;
      // More than its block: the tail of the block just before it, in the
      // same chunk (one launch, not two: the H100's nbody GPU took its
      // half, 4.7 ms, then the CPU's, 4.7 ms again).
      if (r.size() < size && own.empty())
        for (int j = 0; j < p_; ++j)
          if (Range &b = dev_[j].block; j != device && !b.empty() && b.ub == r.lb) {
            const int64_t keep =
                leave_learning && dev_[size_t(j)].host
                    ? std::max(kept_for(j),
                               std::min(b.size(), std::max<int64_t>(
                                                      0, host_learning_range(dev_[j]) -
                                                             dev_[j].assigned)))
                    : kept_for(j);
            const int64_t extra = std::min(size - r.size(), b.size() - keep);
            if (extra > 0) {
              b.ub -= extra;
              r.lb = b.ub;
            }
            break;
          }
      return r;
    }
    int victim = -1;
    double worst = -1;
    for (int j = 0; j < p_; ++j) {
      const Dev &v = dev_[j];
      if (v.block.size() <= kept_for(j))
        continue;
      // An owner that is gone or unmodelled leaves its block to thieves
      // first; otherwise the block's predicted time decides.
      double cost = !v.active || !v.model.known()
                        ? std::numeric_limits<double>::infinity()
                        : v.model.c * double(v.block.size());
      if (cost > worst) {
        worst = cost;
        victim = j;
      }
    }
    if (victim < 0)
      return {0, 0};
    Range &b = dev_[victim].block;
    Range r{std::max(b.lb + kept_for(victim), b.ub - size), b.ub};
    b.ub = r.lb;
    return r;
  }

  // An accelerator of a region that maps nothing takes its block's chunks
  // from the tail while another device's block ends where its own starts:
  // its last chunk of the block is then next to that block's tail, which
  // the same launch takes too (take()).  mcpi's H100 GPU, from the head,
  // ran its block's rest and the CPU's tail as two kernels, ~0.1 ms of
  // drain each (call MB).  Not where chunks copy rows: the two would be
  // one chunk whose copies no longer overlap the other's kernel (hce-sim:
  // cold blackscholes 1.06-1.10x as long, gemm 1.03-1.08x, session 80).
  bool from_tail(int device) const {
    const Dev &d = dev_[size_t(device)];
    if (d.host || maps_rows_)
      return false;
    for (int j = 0; j < p_; ++j)
      if (j != device && !dev_[size_t(j)].block.empty() &&
          dev_[size_t(j)].block.ub == d.block.lb)
        return true;
    return false;
  }

  // The head of device j's block that thieves leave to it: its probe, while
  // it has no model or probes it again, and its last ask (in the last
  // execution it asked in) found its block taken (Dev::starved).
  int64_t kept_for(int j) const {
    const Dev &d = dev_[size_t(j)];
    return d.starved && d.active && d.assigned == 0 && needs_probe(d)
               ? std::min(d.block.size(), probe_size(d))
               : 0;
  }

  // What a host that has not started keeps of its block for its first
  // chunks: W/64, at least four times its lanes (enough sizes to fit a
  // model that is not its lanes' alone: without it hce-sim's cold lud fell
  // to 0.17 of the CPU alone, its CPU left with lanes-sized chunks).
  int64_t host_learning_range(const Dev &d) const {
    return std::max<int64_t>(W_ / kHostLearningShare, 4 * std::max<int64_t>(1, d.lanes));
  }

  // An accelerator's probe takes all but the hosts' learning ranges
  // (take()'s leave_learning) when its lanes cover the loop and no host has asked for
  // work yet, no device having a model: its one kernel costs what its block
  // would, and the hosts could not take more before it completes without
  // leaving it a second kernel.  hce-sim (the H200 profiles of 11-30 and
  // 12-01): cold nbody's forces ran its 16384 bodies in two GPU kernels of
  // 4.6 ms (its block, then the 7297 the CPU had not reached), 0.73 of the
  // GPU alone; in one, 1.03.  Not once a host has started: then the split
  // is a hedge against a false claim of lanes (see probe_size()).
  bool lanes_probe_takes_all(int device) const {
    const Dev &d = dev_[size_t(device)];
    if (d.host || d.lanes < W_)
      return false;
    for (int j = 0; j < p_; ++j) {
      const Dev &o = dev_[size_t(j)];
      if (o.model.known() || (o.host && asked_[size_t(j)]))
        return false;
    }
    return true;
  }

  // A cold accelerator's first chunk in a data region's lending execution
  // (lends_: its arrays staged through host threads, which
  // lends_in_data_region() allows from 192 MiB) takes all that the hosts
  // have not, but for the rest of their learning ranges.  Every row it
  // leaves them is an output it uploads before reading it in the next
  // execution, as many bytes as the inputs it would have uploaded to compute
  // the row itself: its uploads do not shrink, they come in more copies.  The
  // hosts keep what they ran while it prepared (its staging pool, 3-6 ms);
  // making them wait instead (branch eft-data-region-wait, call QB) was
  // neutral on the H200 and cost hce-sim's H100 11-24 profile, whose GPU
  // registers for 17 ms, 0.984 -> 0.955 on cold heat3d.  Call QH (H200, 12
  // paired rounds against main): cold jacobi2d 0.92x as long, heat3d 1.00x
  // (its medians 20.6 against 21.7 ms).  Only for the one accelerator:
  // several would share the uploads.  A wrong guess (a kernel slower than
  // the hosts) costs this one execution; from the next the models split it.
  bool first_upload_takes_all(int device) const {
    const Dev &d = dev_[size_t(device)];
    if (d.host || !data_region_ || !lends_ || d.seed.known() || d.exec_chunks > 0 ||
        (d.first_exec >= 0 && d.first_exec != exec_))
      return false;
    for (int j = 0; j < p_; ++j) {
      const Dev &o = dev_[size_t(j)];
      if (j != device && o.active && !o.host)
        return false;
    }
    return true;
  }

  // A probe: W/1024 iterations, at least the device's lanes (fewer cost as
  // much), at most W/(2p) -- or its lanes up to W/p, its block from equal
  // ratios: a probe of half as many would cost as much (the H100's nbody:
  // the GPU's 8192 bodies take the 4.7 ms of 4096).  Not more when its lanes
  // cover the whole loop, although a latency-bound kernel then runs twice in
  // the first execution (nbody cold, session 17 call EG: 11.3 ms against 6.0
  // warm): until this probe completes a false claim looks the same, and a
  // probe of all the host had not taken made the first execution of
  // SchedEft.AnAcceleratorWhoseLanesCoverTheLoopIsProbedWithItsBlock 1.33x
  // the balanced time instead of 1.02x (docs/schedulers.md, "Chunk sizes").
  int64_t probe_size(const Dev &d) const {
    const int64_t most = std::max(W_ / (2 * p_), std::min(d.lanes, W_ / std::max(1, p_)));
    return std::clamp<int64_t>(std::max(W_ / 1024, d.lanes), 1,
                               std::max<int64_t>(1, most));
  }

  std::function<double()> clock_; // SchedParams::clock
  std::function<int64_t(int)> wave_of_; // SchedParams::wave_of
  bool lends_ = false; // lends() at begin()
  bool data_region_ = false; // SchedParams::data_region
  bool maps_rows_ = true;    // SchedParams::maps_rows
  // This execution's accelerators retired and the host's team took back
  // the threads it lent them (lending()).
  bool lent_back_ = false;
  int p_ = 0;
  int64_t W_ = 0;
  std::vector<Dev> dev_;
  mutable double finish_time_ = 0; // T of the last split (seconds from now)
  mutable FitScratch fit_scratch_; // (alone_model() fits in const methods)
  // split()'s storage, kept between calls.
  mutable std::vector<double> split_shares_, zeros_, free_in_;
  mutable std::vector<int> split_idx_, split_order_;
  // Co-execution and each device alone, the arms of choose_mode()
  // (eft_arm.hpp).
  std::vector<Arm> arms_;          // [0] co-execution, [1 + i] device i alone
  std::vector<double> seed_walls_; // seed_mode() before arms_ exists
  std::vector<double> seed_counts_; // ... and the measurements each merges
  Arm &arm(int a) {
    Arm &m = arms_[size_t(a + 1)];
    if (m.seed_wall == 0 && a + 1 < int(seed_walls_.size())) {
      m.seed_wall = seed_walls_[size_t(a + 1)];
      m.seed_once = seed_counts_[size_t(a + 1)] > 0 && seed_counts_[size_t(a + 1)] < 1.5;
    }
    return m;
  }
  int solo_ = -1;        // the device running alone this execution, -1 = co-exec
  std::function<double()> register_bytes_of_; // SchedParams::register_bytes_of
  std::function<double()> host_fetch_bytes_of_; // SchedParams::host_fetch_bytes_of
  bool reprobe_ = false; // this execution probes a provisional model again
  int alone_probe_ = -1; // the device probed alone this execution (-1: none)
  int exec_ = 0, mode_since_ = 0;
  // note_settled_alone(): the device alone that holds until execution
  // settled_until_ (0: none), at trip counts near settled_trip_, while its
  // estimate stays within settled_limit_.
  int64_t settled_until_ = 0, settled_trip_ = 0;
  // This execution is one keeps_settled_alone() held (complete(): fit_stale).
  bool held_ = false;
  int settled_solo_ = -1;
  double settled_limit_ = 0;
  double site_wall_ = 0; // the walls of this site's executions so far
  // Exploration (unmeasured_within_budget()): one under way, the best arm's
  // estimate when it began, and what explorations cost beyond it so far.
  bool exploring_ = false;
  bool pick_stale_ = false; // unmeasured_within_budget() picked a stale winner
  double explore_best_ = 0, explore_spent_ = 0;
  // The exploration under way: its executions' walls beyond explore_best_
  // (its settling one's included), and whether the last execution ended it.
  double explore_excess_ = 0;
  bool explored_now_ = false;
  static constexpr double kExploreAbort = 3;
  int64_t alone_probe_chunk_ = 1; // plan_alone_probe(): each of its two chunks
  bool settling_ = true;
  bool mode_measured_ = false;  // this execution's wall measures its mode
  bool first_measured_ = false; // ... the first execution's, for the cache
  double measured_pred_ = 0;    // the predicted wall of this execution's arm
  int64_t measured_trip_ = 0;   // ... and its trip count
  static constexpr int kNoRetry = -2;
  int retry_after_ = 0, retry_from_ = kNoRetry;
  double exec_begin_ = 0, last_complete_ = 0;
  double exec_wall_ = 0; // ended(): the whole execution's, 0 until then
  double exec_one_time_ = 0; // ended(): the devices' one-time work in it
  // The last execution's wall: the runtime's whole one (ended()), or from
  // the scheduler's begin() to the last chunk (the simulator).
  // The wall the last execution measures arm `arm` by.  A device alone
  // does its one-time work (registering a data region's array it has staged
  // twice) in line with its chunks: its arm is measured without it, as the
  // next executions will run (warm kmeans' GPU alone measured 2.2 ms, 0.44
  // of them a registration, against a steady 1.3-1.5, and co-execution at
  // 1.45 ran on, call AA).  Beside other devices that work may overlap
  // theirs: co-execution's wall keeps it (on the safe side).
  double measured_wall(int arm) const {
    const double wall = exec_wall();
    return arm >= 0 ? std::max(wall - exec_one_time_, 0.25 * wall) : wall;
  }
  double exec_wall() const {
    return exec_wall_ > 0 ? exec_wall_ : last_complete_ - exec_begin_;
  }
  // What the last choose_mode() decided and from what (explain()).
  struct Choice {
    // held: keeps_settled_alone() kept the device alone; the other arms'
    // estimates are the last full choice's.
    bool reprobe = false, all_known = false, held = false;
    Deferral deferred; // host_probe_deferred()'s (none: all 0)
    int solo = -1, runner_up = -2, alone_probe = -1;
    std::vector<double> est;   // [0] co-execution, [1 + i] device i alone
    std::vector<int> measured; // each arm's measurements (n)
  } choice_;
  std::vector<double> pred_; // choose_mode()'s predictions, kept for their storage
  std::vector<bool> asked_;  // this execution: next() was called (gave_nothing)
};

} // namespace

std::unique_ptr<Scheduler> make_eft() { return std::make_unique<EftScheduler>(); }

} // namespace hce::sched
