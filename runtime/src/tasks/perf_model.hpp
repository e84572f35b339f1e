// Estimated execution time C_{i,q} of a region on a device, from the
// region's history (the seed's sampling lookup table, §4.1, and its
// a*D^b + c regression on the data size, §4.3), for the task mappers.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hce::tasks {

class PerfModel {
public:
  // Relative speed of a device when nothing was measured for it:
  // HCE_TASK_SPEED="cpu=1,cuda=8,sim:1=2" (names or kinds), else a sim
  // device's speed, else cpu 1, cuda 4, omp 4.
  void set_speed_hint(const std::string &device, double speed) { hint_[device] = speed; }
  // A sim device with modelled iteration time: exact calibration.
  void set_iteration_time(const std::string &device, double seconds) {
    iter_time_[device] = seconds;
  }
  // The name the profile store keys `device`'s samples by
  // (profile::device_key: name and hardware); the name itself by default.
  void set_profile_key(const std::string &device, const std::string &key) {
    profile_key_[device] = key;
  }
  // One execution of region `key` with `size` iterations took `seconds` on
  // `device` alone.
  void record(const std::string &key, const std::string &device, double size,
              double seconds);
  // Estimated seconds for `size` iterations of `key` on `device`: this
  // model's own history, else a sim device's modelled time, else the
  // profile store when HCE_PROFILE is set, else another device's history
  // scaled by the speed hints, else a nominal 10 ns per iteration.
  double predict(const std::string &key, const std::string &device, double size) const;
  // The fitted a*D^b + c (c = 0) for (key, device), if two sizes or more
  // were measured; false otherwise.
  bool fit(const std::string &key, const std::string &device, double &a, double &b) const;

private:
  double hint(const std::string &device) const;
  bool measured(const std::string &key, const std::string &device, double size,
                double &out) const;
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>>
      samples_;
  std::map<std::string, double> hint_;
  std::map<std::string, double> iter_time_;
  std::map<std::string, std::string> profile_key_;
};

} // namespace hce::tasks
