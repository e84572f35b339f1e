// Definitions 4 and 5 of the task-mapping seed (§4.1, Eqs. (3) and (4), seed
// lines 154-167 of /work/shared/seeds/task-mapping-cpu-gpu-starpu.txt):
// the max data-transfer time MDAC and the earliest finish time EFT, which
// Algorithm 1 (line 18) and Algorithm 2 (identical placement) minimise.
#include "tasks/mapper.hpp"

#include <algorithm>
#include <cmath>

namespace hce::tasks {

// Eq. (3): MDAC(tau, M_q) = max over predecessors tau^k (run on M_g) of
// T_{g->q}(e^{kj}).  A predecessor co-executed on several devices left its
// data spread over them: the slowest of its devices counts.
double mdac(const MapGraph &g, int task, int q, const MapState &s) {
  const MapTask &t = g.tasks.at(task);
  double worst = 0;
  for (int p : t.preds) {
    auto where = s.placed_on.find(p);
    if (where == s.placed_on.end())
      continue; // not placed (cannot happen for a ready task)
    double bytes = t.bytes_from_pred.count(p) ? t.bytes_from_pred.at(p) : 0;
    for (int from : where->second)
      worst = std::max(worst, transfer_time(g, from, q, bytes));
  }
  return worst;
}

// Eq. (4): EFT(tau, M_q) = T_Avail(M_q) + MDAC(tau, M_q) + C_{tau,q}.
double eft(const MapGraph &g, int task, int q, const MapState &s) {
  const double c = g.tasks.at(task).cost[size_t(q)];
  if (!std::isfinite(c))
    return kCannotRun;
  return std::max(s.now, s.avail[size_t(q)]) + mdac(g, task, q, s) + c;
}

// Alg. 1 lines 17-20 ("Assign tau to M_q that minimize EFT(tau, M_q)").
Placement eft_placement(const MapGraph &g, int task, const MapState &s) {
  Placement p;
  p.task = task;
  double best = kCannotRun;
  int best_q = -1;
  for (int q = 0; q < g.num_devices(); ++q) {
    double f = eft(g, task, q, s);
    if (f < best) {
      best = f;
      best_q = q;
    }
  }
  if (best_q < 0) { // runs nowhere: device 0 (the CPU) as a last resort
    best_q = 0;
    best = std::max(s.now, s.avail.empty() ? 0 : s.avail[0]);
  }
  p.devices = {best_q};
  p.est_finish = best;
  const double c = g.tasks.at(task).cost[size_t(best_q)];
  p.est_start = std::isfinite(c) ? best - c : best;
  return p;
}

} // namespace hce::tasks
