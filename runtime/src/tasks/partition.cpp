// The data-partitioning rule of the task-mapping seed (§4.3, "ad-part",
// seed lines 263-269 of /work/shared/seeds/task-mapping-cpu-gpu-starpu.txt):
//   "Given the data size of a task, if the estimated execution time
//   (without applying data partitioning) is larger than a pre-defined
//   threshold, then we partition it into multiple blocks."
// The estimated execution time comes from the cost model a*D^b + c fitted
// to the task's history (perf_model.cpp).  Partitioning "may also introduce
// additional data transfer costs", so the rule is applied with a guard: the
// task is co-executed on the k devices of lowest EFT (k >= 2) only when the
// partitioned run, which starts when the last of them is free and has its
// inputs, is predicted to finish before the best single-device placement.
// HCE then co-executes the region on exactly those devices with its own
// adaptive scheduler (region_exec.cpp).
#include "tasks/mapper.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hce::tasks {

double partitioned_cost(const MapTask &t, const std::vector<int> &devices) {
  double rate = 0;
  for (int q : devices) {
    const double c = t.cost[size_t(q)];
    if (!std::isfinite(c))
      continue;
    if (c <= 0)
      return 0;
    rate += 1.0 / c;
  }
  return rate > 0 ? 1.0 / rate : kCannotRun;
}

Placement apply_partition_rule(const MapGraph &g, int task, const MapState &s,
                               const Placement &single, const PartitionParams &params) {
  if (!params.enabled || single.devices.size() != 1)
    return single;
  const MapTask &t = g.tasks.at(task);
  const double alone = t.cost[size_t(single.devices[0])];
  // The seed's threshold test.
  if (!std::isfinite(alone) || alone <= params.min_seconds)
    return single;
  // Devices by EFT, the chosen one first.
  std::vector<std::pair<double, int>> by_eft;
  for (int q = 0; q < g.num_devices(); ++q) {
    double f = eft(g, task, q, s);
    if (std::isfinite(f))
      by_eft.push_back({f, q});
  }
  // (Each device once: the pairs are totally ordered, so std::sort is
  // stable here; libstdc++ 12's std::stable_sort warns under clang 19.)
  std::sort(by_eft.begin(), by_eft.end());
  Placement best = single;
  std::vector<int> set;
  double start = 0;
  for (const auto &[f, q] : by_eft) {
    set.push_back(q);
    start = std::max(start, std::max(s.now, s.avail[size_t(q)]) + mdac(g, task, q, s));
    if (set.size() < 2)
      continue;
    const double finish = start + partitioned_cost(t, set);
    if (finish < best.est_finish) {
      best.devices = set;
      best.est_start = start;
      best.est_finish = finish;
      best.partitioned = true;
    }
  }
  if (best.partitioned)
    std::sort(best.devices.begin(), best.devices.end());
  return best;
}

} // namespace hce::tasks
