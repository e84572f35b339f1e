// logfit: LogFit adaptive partitioning, simplified.
//
// Vilches, Asenjo, Navarro, Corbera, Gran, Garzarán, "Adaptive Partitioning
// for Irregular Applications on Heterogeneous CPU-GPU Chips", ICCS 2015, and
// Navarro, Corbera, Rodriguez, Vilches, Asenjo, "Heterogeneous parallel_for
// Template for CPU-GPU Chips", IJPP 47(2), 2019 (reference [31] of
// fdets-adets-inter-device-scheduling.txt, which compares against it).  The
// rules below follow those papers and the authors' public implementation
// (LogFitEngine.h of the LogFit repository); the paper text is not among our
// seeds.
//
// Each accelerator ("GPU") goes through three phases:
//  1. exploration: its chunk starts small (g0) and doubles after every
//     measured chunk, recording the throughput lambda(x) = x / t per chunk
//     size x.  The first chunk is not recorded (it carries the first upload
//     and the warm-up, the reference's H2D rule).  Exploration stops at the
//     "elbow", when two successive doublings did not raise the throughput
//     by more than alpha over the point before them, or when the doubled
//     chunk no longer fits in the loop.  An execution that runs out of work
//     first pauses the search: the next goes on from the same chunk, with
//     no new warm-up (complete());
//  2. stable: a logarithmic model lambda(x) = a ln x + b is fitted to the
//     points by least squares; the slope threshold is fixed at the first fit
//     so that the model's chunk equals the elbow chunk (threshold =
//     a / x_elbow, where d lambda / dx = a / x), and the accelerator gets
//     chunks of a / threshold -- after every chunk its point replaces the
//     previous one in the same power-of-two interval and the model is
//     refitted, so the chunk follows changes in the throughput curve;
//  3. final: when what remains does not cover every device's next chunk,
//     each device gets W_r * lambda_i / sum_j lambda_j so that all finish
//     together.
// The host (CPU cores) takes chunks sized to last as long as the fastest
// accelerator's chunk: max(h0, min(x_G * lambda_H / lambda_G,
// W_r * lambda_H / sum_j lambda_j)) (the reference's CPU chunk rule, the CPU
// device standing for all its cores), h0 before it has been measured; with
// no accelerator the host devices share the work in guided fashion,
// max(h0, W_r / (n + 1)).
//
// Not in the reference (issue 15): a device that asks after the others took
// all of W is reported by gave_nothing() (AskLog), never waited for.
//
// Simplifications (docs/schedulers.md): relative elbow test with alpha
// instead of the reference's absolute slope (0.005) and at least 3 points
// instead of 6; no "second chance" re-measurement of a chunk whose
// throughput dropped and no repeated measurement of the three elbow points;
// the final phase splits by throughput instead of also considering "all on
// the CPU" or "all on the GPU"; several accelerators each run their own
// model.  Constants: g0 = max(1, c/4), h0 = max(1, c/16) with c the initial
// chunk (params.initial_chunk, default W/128); chunks from the model are
// rounded up to a multiple of g0.  A stable model is kept for the next
// execution (the reference keeps it across time steps).
#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

namespace hce::sched {
namespace {

struct Point {
  double x = 0, th = 0;
};

// Least-squares fit of th = a ln x + b; returns false when undetermined.
bool fit_log(const std::vector<Point> &pts, double &a, double &b) {
  const double n = static_cast<double>(pts.size());
  if (pts.size() < 2)
    return false;
  double sl = 0, sy = 0, sll = 0, sly = 0;
  for (const Point &p : pts) {
    double l = std::log(p.x);
    sl += l;
    sy += p.th;
    sll += l * l;
    sly += l * p.th;
  }
  double den = n * sll - sl * sl;
  if (!(std::abs(den) > 1e-12))
    return false;
  a = (n * sly - sy * sl) / den;
  b = (sy - a * sl) / n;
  return std::isfinite(a) && std::isfinite(b);
}

class LogFitScheduler final : public Scheduler {
public:
  std::string_view name() const override { return "logfit"; }

  enum Stage { Warmup, Explore, Stable };

