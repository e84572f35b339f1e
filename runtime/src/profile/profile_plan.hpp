// The profile-based static partition of one loop: the partition and
// scheduling phases of static-partitioning-profile-model.txt §2.2 applied to
// one execution unit (a co_exec loop of W iterations) over the selected
// devices.
//
//  * Partition phase (§2.2.1, Algorithm 1): for every device, the rates
//    l / N (l = 0..N, N = "NumPossibleRates") of W it could take, and the
//    ranges a rate needs when it does not fit in the device's memory
//    (numRanges = ceil(share / memory bound); every range but the last at
//    the memory bound).
//  * Scheduling phase (§2.2.2, Algorithms 2-3): the search over plans (one
//    rate per device), valid when the rates add up to exactly 1 (ISVALIDSCHED:
//    no overflow, no underflow); a plan's time is GETTIME: each device runs
//    its ranges one after another, each costing the interpolated execution
//    plus transfer time (§2.1), and the plan ends when the last device ends.
//    There are no dependencies between the partitions of one loop, so
//    tStartEP is the end of the device's previous range.  The plan with the
//    lowest time is kept (branch and bound: a partial plan already slower
//    than the best complete one is not extended, which does not change the
//    result).
//  * Then (our addition; the seed's rates are a grid of 1/N steps) the
//    devices the best plan uses get shares that make their predicted finish
//    times equal (bisection on the finish time), kept only if the model
//    predicts it no slower than the grid plan.
//  * The 10% threshold of §2.1: "whenever less than that amount is proposed
//    to be moved to a device other than the CPU, the partition is ignored
//    and everything is run in the CPU" (when a host device is selected).
#pragma once

#include "profile/profile_store.hpp"
#include "sched/scheduler.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hce::profile {

struct DeviceModel {
  std::string name;
  bool is_host = false;
  std::vector<Sample> samples; // sorted by size; empty = not profiled
  int64_t max_iterations = 0;  // memory bound in iterations; 0 = none
};

// Predicted seconds for w iterations on `d`: its share runs as
// ceil(w / max_iterations) ranges, each the interpolated exec + transfer
// time of its size (Algorithm 3 GETTIME, one device).  Infinity if `d` has
// no samples and w > 0.
double predict(const DeviceModel &d, int64_t w);

// A share [lb, ub) cut into the memory-bound ranges of Algorithm 1: every
// range but the last holds max_iterations (0 = one range).
std::vector<Range> split_ranges(Range share, int64_t max_iterations);

struct Plan {
  bool from_model = false;                // false: the default (ratios) plan
  std::vector<int64_t> shares;            // iterations per device
  std::vector<std::vector<Range>> ranges; // per device, in order
  std::vector<double> predicted;          // seconds per device (model plans)
  double makespan = 0;                    // predicted (model plans)
  std::string note;                       // what decided it, for messages
  std::vector<double> ratios() const;     // shares / W
};

struct PlanOptions {
  int num_rates = 20;      // N: rates 0, 1/N, ..., 1 (fewer for many devices)
  double threshold = 0.10; // §2.1's 10% rule
  bool refine = true;      // equalise the predicted finish times
};

// The plan the model predicts fastest for W iterations.  Every device
// must have samples (devices without any get nothing).
Plan plan_from_model(int64_t W, const std::vector<DeviceModel> &devices,
                     const PlanOptions &opt = {});

// The default plan: W split by `ratios` (sched::split_sizes) into
// contiguous shares, each cut at the device's memory bound.
Plan plan_from_ratios(int64_t W, const std::vector<double> &ratios,
                      const std::vector<int64_t> &max_iterations);

} // namespace hce::profile
