// adets: Asynchronous-based Dynamic and Elastic Task Scheduling.
//
// Wan, Zheng, Yuan, IEEE Access 9, 2021
// (fdets-adets-inter-device-scheduling.txt), §III-C, Algorithm 2; and, when
// params.lookahead is set, the modified ADETS with the three-way pipeline of
// hce-runtime-cooperative-execution.txt, Algorithm 4.  Comments "Alg. 2 l.N"
// and "Alg. 4 l.N" point at the lines they implement.
//
// Every device takes its own chunk from the shared iteration space as soon as
// it is idle; the size of its next chunk follows its own speed (double when
// it got faster by more than alpha, keep, halve).  Near the end
// (W_r <= sum_j W_curr.j) a device gets W_r * RV_i so that all devices finish
// together (Alg. 2 l.12-14).
//
// Pipelined (Alg. 4): next(d) may be called while d computes a chunk, to
// upload the following one early, so the size of chunk k+2 is decided when
// chunk k completes, from V_prev.i, V_curr.i and the sizes of chunks k and
// k+1 (already assigned): (W_curr+W_next)/2 when the speed changed by at most
// alpha, W_curr+W_next when it rose, (W_curr+W_next)/4 when it fell.
//
// Re-execution: Alg. 2's text uses the size of the fastest chunk of the
// previous execution as the first and second chunk sizes; Alg. 4 l.7-8 does it
// per device (W_fs.i).  We use the per-device form in both modes: the
// fastest chunk overall is usually an accelerator's and would be far too big
// for the CPU.
//
// Deviations (documented in docs/schedulers.md): chunk sizes are at least 1;
// the halving rules stop at max(1, (W/n)/8) -- with a per-chunk overhead a
// halved chunk runs slower, which halves it again, and at size 1 the speed
// stops changing so the size would stay 1 for the rest of the loop; a
// once measured, a device never gets more than its share of what is left,
// W_r * RV_i (the quantity of Alg. 2 l.14), so a very slow device cannot
// take a chunk that ends after the others have finished everything; a
// chunk cut short by a clamp (l.29-31, the end rule, or W_r) does not feed
// the speed rules (its size was not the rule's choice) -- the next chunk
// goes back to the unclamped size;
// in pipelined mode the end-of-space rule of Alg. 2 l.12-14 is applied when
// the chunk is handed out (Alg. 4 drops it, which the HCE paper notes costs
// balance); devices without a speed sample count with V = 0 in RV_i, as in
// the paper (V_curr.i is initialised to 0, Alg. 2 l.1); a device that asks
// after Alg. 2 l.4-7 has handed out all of W to the others (one that asks
// late) is reported by gave_nothing() (issue 15; AskLog), never waited for.
#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

namespace hce::sched {
namespace {

class AdetsScheduler final : public Scheduler {
public:
  std::string_view name() const override { return "adets"; }

  void begin(const SchedParams &params) override {
    params_ = params;
    p_ = std::max(0, params.num_devices);
    W_ = std::max<int64_t>(0, params.iterations);
    c_ = default_initial_chunk(params); // W/n
    min_chunk_ = std::max<int64_t>(1, c_ / 8);
    // The previous execution's W_fs.i (its chunk of highest speed).
    prev_fastest_.assign(p_, 0);
    if (static_cast<int>(dev_.size()) == p_)
      for (int i = 0; i < p_; ++i) {
        int f = fastest_chunk(dev_[i].done_sizes, dev_[i].done_speeds, params.alpha);
        if (f >= 0)
          prev_fastest_[i] = dev_[i].done_sizes[f];
      }
    dev_.assign(p_, Dev{});
    for (int i = 0; i < p_; ++i) {
      Dev &d = dev_[i];
      // Alg. 2 l.1 / Alg. 4 l.4-8: W/n, or W_fs.i on re-execution.
      d.init = prev_fastest_[i] > 0 ? prev_fastest_[i] : c_;
      d.w_next = d.target = d.init;
      d.plan = {d.init, d.init, d.init}; // W_curr = W_next = W_next_next
    }
    assigned_ = 0; // W_f (assigned, Alg. 2 l.6) = W_a (Alg. 4 l.11)
    asks_.begin(p_);
  }

