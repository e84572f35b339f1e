// Algorithm 2 of the task-mapping seed: structure-rank-based heuristics
// (§4.2, Eqs. (5)-(6) and the Algorithm 2 listing, seed lines 220-261 of
// /work/shared/seeds/task-mapping-cpu-gpu-starpu.txt).
//
//  1: function PushTask(task)
//  2:   rank(task) <- Compute rank of task                       -> priority()
//  3-8:   insert before the first t_i with rank(task) >= rank(t_i)
//  9-12:  num <- GetAllDeviceLen(); if num < thr then PushTaskOnDeviceQueue
//
// "the algorithm is identical to our baseline algorithm except that the
// scheduling priorities the tasks using the rank values instead of the
// heterogeneity ratios": placement is Alg. 1's EFT (eft.cpp) followed, as in
// map_ratio.cpp, by the §4.3 partition rule.
#include "tasks/mapper.hpp"

#include <algorithm>

namespace hce::tasks {

// Eq. (6): rank(tau^j) = sum_q C^j_q / m
//                        + max_{tau^k in S(tau^j)} (T(e^{jk}) + sum_q C^k_q / m)
// with T(e^{jk}) the Eq. (5) average over all device pairs (the devices are
// not known yet when the rank is computed).  Only the immediate successors
// count: this is the seed's one-level rank, not HEFT's recursive one.
double structure_rank(const MapGraph &g, int task) {
  const MapTask &t = g.tasks.at(task);
  double succ = 0;
  for (int k : t.succs) {
    auto it = g.tasks.find(k);
    if (it == g.tasks.end())
      continue;
    double bytes = t.bytes_to_succ.count(k) ? t.bytes_to_succ.at(k) : 0;
    succ = std::max(succ, mean_transfer_time(g, bytes) + mean_cost(it->second));
  }
  return mean_cost(t) + succ;
}

namespace {

class RankMapper final : public Mapper {
public:
  const char *name() const override { return "rank"; }
  double priority(const MapGraph &g, int task) const override {
    return structure_rank(g, task);
  }
  Placement place(const MapGraph &g, int task, const MapState &s) const override {
    return apply_partition_rule(g, task, s, eft_placement(g, task, s), partition);
  }
  int threshold(int num_devices) const override { return 2 * num_devices; }
};

} // namespace

std::unique_ptr<Mapper> make_rank_mapper() { return std::make_unique<RankMapper>(); }

} // namespace hce::tasks
