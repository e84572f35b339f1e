#include "profile/profile_plan.hpp"

#include "sched/common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hce::profile {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Shares in device order become contiguous ranges, cut at memory bounds.
void lay_out(Plan &plan, int64_t W, const std::vector<int64_t> &caps) {
  const size_t p = plan.shares.size();
  plan.ranges.assign(p, {});
  int64_t lb = 0;
  for (size_t d = 0; d < p; ++d) {
    int64_t ub = lb + plan.shares[d];
    plan.ranges[d] = split_ranges({lb, ub}, d < caps.size() ? caps[d] : 0);
    lb = ub;
  }
  (void)W;
}

// Number of plans of N rates over p devices: C(N + p - 1, p - 1), capped.
double compositions(int N, int p) {
  double c = 1;
  for (int k = 1; k < p; ++k) {
    c = c * double(N + k) / double(k);
    if (c > 1e12)
      return c;
  }
  return c;
}

// predict() over samples already made plausible (plausible_samples): the
// planner calls it hundreds of times per execution.
double predict_plausible(const DeviceModel &d, int64_t w) {
  if (w <= 0)
    return 0;
  if (d.samples.empty())
    return kInf;
  auto at = [&](int64_t n) { return interpolate_plausible(d.samples, n)->total_s(); };
  const int64_t cap = d.max_iterations;
  if (cap <= 0 || w <= cap)
    return at(w);
  // Algorithm 1: numRanges = ceil(share / memory bound); the full ranges
  // each cost T(bound), the last one T(rest); they run one after another.
  const int64_t full = w / cap, rest = w % cap;
  double t = double(full) * at(cap);
  if (rest > 0)
    t += at(rest);
  return t;
}

// Largest w in [0, W] whose predicted time is at most T (the predictions
// are non-decreasing in w up to interpolation noise; bisection still ends).
int64_t max_share(const DeviceModel &d, int64_t W, double T) {
  if (predict_plausible(d, W) <= T)
    return W;
  int64_t lo = 0, hi = W; // predict(lo) <= T (0 costs 0), predict(hi) > T
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (predict_plausible(d, mid) <= T)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

} // namespace

double predict(const DeviceModel &d, int64_t w) {
  DeviceModel plausible = d;
  plausible.samples = plausible_samples(d.samples);
  return predict_plausible(plausible, w);
}

std::vector<Range> split_ranges(Range share, int64_t max_iterations) {
  std::vector<Range> out;
  if (share.empty())
    return out;
  if (max_iterations <= 0) {
    out.push_back(share);
    return out;
  }
  for (int64_t lb = share.lb; lb < share.ub; lb += max_iterations)
    out.push_back({lb, std::min(share.ub, lb + max_iterations)});
  return out;
}

std::vector<double> Plan::ratios() const {
  int64_t W = 0;
  for (int64_t s : shares)
    W += s;
  std::vector<double> r(shares.size(), 0.0);
  for (size_t d = 0; d < shares.size(); ++d)
    r[d] = W > 0 ? double(shares[d]) / double(W) : 1.0 / double(shares.size());
  return r;
}

Plan plan_from_ratios(int64_t W, const std::vector<double> &ratios,
                      const std::vector<int64_t> &max_iterations) {
  Plan plan;
  const size_t p = ratios.size();
  // Every device with a positive ratio gets work when W >= p (issue 15).
  plan.shares = sched::split_sizes_each(W, ratios, std::vector<bool>(p, true));
  lay_out(plan, W, max_iterations);
  plan.note = "ratios";
  return plan;
}

