// Private helpers shared by the inter-device schedulers (not part of the
// runtime's interface; see scheduler.hpp for that).
//
//  * integer splitting of a chunk by partition ratios with exact coverage
//    (the W_curr.i = W_curr * R_i step of Alg. 1 l.5 in
//    fdets-adets-inter-device-scheduling.txt, also used by static, quick,
//    split);
//  * the relative-speed update RV_i = V_i / sum_j V_j (Alg. 1 l.10-11) with
//    the rule that a device without a speed sample keeps its previous share;
//  * SyncChunkScheduler, the machinery of the synchronous chunk schedulers
//    (FDETS Alg. 1, Scogland's quick and split, static, FDETS Alg. 3): one
//    chunk at a time, split among the devices, the next chunk decided only
//    when every device has reported its share.
#pragma once

#include "sched/scheduler.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <string_view>
#include <vector>

namespace hce::sched {

// W/n when the caller gave 0: max(1, W/128), and never more than W.
int64_t default_initial_chunk(const SchedParams &params);

// params.ratios normalised to sum 1 over p devices; equal shares when empty,
// of the wrong length, or summing to <= 0.  Negative entries count as 0.
std::vector<double> initial_ratios(const SchedParams &params);
// The same into `out`, its storage reused (a scheduler's every execution).
void initial_ratios(const SchedParams &params, std::vector<double> &out);

// Splits `total` iterations among the devices with active[i] by ratios[i]
// (need not be normalised): floor(total * R_i) each (Alg. 1 l.5), the
// remainder going to the active device with the largest ratio (ties: the
// last such device) -- less than p iterations, cheapest on the fastest
// device; giving them to a 100x slower last device would unbalance every
// chunk.  Inactive devices get 0.  The sizes always sum to
// exactly `total` when some device is active (if every active ratio is 0 the
// split is equal).  Safe for total up to 2^62.
std::vector<int64_t> split_sizes(int64_t total, const std::vector<double> &ratios,
                                 const std::vector<bool> &active);
// The same into `out`, its storage reused.
void split_sizes(int64_t total, const std::vector<double> &ratios,
                 const std::vector<bool> &active, std::vector<int64_t> &out);

// split_sizes, then every active device with a positive ratio that got 0
// takes one iteration from the device with the largest share, when `total`
// covers one iteration for each such device: every device named gets work
// (issue 15; docs/schedulers.md, "Every device gets work").  A ratio of
// exactly 0 still means no share.
std::vector<int64_t> split_sizes_each(int64_t total, const std::vector<double> &ratios,
                                      const std::vector<bool> &active);
// The same, giving the iteration only to the devices marked in `needy` (a
// subset of the active ones: those that have not run at this site yet).
std::vector<int64_t> split_sizes_each(int64_t total, const std::vector<double> &ratios,
                                      const std::vector<bool> &active,
                                      const std::vector<bool> &needy);
// The same into `out`, its storage reused.
void split_sizes_each(int64_t total, const std::vector<double> &ratios,
                      const std::vector<bool> &active, const std::vector<bool> &needy,
                      std::vector<int64_t> &out);

// The devices split_sizes_each gives an iteration: active, ratio > 0.
int eligible_devices(const std::vector<double> &ratios, const std::vector<bool> &active);

// Who asked for work in this execution and who got some, for the
// schedulers that hand out chunks on demand (adets, hguided, logfit): a
// device that asked and found W taken by the devices that asked before it
// (a controller that starts late, behind an accelerator's per-execution
// preparation) is reported by gave_nothing(), counted as left_out in
// HCE_STATS like eft's (issue 15).  Nothing is held back for a late device:
// a reserve made the whole execution wait for it, a third of matadd's time
// on the H100 profile (hce-sim).
class AskLog {
public:
  void begin(int p);
  void asked(int device);
  void got(int device);
  bool gave_nothing(int device) const;

private:
  std::vector<bool> asked_, got_;
};

// New partition ratios from speeds (iterations/second, <= 0 = no sample).
// Alg. 1 l.10-11: R_i = V_i / sum_j V_j over the sampled devices; a device
// without a sample keeps its old share of the active total, the sampled
// devices share the rest in proportion to their speeds.  Inactive devices
// get 0.  The result sums to 1 over the active devices (0 everywhere if none
// is active).
std::vector<double> ratios_from_speeds(const std::vector<double> &old_ratios,
                                       const std::vector<double> &speeds,
                                       const std::vector<bool> &active);

// Normalises `ratios` over the active devices (equal if they sum to <= 0).
std::vector<double> normalise(std::vector<double> ratios,
                              const std::vector<bool> &active);
// The same in place.  (An `active` shorter than `ratios` counts the rest
// active.)
void normalise_in_place(std::vector<double> &ratios, const std::vector<bool> &active);

// "The chunk executed at the fastest speed" (FDETS/ADETS re-execution rule):
// the index of the largest chunk among those whose speed is within a factor
// (1 + alpha) of the best, -1 if none has a positive speed.  Ties go to the
// larger chunk: with a flat speed curve the timer noise of a tiny tail chunk
// must not reset the chunk size of the next execution.
int fastest_chunk(const std::vector<int64_t> &sizes, const std::vector<double> &speeds,
                  double alpha);

// Overflow-free floor(a * b / c) for non-negative a, b and positive c.
int64_t mul_div(int64_t a, int64_t b, int64_t c);

// One synchronous chunk ("step"/"round") of a SyncChunkScheduler.
struct RoundRecord {
  int64_t lb = 0;              // first iteration of the chunk
  int64_t size = 0;            // W_curr
  std::vector<double> ratios;  // R_i used to split it
  std::vector<int64_t> shares; // W_curr.i as split
  double seconds = 0;          // T_curr = max_i T_curr.i (0 if unmeasured)
  double coop_speed = 0;       // V_curr = W_curr / T_curr (0 if unmeasured)
};

// Base of the synchronous schedulers.  next(d) hands d its share of the
// current chunk, Wait while d's share is taken and some device has not
// reported, and the next chunk is planned once every device has reported
// (zero-size shares count as reported; a dropped device's in-flight share
// counts as reported, the runtime re-runs it).  A dropped device's untaken
// share is split among the remaining devices by the current ratios.
// The first chunk of an execution has at least one iteration per device
// with a positive ratio that has not run at this site yet, and gives each
// of them one (split_sizes_each): with a chunk of W/128 < p iterations the
// papers' split would give every iteration of it to one device, and a
// device that never runs is never measured (issue 15).  A device that has
// run gets what the ratios give it, 0 included.
class SyncChunkScheduler : public Scheduler {
public:
  void begin(const SchedParams &params) final;
  Decision next(int device) final;
  void complete(int device, Range range, double seconds) final;
  void drop(int device) final;
  std::vector<double> current_ratios() const override { return ratios_; }
  // Planned to get nothing in this execution: a ratio of 0 (the user's), or
  // fewer iterations than devices and no share of the only chunk.
  bool idle(int device) const override;

