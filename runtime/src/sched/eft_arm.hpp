// eft's arms (see eft.cpp, choose_mode()): co-execution and each device
// alone, each with the measurements of its walls that the choice between
// them weighs.  See docs/schedulers.md ("eft").
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace hce::sched::eft {

// The ((k - 1) / 2)-th smallest of v[0, k), k at most a few: an insertion
// sort (introselect on six values was a tenth of eft's time per execution).
inline double lower_median(double *v, int k) {
  for (int i = 1; i < k; ++i)
    for (int j = i; j > 0 && v[j] < v[j - 1]; --j)
      std::swap(v[j], v[j - 1]);
  return v[(k - 1) / 2];
}

// One arm: co-execution, or one device alone.
// An arm's excess is the median of its last few measurements (the lower
// one of two): one execution that the OS or a page fault made 100x longer
// must not rule an arm out for good (the H100's lud: one 4.5 ms execution
// among 50 us ones made the CPU alone look 24 ms, and the GPU alone, 13x
// slower, ran the rest).
//
// The walls themselves are kept too, with their trip counts: when every
// kept wall was measured at nearly this execution's trip count (within
// kNearTrip), their median is the arm's estimate (near_wall()), whatever
// the models say now.  An excess is relative to the prediction at the
// time, so a model that moved since moved the estimate with it: on the
// H100 lud's CPU alone, measured at 0.02-0.03 ms per execution, was
// estimated at 0.77 ms once its model moved, and the GPU alone ran 270
// executions at 0.3-0.8 ms (call DI).  The models only bridge trip counts.
struct Arm {
  static constexpr int kKeep = 5;
  static constexpr double kNearTrip = 0.1;
  std::array<double, kKeep> recent{}; // the last excesses, a ring
  std::array<double, kKeep> walls{};  // ... their walls
  std::array<int64_t, kKeep> trips{}; // ... and trip counts (0: unknown)
  int kept = 0, next = 0;
  double seed_wall = 0;   // seed_mode(): an earlier run's wall
  bool seed_once = false; // ... of one execution (a sample of weight 1)
  int n = 0;              // measurements (a seed counts as one)
  bool seeded = false;    // recent holds the seed's until this run measures
  bool doubted = false;   // its wall was explored again (unmeasured_within_budget)
  double median = 1;      // median_of(0), kept by add(): read every execution
  // Its fastest measurement ever, an earlier run's included (never
  // forgotten: unmeasured_within_budget's stale winners): the lowest wall
  // per iteration of its trip count.  Not the lowest excess: a model that
  // absorbed a stall predicts the stalled walls, whose excess is then
  // lower than a clean one's (hce-sim's lud from a clean cache, its CPU
  // 20x for 10 ms from 0.5 ms: the CPU alone's second stalled wall, 0.71
  // ms, became its fastest, and the GPU alone ran 270 executions at 13x
  // its time, 0.107 s against 0.022).
  double best_wall = 0;
  int64_t best_trip = 0;
  // A stale winner's backoff: the site wall it waits before its next retry
  // (its last slow wall, doubled by each retry that finds it slow), and
  // the site wall it may be retried at.
  double stale_wait = 0, stale_after = 0;
  void add(double e, double wall, int64_t trip) {
    if (seeded)
      kept = next = 0;
    seeded = false;
    if (e > 0 && wall > 0 && trip > 0 &&
        (best_wall <= 0 || wall * double(best_trip) < best_wall * double(trip))) {
      best_wall = wall;
      best_trip = trip;
    }
    recent[size_t(next)] = e;
    walls[size_t(next)] = wall;
    trips[size_t(next)] = trip;
    next = (next + 1) % kKeep;
    kept = std::min(kept + 1, kKeep);
    median = median_of(0);
  }
  // Drops the kept measurements (not the best, n or the backoff).
  void forget() {
    kept = next = 0;
    median = 1;
  }
  // The median of the kept walls if every one was measured within
  // kNearTrip of trip count `w`; 0 otherwise.
  double near_wall(int64_t w) const {
    std::array<double, kKeep> v{};
    for (int k = 0; k < kept; ++k) {
      const int64_t t = trips[size_t(k)];
      if (t <= 0 || !(walls[size_t(k)] > 0) ||
          std::abs(double(t - w)) > kNearTrip * double(std::max(t, w)))
        return 0;
      v[size_t(k)] = walls[size_t(k)];
    }
    if (kept == 0)
      return 0;
    return lower_median(v.data(), kept);
  }
  // The median of the kept excesses and `extra` (if > 0).
  double excess(double extra = 0) const { return extra > 0 ? median_of(extra) : median; }
  double median_of(double extra) const {
    std::array<double, kKeep + 1> v{};
    int k = 0;
    for (; k < kept; ++k)
      v[size_t(k)] = recent[size_t(k)];
    if (extra > 0)
      v[size_t(k++)] = extra;
    if (k == 0)
      return 1;
    return lower_median(v.data(), k);
  }
};

} // namespace hce::sched::eft