Plan plan_from_model(int64_t W, const std::vector<DeviceModel> &given,
                     const PlanOptions &opt) {
  // Each device's samples read for stalls once, not at every prediction.
  std::vector<DeviceModel> devices = given;
  for (DeviceModel &d : devices)
    d.samples = plausible_samples(d.samples);
  const int p = int(devices.size());
  Plan plan;
  plan.from_model = true;
  std::vector<int64_t> caps;
  for (const DeviceModel &d : devices)
    caps.push_back(d.max_iterations);
  if (p == 0)
    return plan;
  if (p == 1 && !devices[0].samples.empty()) { // nothing to search
    plan.shares = {W};
    plan.note = "one device";
    plan.predicted = {predict_plausible(devices[0], W)};
    plan.makespan = plan.predicted[0];
    lay_out(plan, W, caps);
    return plan;
  }

  // ---- Partition phase (§2.2.1, Algorithm 1): the rates l/N of every
  // device and what each costs with its memory-bound ranges.  A device with
  // no profile is not feasible (F = 0): it can only take rate 0.
  int N = std::max(1, opt.num_rates);
  while (N > 1 && compositions(N, p) > 2e6)
    --N;
  std::vector<std::vector<double>> T(size_t(p), std::vector<double>(size_t(N) + 1));
  auto share_of = [&](int l) { return sched::mul_div(l, W, N); };
  for (int d = 0; d < p; ++d)
    for (int l = 0; l <= N; ++l)
      T[size_t(d)][size_t(l)] = predict_plausible(devices[size_t(d)], share_of(l));

  // ---- Scheduling phase (§2.2.2, Algorithms 2-3): depth-first over the
  // devices, one rate each; ISVALIDSCHED = the rates sum to exactly 1;
  // GETTIME = the latest device end.  Branch and bound on that time.
  std::vector<int> cur(size_t(p), 0), best(size_t(p), 0);
  double best_time = kInf;
  auto search = [&](auto &&self, int d, int left, double so_far) -> void {
    if (so_far >= best_time)
      return;
    if (d == p - 1) { // the last device takes what is left (no underflow)
      double t = std::max(so_far, T[size_t(d)][size_t(left)]);
      if (t < best_time) {
        best_time = t;
        cur[size_t(d)] = left;
        best = cur;
      }
      return;
    }
    for (int l = 0; l <= left; ++l) {
      cur[size_t(d)] = l;
      self(self, d + 1, left - l, std::max(so_far, T[size_t(d)][size_t(l)]));
    }
  };
  search(search, 0, N, 0.0);
  if (!(best_time < kInf)) { // nothing profiled at all: equal shares
    plan = plan_from_ratios(W, std::vector<double>(size_t(p), 1.0), caps);
    plan.note = "no device profiled";
    return plan;
  }
  std::vector<double> grid_ratios(static_cast<size_t>(p));
  for (int d = 0; d < p; ++d)
    grid_ratios[size_t(d)] = double(best[size_t(d)]);
  std::vector<bool> all(size_t(p), true);
  plan.shares = sched::split_sizes(W, grid_ratios, all);
  plan.note = "grid of " + std::to_string(N) + " rates";

  auto makespan = [&](const std::vector<int64_t> &shares) {
    double m = 0;
    for (int d = 0; d < p; ++d)
      m = std::max(m, predict_plausible(devices[size_t(d)], shares[size_t(d)]));
    return m;
  };

  // ---- Refinement (not in the seed): equal predicted finish times among
  // the profiled devices (the grid of 1/N may have left one out only for
  // its granularity).  T* = the least time in which they can do W
  // together; shares in proportion to what each can do by then (a device
  // whose fixed costs exceed T* can do nothing by then and gets nothing).
  if (opt.refine && W > 0) {
    double lo = 0, hi = 0;
    for (int d = 0; d < p; ++d)
      if (best[size_t(d)] > 0)
        hi = std::max(hi, predict_plausible(devices[size_t(d)], W));
    for (int d = 0; d < p; ++d) // the feasible devices
      best[size_t(d)] = devices[size_t(d)].samples.empty() ? 0 : 1;
    auto total_by = [&](double t) {
      int64_t s = 0;
      for (int d = 0; d < p; ++d)
        if (best[size_t(d)] > 0)
          s += max_share(devices[size_t(d)], W, t);
      return s;
    };
    for (int it = 0; it < 100 && hi - lo > 1e-12 * hi; ++it) {
      double mid = 0.5 * (lo + hi);
      (total_by(mid) >= W ? hi : lo) = mid;
    }
    std::vector<double> r(static_cast<size_t>(p), 0.0);
    std::vector<bool> used(static_cast<size_t>(p));
    double sum = 0;
    for (int d = 0; d < p; ++d) {
      used[size_t(d)] = best[size_t(d)] > 0;
      if (used[size_t(d)])
        sum += r[size_t(d)] = double(max_share(devices[size_t(d)], W, hi));
    }
    if (sum > 0) {
      std::vector<int64_t> refined = sched::split_sizes(W, r, used);
      if (makespan(refined) <= makespan(plan.shares)) {
        plan.shares = refined;
        plan.note += ", finish times equalised";
      }
    }
  }

  // ---- The 10% threshold (§2.1): too little for the accelerators to pay
  // for the variance of the measurements: everything on the CPU.
  int host = -1;
  int64_t off_host = 0;
  for (int d = 0; d < p; ++d) {
    if (devices[size_t(d)].is_host) {
      if (host < 0)
        host = d;
    } else {
      off_host += plan.shares[size_t(d)];
    }
  }
  if (host >= 0 && off_host > 0 && double(off_host) < opt.threshold * double(W)) {
    std::fill(plan.shares.begin(), plan.shares.end(), 0);
    plan.shares[size_t(host)] = W;
    plan.note += "; accelerators' share below the 10% threshold: all on " +
                 devices[size_t(host)].name;
  }

  plan.predicted.assign(size_t(p), 0.0);
  for (int d = 0; d < p; ++d)
    plan.predicted[size_t(d)] =
        predict_plausible(devices[size_t(d)], plan.shares[size_t(d)]);
  plan.makespan = makespan(plan.shares);
  lay_out(plan, W, caps);
  return plan;
}

} // namespace hce::profile
