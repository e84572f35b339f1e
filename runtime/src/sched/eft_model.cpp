#include "eft_model.hpp"

#include <algorithm>
#include <limits>

namespace hce::sched::eft {

double default_overhead(bool host) { return host ? 20e-6 : 40e-6; }

Model fit_line(const std::vector<std::pair<int64_t, double>> &s, bool host, double lanes,
               std::vector<double> &times) {
  Model m;
  m.lanes = lanes;
  if (s.empty())
    return m;
  double sn = 0, st = 0, snn = 0, snt = 0;
  for (auto [n, t] : s) {
    sn += double(n);
    st += t;
    snn += double(n) * double(n);
    snt += double(n) * t;
  }
  const double k = double(s.size());
  const double den = k * snn - sn * sn;
  if (s.size() >= 2 && den > 1e-9 * snn * k) {
    m.c = (k * snt - sn * st) / den;
    m.o = (st - m.c * sn) / k;
    if (m.c > 0 && m.o >= 0)
      return m;
  }
  // The largest chunks say most about the rate: every chunk of at least
  // half the largest size, their median time per iteration, so that one
  // slow one does not set it.  (Not the largest size alone: with lud's trip
  // count shrinking by one per execution it is one chunk, and a stalled one
  // -- 711 us against 10-60 us on the H100, call DI -- made the CPU look 60x
  // slower eleven executions later, when it became the largest kept.)
  const int64_t largest = std::max_element(s.begin(), s.end(), [](auto a, auto b) {
                            return a.first < b.first;
                          })->first;
  times.clear();
  for (auto [sn_, t] : s)
    if (2 * sn_ >= largest && sn_ > 0)
      times.push_back(t / double(sn_));
  std::nth_element(times.begin(), times.begin() + std::ptrdiff_t((times.size() - 1) / 2),
                   times.end());
  const int64_t n = largest;
  const double t = times[(times.size() - 1) / 2] * double(n);
  m.o = std::min(default_overhead(host), t / 2);
  m.c = std::max(1e-15, (t - m.o) / double(std::max<int64_t>(1, n)));
  return m;
}

Model fit(std::span<const std::pair<int64_t, double>> samples, bool host, int64_t lanes,
          FitScratch &scratch) {
  std::vector<std::pair<int64_t, double>> &s = scratch.samples;
  s.assign(samples.begin(), samples.end());
  bool lanes_only = lanes > 0;
  for (auto &[n, t] : s) {
    lanes_only = lanes_only && n <= lanes;
    n = std::max(n, lanes);
  }
  Model m = fit_line(s, host, double(lanes), scratch.times);
  m.lanes_only = lanes_only;
  if (s.size() < 3 || !m.known())
    return m;
  // (Most fits have no such sample: no second list then, a fit runs after
  // every chunk.)
  if (std::none_of(s.begin(), s.end(),
                   [&](auto x) { return x.second > 2 * m.time(double(x.first)); }))
    return m;
  std::vector<std::pair<int64_t, double>> &kept = scratch.kept;
  kept.clear();
  for (auto [n, t] : s)
    if (t <= 2 * m.time(double(n)))
      kept.push_back({n, t});
  if (kept.size() >= 2 && kept.size() < s.size()) {
    m = fit_line(kept, host, double(lanes), scratch.times);
    m.lanes_only = lanes_only;
  }
  return m;
}

Model fit_alone(std::span<const std::pair<int64_t, double>> s, bool host, int64_t lanes,
                FitScratch &scratch) {
  // (What fit() would call lanes_only, known before fitting: the fit of
  // every chunk would be thrown away.)
  const bool lanes_only = lanes > 0 && std::all_of(s.begin(), s.end(), [&](auto x) {
                            return x.first <= lanes;
                          });
  if (!lanes_only || s.empty())
    return fit(s, host, lanes, scratch);
  const auto fastest = std::min_element(
      s.begin(), s.end(), [](auto a, auto b) { return a.second < b.second; });
  return fit(std::span(&*fastest, 1), host, lanes, scratch);
}

bool lanes_disproved(std::span<const std::pair<int64_t, double>> s, int64_t lanes) {
  double sn = 0, st = 0, snn = 0, snt = 0, k = 0;
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = 0;
  for (auto [n, t] : s) {
    if (n > lanes)
      continue;
    sn += double(n);
    st += t;
    snn += double(n) * double(n);
    snt += double(n) * t;
    k += 1;
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  const double den = k * snn - sn * sn;
  if (k < 2 || 2 * hi < 3 * lo || den <= 0)
    return false;
  const double c = (k * snt - sn * st) / den, o = (st - c * sn) / k;
  return c > 0 && c * double(hi) >= 0.5 * (o + c * double(hi));
}

void Samples::add(int64_t n, double t, int at, int first_exec, int64_t lanes) {
  if (front_ >= size_t(kMaxSamples)) { // compact: the dropped ones go
    v_.erase(v_.begin(), v_.begin() + std::ptrdiff_t(front_));
    exec_.erase(exec_.begin(), exec_.begin() + std::ptrdiff_t(front_));
    front_ = 0;
  }
  v_.push_back({n, t});
  exec_.push_back(at);
  // `at` never decreases, and first_exec is the device's first: its chunks
  // are the oldest, a prefix (no scan of every sample at every chunk).
  if (at > first_exec)
    while (front_ < exec_.size() && exec_[front_] == first_exec)
      ++front_;
  if (size() > size_t(kMaxSamples)) {
    // The oldest leaves, unless it is the only one above the lanes: then
    // the next oldest does, and it moves up one place (the executions stay
    // in order: the one that leaves is of the same or a later one).
    if (lanes > 0 && v_[front_].first > lanes &&
        std::none_of(v_.begin() + std::ptrdiff_t(front_) + 1, v_.end(),
                     [lanes](const Sample &x) { return x.first > lanes; })) {
      v_[front_ + 1] = v_[front_];
      exec_[front_ + 1] = exec_[front_];
    }
    ++front_;
  }
}
} // namespace hce::sched::eft
