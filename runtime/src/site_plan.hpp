// What a call site keeps of its execution plan between executions (issue
// 12: an iterative region pays once for what does not change).  A plan is
// made from the settings and the static fields of the region descriptor
// (PlanKey); an execution whose descriptor matches the key reuses it, any
// other (a different trip count, array pointer, map, clause or variant)
// makes a new one.  What changes with every execution (the devices the
// too-slow rule leaves out, whether the arrays are in a data region, the
// scheduler's measurements) is decided per execution on top of it.
#pragma once

#include "data_env.hpp" // CoMode
#include "hce/hce.h"
#include "sched/scheduler.hpp" // SchedParams

#include <cstdint>
#include <string>
#include <vector>

namespace hce {

// The fields of a region descriptor a plan depends on: every one but the
// per-execution data (captured scalars, reduction variables).  Of those, the
// trip count and the maps' offsets and lengths are the execution's shape:
// lud's trailing update shrinks them every step, and everything else of
// the plan (devices, schedule, lanes, the GPU's occupancy) stays.
class PlanKey {
public:
  // Whether `r`, under settings generation `generation`, is what the key
  // was assigned from.  An unassigned key matches nothing.
  bool matches(const hce_region &r, uint64_t generation) const;
  // The same, but for the shape (trip count, maps' offsets and lengths).
  bool matches_but_shape(const hce_region &r, uint64_t generation) const;
  void assign(const hce_region &r, uint64_t generation);
  // `r`'s shape where the key matches it but for the shape.
  void reshape(const hce_region &r);

private:
  uint64_t generation_ = 0; // 0: unassigned (Runtime's generations start at 1)
  std::string name_, devices_, schedule_, co_, ratios_; // NULL as ""
  int64_t iterations_ = 0, chunk_ = 0;
  double alpha_ = 0;
  bool cpu_ = false, cuda_ = false, omp_ = false;
  std::vector<hce_map> maps_;
};

struct SitePlan {
  // ---- The device choice, made and read under the runtime's exec lock.
  PlanKey key;
  // Counts the keys assigned: an execution remembers the version it chose
  // its devices under, and reuses the schedule part only if made for it.
  uint64_t version = 0;
  std::vector<int> selected; // indices into Runtime::devices
  // region_merges_by_diff() of the shape the devices were chosen for: a
  // new shape that changes it chooses them again (choose_devices).
  bool merges_by_diff = false;

  // ---- The schedule, made and read with the site claimed.
  uint64_t schedule_version = 0; // the `version` it was made for; 0: none
  std::vector<int> devs;         // the devices it was made for (after the too-slow rule)
  std::string label;             // "region NAME", for messages and traces
  std::string schedule; // settings, clause or "auto" ("fdets" may run as fdets_inc)
  CoMode co = CoMode::Incremental;
  SchedParams params;
  std::vector<bool> is_cpu; // per entry of devs: the CpuDevice (its team)
  // A device of devs has a memory bound (profile::device_capacity): the
  // scheduler's profile context, in iterations, follows the shape.
  bool bounded = false;
  // Whether `r`'s shape (trip count, maps' offsets and lengths) differs from
  // the one the schedule part was last made or updated for; records it.
  bool take_shape(const hce_region &r);

private:
  int64_t shape_iterations_ = -1;
  std::vector<int64_t> shape_maps_; // offset, len of each map
};

} // namespace hce
