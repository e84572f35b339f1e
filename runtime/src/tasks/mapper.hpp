// Mapping whole regions (tasks) to devices: the interface of the mapping
// algorithms of the task-mapping seed (Li et al., "Efficient algorithms for
// task mapping on heterogeneous CPU/GPU platforms for fast completion time",
// /work/shared/seeds/task-mapping-cpu-gpu-starpu.txt) and of the HEFT-like
// baseline, one algorithm per file:
//   map_ratio.cpp   Algorithm 1, heterogeneity-ratio-based mapping (§4.1)
//   map_rank.cpp    Algorithm 2, structure-rank-based heuristics (§4.2)
//   partition.cpp   the data-partitioning rule (§4.3): co-execute a task
//                   across devices only when it pays
//   map_heft.cpp    earliest-finish-time baseline (HEFT / StarPU dmdar)
//   eft.cpp         MDAC and EFT (Definitions 4 and 5), shared by 1 and 2
//   dispatcher.cpp  the ReadyQueue / device-queue engine of Alg. 1 lines
//                   1-21 (and its discrete-event simulation for tests)
#pragma once

#include "tasks/graph.hpp"

#include <memory>
#include <string>
#include <vector>

namespace hce::tasks {

// Where one task runs: one device, or several that co-execute it
// (partitioned by the data-partition rule).
struct Placement {
  int task = -1;
  std::vector<int> devices;
  double est_start = 0, est_finish = 0;
  bool partitioned = false;
};

// What a mapper knows when it places a task: when every device is free
// (T_Avail(M_q) of Definition 5) and where the tasks placed so far run.
struct MapState {
  double now = 0;
  std::vector<double> avail;                 // T_Avail per device
  std::map<int, std::vector<int>> placed_on; // task -> its devices
  std::map<int, double> finish;              // task -> (est.) finish
};

// The data-partition rule (§4.3) and its knobs.
struct PartitionParams {
  bool enabled = true;
  // "if the estimated execution time (without applying data partitioning)
  // is larger than a pre-defined threshold, then we partition it"
  double min_seconds = 0.02;
};

class Mapper {
public:
  virtual ~Mapper() = default;
  virtual const char *name() const = 0;
  // Priority of a task entering the ReadyQueue; larger runs first.
  virtual double priority(const MapGraph &g, int task) const = 0;
  // The device(s) for the task popped from the ReadyQueue.
  virtual Placement place(const MapGraph &g, int task, const MapState &s) const = 0;
  // Alg. 1 lines 9-12: tasks leave the ReadyQueue only while fewer than
  // this many sit in the device queues.
  virtual int threshold(int num_devices) const = 0;

  PartitionParams partition;
};

// "ratio" (default), "rank", "heft"; nullptr for another name.
std::unique_ptr<Mapper> make_mapper(const std::string &name);
std::vector<std::string> mapper_names();

// ---- Definitions 4 and 5 (eft.cpp) ------------------------------------
// MDAC(task, M_q): the longest transfer from any predecessor (on the device
// it was placed on) to M_q.
double mdac(const MapGraph &g, int task, int q, const MapState &s);
// EFT(task, M_q) = T_Avail(M_q) + MDAC(task, M_q) + C_{task,q}.
double eft(const MapGraph &g, int task, int q, const MapState &s);
// The device minimising EFT (Alg. 1 lines 17-20); ties to the lower index.
Placement eft_placement(const MapGraph &g, int task, const MapState &s);

// ---- Alg. 1 (map_ratio.cpp) -------------------------------------------
// Eq. (1): F_{q} = max_h C_h / C_q (0 where the task cannot run).
double favorite_ratio(const MapTask &t, int q);
// Eq. (2): H = max_q F_q.
double heterogeneity_ratio(const MapTask &t);

// ---- Alg. 2 (map_rank.cpp) --------------------------------------------
// Eq. (6): mean cost + max over successors of (Eq. (5) mean transfer +
// the successor's mean cost).
double structure_rank(const MapGraph &g, int task);

// ---- HEFT baseline (map_heft.cpp) -------------------------------------
// Upward rank: mean cost + max over successors (mean transfer + rank_u).
double upward_rank(const MapGraph &g, int task);

// ---- §4.3 (partition.cpp) ---------------------------------------------
// Starting from the best single-device placement, co-executes the task on
// the k devices of lowest EFT when its estimated time on the best device is
// above params.min_seconds and the partitioned run is predicted to finish
// earlier; otherwise returns `single` unchanged.
Placement apply_partition_rule(const MapGraph &g, int task, const MapState &s,
                               const Placement &single, const PartitionParams &params);
// The predicted time of the task split over `devices` in proportion to their
// speeds: 1 / sum_q (1 / C_q).
double partitioned_cost(const MapTask &t, const std::vector<int> &devices);

} // namespace hce::tasks