  void begin(const SchedParams &params) override {
    params_ = params;
    p_ = std::max(0, params.num_devices);
    W_ = std::max<int64_t>(0, params.iterations);
    const int64_t c = default_initial_chunk(params);
    g0_ = std::max<int64_t>(1, c / 4);
    h0_ = std::max<int64_t>(1, c / 16);
    if (static_cast<int>(dev_.size()) != p_)
      dev_.assign(p_, Dev{});
    for (int i = 0; i < p_; ++i) {
      Dev &d = dev_[i];
      d.active = true;
      d.host = i < static_cast<int>(params.is_host.size()) && params.is_host[i];
      d.inflight.clear();
      // An accelerator's search goes on where the last execution left it
      // (Explore); it starts with a warm-up only once.
      if (d.host || d.stage == Warmup) {
        d.stage = Warmup;
        d.gchunk = g0_;
        d.explored.clear();
        d.buckets.clear();
        d.threshold = 0;
      }
    }
    assigned_ = 0;
    asks_.begin(p_);
  }

  Decision next(int device) override {
    asks_.asked(device);
    if (device < 0 || device >= p_ || !dev_[device].active || assigned_ >= W_)
      return Decision::done();
    const int64_t w_r = W_ - assigned_;
    const int64_t planned = plan(device, w_r);
    int64_t size = planned;
    // Final phase: the rest no longer covers everyone's next chunk.
    long double need = 0;
    for (int i = 0; i < p_; ++i)
      if (dev_[i].active)
        need += static_cast<long double>(plan(i, w_r));
    if (static_cast<long double>(w_r) <= need) {
      double tsum = 0;
      int n = 0;
      for (const Dev &d : dev_)
        if (d.active) {
          tsum += d.th;
          ++n;
        }
      double share = tsum > 0 ? dev_[device].th / tsum : 1.0 / n;
      auto fair = static_cast<int64_t>(std::floor(static_cast<long double>(w_r) * share));
      // Never below the device's initial chunk (the reference gives the
      // CPU at least initCChunk and the GPU at least its elbow chunk).
      const int64_t floor_size = dev_[device].host ? h0_ : g0_;
      size = std::min(planned, std::max(fair, floor_size));
    }
    size = std::clamp<int64_t>(size, 1, w_r);
    asks_.got(device);
    const int64_t lb = assigned_;
    assigned_ += size;
    dev_[device].inflight.push_back({{lb, lb + size}, planned});
    return Decision::run(lb, lb + size);
  }

  void complete(int device, Range range, double seconds) override {
    if (device < 0 || device >= p_)
      return;
    Dev &d = dev_[device];
    auto it = std::find_if(d.inflight.begin(), d.inflight.end(),
                           [&](const auto &e) { return e.first == range; });
    if (it == d.inflight.end() || !d.active)
      return;
    const int64_t planned = it->second;
    d.inflight.erase(it);
    const double x = static_cast<double>(range.size());
    const double th = x / std::max(seconds, 1e-12); // lambda(x)
    if (!d.host && d.stage == Warmup) { // first chunk: not recorded (upload, warm-up)
      d.stage = Explore;
      return;
    }
    // Only chunks of the planned size update the throughput estimate; the
    // small chunks of the final phase would understate it.
    if (range.size() >= planned || d.th <= 0)
      d.th = th;
    if (d.host)
      return;
    switch (d.stage) {
    case Warmup: break;
    case Explore:
      // A chunk the final phase cut short is no point of the curve, and an
      // execution that runs out of work pauses the search rather than ending
      // it: ended there (the host took the rest after the GPU's 8192), the
      // H100 ran cg's dot at 4096-iteration GPU chunks for good, 707 of them
      // in the 10th execution (V27a: cg 65-91 ms, the dot 44-72; searching
      // on, one chunk of the whole loop by then: 17-21 and 3.5-3.7).
      if (range.size() < planned)
        break;
      d.explored.push_back({x, th});
      if (int e = elbow(d); e >= 0)
        enter_stable(d, e);
      else if (2 * d.gchunk > W_)
        enter_stable(d, best_point(d)); // no execution holds the doubling
      else
        d.gchunk *= 2; // exploration: double the chunk
      break;
    case Stable:
      d.buckets[bucket(x)] = {x, th};
      refit(d);
      break;
    }
  }

  void drop(int device) override {
    if (device < 0 || device >= p_)
      return;
    dev_[device].active = false;
    dev_[device].inflight.clear();
  }

  bool gave_nothing(int device) const override { return asks_.gave_nothing(device); }

