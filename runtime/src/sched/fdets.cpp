// fdets: Feedback-based Dynamic and Elastic Task Scheduling.
//
// Wan, Zheng, Yuan, "Efficient Inter-Device Task Scheduling Schemes for
// Multi-Device Co-Processing of Data-Parallel Kernels on Heterogeneous
// Systems", IEEE Access 9, 2021 (fdets-adets-inter-device-scheduling.txt),
// §III-B, Algorithm 1.  Line numbers in the comments are Algorithm 1's.
//
// The iteration space is executed chunk by chunk; every chunk W_curr is split
// among the p devices by the partition ratios R_i (W_curr.i = W_curr * R_i),
// and only when every device has reported its share are the ratios updated
// to the relative speeds and the next chunk size chosen by comparing the
// cooperative speeds V_curr / V_prev and the sizes W_curr / W_prev /
// W_prev_prev (double, keep or halve).  The synchronous mechanics (shares,
// Wait, drop) live in SyncChunkScheduler (common.cpp).
//
// Re-execution (end of §III-B): "FDETS finds a chunk executed at the fastest
// speed from the previous execution of the kernel, the partition ratios
// corresponding to that chunk are used as the initial partition ratios, and
// the size of that chunk is used as the sizes of the first and second
// chunks."  We take the ratios that chunk was split with (the split that
// achieved the best cooperative speed).
//
// Also here: fdets_inc, the modified FDETS with incremental data transfer of
// hce-runtime-cooperative-execution.txt, Algorithm 3: every execution is one
// chunk W split by R_curr, and the ratios are decided one execution ahead
// (R_curr of execution t+1 is computed at the end of execution t-1), so the
// transfer planner knows the next partition before the current one ends.
#include "common.hpp"

#include <algorithm>
#include <cmath>

namespace hce::sched {
namespace {

// Index of the chunk with the highest cooperative speed (ties within alpha
// go to the larger chunk), -1 if none was measured.
int fastest_round(const std::vector<RoundRecord> &rounds, double alpha) {
  std::vector<int64_t> sizes;
  std::vector<double> speeds;
  for (const RoundRecord &r : rounds) {
    sizes.push_back(r.size);
    speeds.push_back(r.coop_speed);
  }
  return fastest_chunk(sizes, speeds, alpha);
}

class FdetsScheduler final : public SyncChunkScheduler {
public:
  std::string_view name() const override { return "fdets"; }

  // Between executions these are the ratios the next execution starts with
  // (the fastest chunk's), which the incremental-transfer planner needs.
  std::vector<double> current_ratios() const override {
    if (finished()) {
      int f = fastest_round(rounds_, params_.alpha);
      if (f >= 0 && static_cast<int>(rounds_[f].ratios.size()) == p_)
        return normalise(rounds_[f].ratios, std::vector<bool>(p_, true));
    }
    return ratios_;
  }

protected:
  int64_t on_begin() override {
    const int64_t c = default_initial_chunk(params_); // W/n
    int64_t first = c, second = 2 * c;                // l.1, l.16
    int f = executions_ > 1 ? fastest_round(prev_rounds_, params_.alpha) : -1;
    if (f >= 0) { // re-execution: learn from the fastest chunk
      const RoundRecord &fs = prev_rounds_[f];
      if (static_cast<int>(fs.ratios.size()) == p_)
        ratios_ = normalise(fs.ratios, active_);
      first = second = std::max<int64_t>(1, fs.size);
    }
    // Deviation (issue 15): the first chunk holds one iteration per device
    // that has not run at this site yet (SyncChunkScheduler gives each
    // one), and the second is not smaller.
    first = std::max<int64_t>(first, eligible_devices(ratios_, unserved()));
    second = std::max(second, first);
    second_ = second;
    // l.1: W_f = 0, W_r = W, W_prev = 0, W_curr = 0, W_next = W/n,
    //      V_curr = 0, j = 1
    w_prev_ = w_curr_ = 0;
    w_next_ = std::min(first, std::max<int64_t>(1, W_));
    v_curr_ = v_prev_ = 0;
    j_ = 1;
    shift(); // l.3
    return w_curr_;
  }