  // Introspection for tests and statistics.
  const std::vector<RoundRecord> &rounds() const { return rounds_; }
  int executions() const { return executions_; }

protected:
  // Called at the start of every execution, after the common state is reset
  // (ratios_ hold the previous execution's last ratios, or the initial ones
  // on the first execution).  Returns the size of the first chunk.
  virtual int64_t on_begin() = 0;
  // Called when every device has reported the chunk rounds_.back().  The
  // ratios have already been updated (Alg. 1 l.10-11) unless
  // update_ratios_each_round() is false.  Returns the size of the next
  // chunk (clamped by the caller to [1, remaining]); ignored when nothing
  // remains.
  virtual int64_t on_round_done(const RoundRecord &round) = 0;
  // Called when the last chunk of an execution has been reported.
  virtual void on_execution_done() {}
  virtual bool update_ratios_each_round() const { return true; }

  SchedParams params_;
  int p_ = 0;
  int64_t W_ = 0;
  int64_t assigned_ = 0;                 // iterations put into chunks so far (W_f
                                         // once the current chunk is reported)
  std::vector<double> ratios_;           // R_i
  std::vector<double> speeds_;           // latest V_curr.i, 0 = never measured
  std::vector<bool> active_;             // not dropped
  int executions_ = 0;                   // begin() calls so far
  std::vector<RoundRecord> rounds_;      // this execution's chunks
  std::vector<RoundRecord> prev_rounds_; // the previous execution's chunks
  std::vector<double> initial_;          // initial_ratios(params_), this execution's
  bool finished() const { return finished_; }
  // Active devices that have not been given an iteration at this site yet
  // (the ones the first chunk must give one).
  std::vector<bool> unserved() const;
  void unserved(std::vector<bool> &out) const;

private:
  void start_round(int64_t size);
  void maybe_finish_round();
  bool round_open() const;

  std::vector<std::deque<Range>> pending_;      // untaken shares per device
  std::vector<std::vector<Range>> outstanding_; // taken, not reported
  std::vector<int64_t> round_iters_;            // reported iterations this round
  std::vector<double> round_secs_;              // reported seconds this round
  bool finished_ = true;                        // no more chunks this execution
  bool have_ratios_ = false;
  std::vector<bool> served_ever_; // given an iteration at this site
  // Storage reused from execution to execution: the records of the
  // execution before the previous one (their vectors), start_round's
  // unserved devices.  (Made and freed anew, they were a fifth of static's
  // ~20k instructions an execution on lud's 511, the CPU alone.)
  std::vector<RoundRecord> spare_rounds_;
  std::vector<bool> needy_;
};

// The scheduler `auto` chose for its current execution ("" if s is not an
// auto scheduler or has not begun).
std::string_view auto_choice(const Scheduler &s);

// Factories, one per scheduler file.
std::unique_ptr<Scheduler> make_static();
std::unique_ptr<Scheduler> make_quick();
std::unique_ptr<Scheduler> make_split();
std::unique_ptr<Scheduler> make_hguided();
std::unique_ptr<Scheduler> make_logfit();
std::unique_ptr<Scheduler> make_fdets();
std::unique_ptr<Scheduler> make_fdets_incremental();
std::unique_ptr<Scheduler> make_adets();
std::unique_ptr<Scheduler> make_eft();
std::unique_ptr<Scheduler> make_auto();

} // namespace hce::sched