  Decision next(int device) override {
    asks_.asked(device);
    if (device < 0 || device >= p_ || !dev_[device].active || assigned_ >= W_)
      return Decision::done(); // Alg. 2 l.3: while W_r > 0
    Dev &d = dev_[device];
    const int64_t w_r = W_ - assigned_;
    int64_t size;
    if (params_.lookahead) {
      // Alg. 4 l.10/l.14: the chunk planned for this position.
      size = d.issued < d.plan.size() ? d.plan[d.issued] : d.plan.back();
      // Alg. 2 l.12-14 end-of-space rule, applied at hand-out time.
      const int64_t sum_curr = sum_current();
      if (sum_curr > 0 && w_r <= sum_curr)
        size = std::min(size, end_share(device, w_r));
    } else {
      size = d.w_next; // Alg. 2 l.4: W_curr.i = W_next.i
    }
    // Fair-share cap (extension): never more than the device's share of all
    // that is left, W_r * RV_i, once it has a speed sample -- a device 100x
    // slower must not take a second W/n it cannot finish before the others
    // finish everything.
    if (d.v_curr > 0)
      size = std::min(size, end_share(device, w_r));
    size = std::clamp<int64_t>(size, 1, w_r); // never more than is left
    asks_.got(device);
    d.reduced = size < d.target; // cut short by l.29-31 / l.12-14 / W_r
    d.w_curr = size;             // Alg. 2 l.4
    const int64_t lb = assigned_;
    assigned_ += size; // Alg. 2 l.5-7 (W_f += W_curr.i, W_r = W - W_f)
    ++d.issued;
    d.inflight.push_back({lb, lb + size});
    return Decision::run(lb, lb + size);
  }

  void complete(int device, Range range, double seconds) override {
    if (device < 0 || device >= p_)
      return;
    Dev &d = dev_[device];
    auto it = std::find(d.inflight.begin(), d.inflight.end(), range);
    if (it == d.inflight.end() || !d.active)
      return;
    d.inflight.erase(it);
    const int64_t size = range.size();
    const double t = std::max(seconds, 1e-12);
    d.v_prev = d.v_curr;                      // Alg. 2 l.10, Alg. 4 l.42
    d.v_curr = static_cast<double>(size) / t; // Alg. 2 l.11, Alg. 4 l.36
    ++d.completed;
    d.done_sizes.push_back(size); // for W_fs.i of the next execution
    d.done_speeds.push_back(d.v_curr);
    const double a = params_.alpha;
    const int64_t w_r = W_ - assigned_;
    if (params_.lookahead) {
      // Chunk k = d.completed just finished; decide chunk k+2.
      const size_t k = static_cast<size_t>(d.completed);
      if (d.v_prev > 0) { // Alg. 4 l.37-38
        const int64_t w_curr = size;
        const int64_t w_next = k < d.plan.size() ? d.plan[k] : size;
        const int64_t sum = w_curr + w_next;
        int64_t nn;
        if (std::abs(d.v_curr - d.v_prev) <= d.v_prev * a)
          nn = sum / 2; // similar speed
        else if (d.v_curr > d.v_prev)
          nn = sum; // faster
        else
          nn = std::max(sum / 4, min_chunk_); // slower
        nn = std::min(nn, w_r);               // Alg. 4 l.40
        nn = std::max<int64_t>(nn, 1);
        if (d.plan.size() > k + 1)
          d.plan[k + 1] = nn;
        else
          d.plan.push_back(nn); // Alg. 4 l.41: W_next = W_next_next
      } else if (d.plan.size() <= k + 1) {
        d.plan.push_back(d.plan.back()); // W_next_next keeps its value
      }
      return;
    }
    const int64_t sum_curr = sum_current();
    if (w_r <= sum_curr) {               // Alg. 2 l.12
      d.w_next = end_share(device, w_r); // l.13-14: W_r * RV_i
    } else {
      if (d.completed == 1) { // l.16-17: first step -> W/n again
        d.target = d.init;
      } else if (!d.reduced) {
        // l.19-27 on W_curr.i (== target: the chunk was not cut short)
        if (d.v_curr > d.v_prev * (1 + a)) // l.19-21
          d.target = d.w_curr * 2;
        if (std::abs(d.v_curr - d.v_prev) <= d.v_prev * a) // l.22-24
          d.target = d.w_curr;
        if (d.v_curr < d.v_prev * (1 - a)) // l.25-27
          d.target = std::max(d.w_curr / 2, min_chunk_);
      } // else: a cut-short chunk says nothing about its size; keep target
      d.w_next = d.target;
      if (d.w_next > w_r - sum_curr) // l.29-31
        d.w_next = w_r - sum_curr;
    }
    d.w_next = std::max<int64_t>(1, d.w_next);
  }