  int64_t on_round_done(const RoundRecord &r) override {
    // l.10-11 (R_i = RV_i) were done by the base class.
    v_prev_ = v_curr_; // l.12
    // l.13-14: V_curr = W_curr / T_curr, T_curr = max_i T_curr.i.  A chunk
    // with no timing (all shares dropped) keeps the previous speed.
    v_curr_ = r.coop_speed > 0 ? r.coop_speed : v_prev_;
    const double a = params_.alpha;
    if (j_ == 1) { // l.15-16
      w_next_ = second_;
    } else {
      if (v_curr_ > v_prev_ * (1 + a)) { // l.18: faster
        if (w_curr_ >= w_prev_)          // l.19-20
          w_next_ = w_curr_ * 2;
        else if (w_curr_ < w_prev_ && w_curr_ >= w_prev_prev_) // l.21-22
          w_next_ = w_curr_;
        else // l.23
          w_next_ = w_curr_ / 2;
      }
      if (std::abs(v_curr_ - v_prev_) <= v_prev_ * a) {    // l.25: similar
        if (w_curr_ == w_prev_ && w_curr_ >= w_prev_prev_) // l.26-27
          w_next_ = w_curr_ * 2;
        else // l.28
          w_next_ = w_curr_;
      }
      if (v_curr_ < v_prev_ * (1 - a)) { // l.30: slower
        if (w_curr_ < w_prev_)           // l.31-32
          w_next_ = w_curr_ * 2;
        else if (w_curr_ > w_prev_ && j_ == 2) // l.33-34
          w_next_ = w_prev_ / 2;
        else // l.35
          w_next_ = w_curr_ / 2;
      }
    }
    w_next_ = std::max<int64_t>(1, w_next_);       // halving never reaches 0
    const int64_t w_f = assigned_;                 // l.38: W_f = W_f + W_curr
    const int64_t w_r = W_ - w_f;                  // l.39
    if (w_next_ > w_r || w_r - w_next_ <= w_curr_) // l.40-42: end rule
      w_next_ = w_r;
    ++j_;    // l.43
    shift(); // l.3 of the next iteration of the while loop
    return w_curr_;
  }

private:
  // l.3: W_prev_prev = W_prev; W_prev = W_curr; W_curr = W_next.
  void shift() {
    w_prev_prev_ = w_prev_;
    w_prev_ = w_curr_;
    w_curr_ = w_next_;
  }

  int64_t w_prev_prev_ = 0, w_prev_ = 0, w_curr_ = 0, w_next_ = 0;
  int64_t second_ = 0;
  double v_prev_ = 0, v_curr_ = 0;
  int64_t j_ = 1;
};

// Algorithm 3 of hce-runtime-cooperative-execution.txt (line numbers are
// Algorithm 3's; the data-transfer lines 5-9 and 11-15 are the runtime's).
class FdetsIncrementalScheduler final : public SyncChunkScheduler {
public:
  std::string_view name() const override { return "fdets_inc"; }

  // During an execution: the ratios in use (R_curr); after it: the ratios
  // the next execution will use, already fixed (the point of Alg. 3).
  std::vector<double> current_ratios() const override { return ratios_; }

protected:
  int64_t on_begin() override {
    if (executions_ == 1 || static_cast<int>(r_curr_.size()) != p_) {
      r_curr_ = r_next_ = ratios_; // l.1: R_prev = 0, R_curr = R_next = R
    }
    // A device dropped earlier (ratio 0) gets its initial share back.
    std::vector<double> init = initial_ratios(params_);
    for (int i = 0; i < p_; ++i)
      if (!(r_curr_[i] > 0))
        r_curr_[i] = init[i];
    ratios_ = normalise(r_curr_, active_);
    return W_; // l.4: W_curr.i = W * R_curr.i (one chunk per execution)
  }
  int64_t on_round_done(const RoundRecord &) override { return W_; }
  bool update_ratios_each_round() const override { return false; }
  void on_execution_done() override {
    // l.16-17: V_curr.i = W_curr.i / T_curr.i (speeds_, by the base class)
    std::vector<double> rv = ratios_from_speeds(ratios_, speeds_, active_);
    r_curr_ = r_next_; // l.18: R_prev = R_curr, R_curr = R_next
    // l.21: R_next.i = V_curr.i / sum_j V_curr.j -- but only when some
    // device's share changed by more than alpha (FDETS's own notion of a
    // significant change, Alg. 1 l.25): moving the partition boundary costs
    // transfers, and timer noise on equal devices would move it every time.
    // Departure from the paper: the first execution's times also include
    // placing the data on the devices (windows, first uploads), so they are
    // not used; execution 3 keeps the initial ratios and execution 4 uses
    // those measured in execution 2.
    bool significant = executions_ > 1 && rv.size() != r_next_.size();
    for (size_t i = 0; executions_ > 1 && !significant && i < rv.size(); ++i)
      significant = std::abs(rv[i] - r_next_[i]) > params_.alpha * r_next_[i];
    if (significant)
      r_next_ = rv;
    ratios_ = r_curr_; // what the next execution will use
  }

private:
  std::vector<double> r_curr_, r_next_;
};

} // namespace

std::unique_ptr<Scheduler> make_fdets() { return std::make_unique<FdetsScheduler>(); }

std::unique_ptr<Scheduler> make_fdets_incremental() {
  return std::make_unique<FdetsIncrementalScheduler>();
}

} // namespace hce::sched
