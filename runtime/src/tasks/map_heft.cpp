// The baseline the seed compares against (§6.1, seed line 387 of
// /work/shared/seeds/task-mapping-cpu-gpu-starpu.txt): StarPU's dmdar, "similar to
// the classical heterogeneous-earliest-finish-time-first scheduling (HEFT):
// dmdar schedules each task to a processing unit that provides the minimum
// finish time" counting data transfers.  Here:
//   priority  HEFT's upward rank (mean cost + max over successors of mean
//             transfer + their upward rank, recursively: the whole path to
//             an exit task, unlike Alg. 2's one level);
//   placement earliest finish time where the task can start only when every
//             input has arrived: max(T_Avail(M_q), max_p finish_p + T_{p->q})
//             + C_q, the transfers of all inputs summed, not their max;
//   dispatch  greedy: a ready task goes to a device queue at once (no
//             threshold), as StarPU's dm* schedulers push;
//   no data partitioning.
#include "tasks/mapper.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>

namespace hce::tasks {

double upward_rank(const MapGraph &g, int task) {
  std::map<int, double> memo;
  std::function<double(int)> rank = [&](int id) -> double {
    if (auto it = memo.find(id); it != memo.end())
      return it->second;
    const MapTask &t = g.tasks.at(id);
    double succ = 0;
    for (int k : t.succs) {
      if (!g.tasks.count(k))
        continue;
      double bytes = t.bytes_to_succ.count(k) ? t.bytes_to_succ.at(k) : 0;
      succ = std::max(succ, mean_transfer_time(g, bytes) + rank(k));
    }
    return memo[id] = mean_cost(t) + succ;
  };
  return rank(task);
}

namespace {

class HeftMapper final : public Mapper {
public:
  const char *name() const override { return "heft"; }
  double priority(const MapGraph &g, int task) const override {
    return upward_rank(g, task);
  }
  Placement place(const MapGraph &g, int task, const MapState &s) const override {
    const MapTask &t = g.tasks.at(task);
    Placement p;
    p.task = task;
    double best = kCannotRun;
    for (int q = 0; q < g.num_devices(); ++q) {
      const double c = t.cost[size_t(q)];
      if (!std::isfinite(c))
        continue;
      double ready = s.now, comm = 0;
      for (int pred : t.preds) {
        auto where = s.placed_on.find(pred);
        auto fin = s.finish.find(pred);
        double bytes = t.bytes_from_pred.count(pred) ? t.bytes_from_pred.at(pred) : 0;
        double move = 0;
        if (where != s.placed_on.end())
          for (int from : where->second)
            move = std::max(move, transfer_time(g, from, q, bytes));
        comm += move;
        if (fin != s.finish.end())
          ready = std::max(ready, fin->second);
      }
      double start = std::max(s.avail[size_t(q)], ready) + comm;
      if (start + c < best) {
        best = start + c;
        p.devices = {q};
        p.est_start = start;
        p.est_finish = best;
      }
    }
    if (p.devices.empty()) {
      p.devices = {0};
      p.est_start = p.est_finish = std::max(s.now, s.avail.empty() ? 0 : s.avail[0]);
    }
    return p;
  }
  int threshold(int) const override { return INT_MAX; }
};

} // namespace

std::unique_ptr<Mapper> make_heft_mapper() { return std::make_unique<HeftMapper>(); }

} // namespace hce::tasks