  std::vector<double> current_ratios() const override {
    std::vector<double> v(p_, 0.0);
    std::vector<bool> act(p_, false);
    for (int i = 0; i < p_; ++i) {
      v[i] = dev_[i].th;
      act[i] = dev_[i].active;
    }
    return ratios_from_speeds(initial_ratios(params_), v, act);
  }

  // For tests.
  Stage stage(int device) const { return dev_[device].stage; }
  int64_t gpu_chunk(int device) const { return dev_[device].gchunk; }

private:
  struct Dev {
    bool active = true, host = false;
    Stage stage = Warmup;
    int64_t gchunk = 1; // the accelerator's next chunk
    std::vector<Point> explored;
    std::map<int, Point> buckets; // stable-phase points per [2^k, 2^k+1)
    double threshold = 0;         // slope at the elbow
    double th = 0;                // throughput of the latest full-size chunk (items/s)
    std::deque<std::pair<Range, int64_t>> inflight; // range, planned size
  };

  static int bucket(double x) {
    return static_cast<int>(std::floor(std::log2(std::max(1.0, x))));
  }

  // Index of the elbow point, or -1: the last two doublings each gained at
  // most alpha over the point before them.
  int elbow(const Dev &d) const {
    const size_t n = d.explored.size();
    if (n < 3)
      return -1;
    const double base = d.explored[n - 3].th * (1 + params_.alpha);
    if (d.explored[n - 1].th <= base && d.explored[n - 2].th <= base)
      return static_cast<int>(n - 3);
    return -1;
  }

  static int best_point(const Dev &d) {
    int best = 0;
    for (size_t i = 1; i < d.explored.size(); ++i)
      if (d.explored[i].th > d.explored[best].th)
        best = static_cast<int>(i);
    return best;
  }

  void enter_stable(Dev &d, int e) {
    d.stage = Stable;
    d.buckets.clear();
    for (const Point &p : d.explored)
      d.buckets[bucket(p.x)] = p;
    const double xe = d.explored.empty() ? static_cast<double>(g0_) : d.explored[e].x;
    double a = 0, b = 0;
    std::vector<Point> pts = points(d);
    if (fit_log(pts, a, b) && a > 0)
      d.threshold = a / xe; // the model's chunk is the elbow chunk
    else
      d.threshold = 0; // flat or falling curve: keep the elbow chunk
    d.gchunk = std::max<int64_t>(g0_, static_cast<int64_t>(xe));
  }

  void refit(Dev &d) {
    double a = 0, b = 0;
    if (d.threshold > 0 && fit_log(points(d), a, b) && a > 0) {
      double x = a / d.threshold; // d lambda / dx = threshold
      x = std::min(x, 1e15);
      double g0 = static_cast<double>(g0_);
      x = std::ceil(x / g0) * g0;
      d.gchunk = std::max<int64_t>(g0_, static_cast<int64_t>(x));
    }
  }

  static std::vector<Point> points(const Dev &d) {
    std::vector<Point> pts;
    for (const auto &[k, p] : d.buckets)
      pts.push_back(p);
    return pts;
  }

  // The size device i would get next, before the final-phase rule.
  int64_t plan(int i, int64_t w_r) const {
    const Dev &d = dev_[i];
    if (!d.host)
      return d.gchunk;
    double tsum = 0, best_th = 0;
    int64_t best_chunk = 0;
    int n = 0;
    bool any_acc = false;
    for (const Dev &o : dev_) {
      if (!o.active)
        continue;
      ++n;
      tsum += o.th;
      if (!o.host) {
        any_acc = true;
        if (o.th > best_th) {
          best_th = o.th;
          best_chunk = o.gchunk;
        }
      }
    }
    if (!any_acc) // guided among the host devices
      return std::max<int64_t>(h0_, w_r / (n + 1));
    if (!(d.th > 0) || !(best_th > 0))
      return h0_;
    double same_time = static_cast<double>(best_chunk) * d.th / best_th;
    double fair = static_cast<double>(w_r) * d.th / tsum;
    double x = std::min(same_time, fair);
    return std::max<int64_t>(h0_, static_cast<int64_t>(std::min(x, 1e15)));
  }

  SchedParams params_;
  int p_ = 0;
  int64_t W_ = 0, g0_ = 1, h0_ = 1, assigned_ = 0;
  std::vector<Dev> dev_;
  AskLog asks_; // gave_nothing()
};

} // namespace

std::unique_ptr<Scheduler> make_logfit() { return std::make_unique<LogFitScheduler>(); }

} // namespace hce::sched
