#include "tasks/perf_model.hpp"

#include "profile/profile_store.hpp"

#include <algorithm>
#include <cmath>

namespace hce::tasks {

void PerfModel::record(const std::string &key, const std::string &device, double size,
                       double seconds) {
  if (size <= 0 || !(seconds > 0))
    return;
  auto &v = samples_[{key, device}];
  v.push_back({size, seconds});
  if (v.size() > 64) // a bounded history: the recent runs
    v.erase(v.begin());
}

double PerfModel::hint(const std::string &device) const {
  if (auto it = hint_.find(device); it != hint_.end())
    return it->second;
  std::string kind = device.substr(0, device.find(':'));
  if (auto it = hint_.find(kind); it != hint_.end())
    return it->second;
  if (kind == "cuda" || kind == "omp")
    return 4;
  return 1;
}

bool PerfModel::fit(const std::string &key, const std::string &device, double &a,
                    double &b) const {
  auto it = samples_.find({key, device});
  if (it == samples_.end())
    return false;
  // Mean time per distinct size, then least squares on log t = log a + b log D.
  std::map<double, std::pair<double, int>> by_size;
  for (const auto &[d, t] : it->second) {
    auto &e = by_size[d];
    e.first += t;
    e.second += 1;
  }
  if (by_size.size() < 2)
    return false;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = double(by_size.size());
  for (const auto &[d, e] : by_size) {
    const double x = std::log(d), y = std::log(e.first / e.second);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double den = n * sxx - sx * sx;
  if (std::fabs(den) < 1e-12)
    return false;
  b = std::clamp((n * sxy - sx * sy) / den, 0.25, 4.0);
  a = std::exp((sy - b * sx) / n);
  return true;
}

bool PerfModel::measured(const std::string &key, const std::string &device, double size,
                         double &out) const {
  auto it = samples_.find({key, device});
  if (it == samples_.end() || it->second.empty())
    return false;
  double a = 0, b = 0;
  if (fit(key, device, a, b)) {
    out = a * std::pow(size, b);
    return true;
  }
  // One size measured: the mean time per iteration, linear in the size.
  double per = 0;
  for (const auto &[d, t] : it->second)
    per += t / d;
  out = size * per / double(it->second.size());
  return true;
}

double PerfModel::predict(const std::string &key, const std::string &device,
                          double size) const {
  double t = 0;
  if (measured(key, device, size, t))
    return t;
  if (auto it = iter_time_.find(device); it != iter_time_.end() && it->second > 0)
    return size * it->second / hint(device);
  // The profile store (HCE_PROFILE): what earlier runs of the program
  // measured for this region on this device, interpolated to `size`: the
  // seed's lookup table, filled before the first task runs.
  if (profile::profile_requested()) {
    auto pk = profile_key_.find(device);
    if (auto e = profile::global().estimate(
            key, pk == profile_key_.end() ? device : pk->second, int64_t(size));
        e && e->total_s() > 0)
      return e->total_s();
  }
  // Measured on another device: scaled by the relative speeds.
  for (const auto &[k, v] : samples_)
    if (k.first == key && measured(key, k.second, size, t))
      return t * hint(k.second) / hint(device);
  // Nothing known: a nominal 10 ns per iteration at speed 1.
  return size * 1e-8 / hint(device);
}

} // namespace hce::tasks
