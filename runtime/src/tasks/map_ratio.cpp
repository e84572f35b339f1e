// Algorithm 1 of the task-mapping seed: heterogeneity-ratio-based mapping
// (§4.1 and the Algorithm 1 listing, seed lines 136-218 of
// /work/shared/seeds/task-mapping-cpu-gpu-starpu.txt).
//
//  1: function PushTask(task)
//  2:   Sort tasks in the ReadyQueue by largest-heterogeneity-ratio-first
//  3-8:   insert before the first t_i with H(task) >= H(t_i)     -> priority()
//  9: num <- GetAllDeviceLen()
// 10: if num < thr then PushTaskOnDeviceQueue                    -> threshold()
// 15: function PushTaskOnDeviceQueue
// 16:   tau <- PopFront(ReadyQueue)
// 17-19: EFT(tau, M_q) = T_Avail(M_q) + MDAC(tau, M_q) + C_{tau,q}
// 20:   Assign tau to M_q that minimises EFT                     -> place()
//
// The queue mechanics (lines 3-13, 16) are in dispatcher.cpp, EFT/MDAC in
// eft.cpp.  As the seed's "ad-part" (§4.3) extends this baseline with data
// partitioning, place() ends with the partition rule (partition.cpp).
#include "tasks/mapper.hpp"

#include <algorithm>
#include <cmath>

namespace hce::tasks {

// Definition 2, Eq. (1): F_{i,k}^j = max_h C_{i,h}^j / C_{i,k}^j.  Devices
// that cannot run the task are left out of the max and get F = 0.
double favorite_ratio(const MapTask &t, int q) {
  double worst = 0;
  for (double c : t.cost)
    if (std::isfinite(c))
      worst = std::max(worst, c);
  const double c = t.cost[size_t(q)];
  if (!std::isfinite(c))
    return 0;
  if (c <= 0)
    return worst > 0 ? kCannotRun : 1; // free on q: infinitely favourite
  return worst / c;
}

// Definition 3, Eq. (2): H_i^j = max_k F_{i,k}^j.
double heterogeneity_ratio(const MapTask &t) {
  double h = 0;
  for (int q = 0; q < int(t.cost.size()); ++q)
    h = std::max(h, favorite_ratio(t, q));
  return h;
}

namespace {

class RatioMapper final : public Mapper {
public:
  const char *name() const override { return "ratio"; }
  // Line 2: largest heterogeneity ratio first.
  double priority(const MapGraph &g, int task) const override {
    return heterogeneity_ratio(g.tasks.at(task));
  }
  // Lines 17-20, then §4.3.
  Placement place(const MapGraph &g, int task, const MapState &s) const override {
    return apply_partition_rule(g, task, s, eft_placement(g, task, s), partition);
  }
  // Line 10's thr: enough for every device to hold a task and have the next
  // one queued, so that a late task with a larger H still finds its
  // favourite device (the seed's "non-greedy" dispatch); HCE_TASK_THRESHOLD
  // overrides (task_runtime.cpp).
  int threshold(int num_devices) const override { return 2 * num_devices; }
};

} // namespace

std::unique_ptr<Mapper> make_ratio_mapper() { return std::make_unique<RatioMapper>(); }

} // namespace hce::tasks