  void drop(int device) override {
    if (device < 0 || device >= p_)
      return;
    dev_[device].active = false;   // its in-flight chunk is re-run by the
    dev_[device].inflight.clear(); // runtime; the rest stays in the pool
  }

  bool gave_nothing(int device) const override { return asks_.gave_nothing(device); }

  std::vector<double> current_ratios() const override {
    std::vector<double> v(p_, 0.0);
    std::vector<bool> act(p_, false);
    for (int i = 0; i < p_; ++i) {
      v[i] = dev_[i].v_curr;
      act[i] = dev_[i].active;
    }
    return ratios_from_speeds(initial_ratios(params_), v, act);
  }

private:
  struct Dev {
    bool active = true;
    int64_t init = 1;     // first (and second) chunk size
    int64_t w_next = 1;   // W_next.i (Alg. 2)
    int64_t target = 1;   // W_next.i before the clamps of l.12-14 / l.29-31
    bool reduced = false; // the last chunk was cut below target
    int64_t w_curr = 0;   // W_curr.i: size of the last chunk handed out
    double v_curr = 0, v_prev = 0;
    int64_t completed = 0;
    std::deque<Range> inflight;
    std::vector<int64_t> plan; // Alg. 4: sizes of chunks 1, 2, 3, ...
    size_t issued = 0;
    std::vector<int64_t> done_sizes; // this execution's chunks and speeds
    std::vector<double> done_speeds;
  };

  // sum_j W_curr.j over the devices still taking part.
  int64_t sum_current() const {
    int64_t s = 0;
    for (const Dev &d : dev_)
      if (d.active)
        s += d.w_curr;
    return s;
  }

  // Alg. 2 l.13-14: W_r * RV_i, RV_i = V_i / sum_j V_j (latest speeds).
  int64_t end_share(int device, int64_t w_r) const {
    double vsum = 0;
    int nactive = 0;
    for (const Dev &d : dev_)
      if (d.active) {
        vsum += d.v_curr;
        ++nactive;
      }
    double rv = vsum > 0 ? dev_[device].v_curr / vsum : 1.0 / std::max(1, nactive);
    auto s = static_cast<int64_t>(std::floor(static_cast<long double>(w_r) * rv));
    return std::max<int64_t>(1, s);
  }

  SchedParams params_;
  int p_ = 0;
  int64_t W_ = 0, c_ = 1, assigned_ = 0;
  int64_t min_chunk_ = 1; // floor of the halving rules: max(1, (W/n)/8)
  std::vector<Dev> dev_;
  std::vector<int64_t> prev_fastest_;
  AskLog asks_; // gave_nothing()
};

} // namespace

std::unique_ptr<Scheduler> make_adets() { return std::make_unique<AdetsScheduler>(); }

} // namespace hce::sched
