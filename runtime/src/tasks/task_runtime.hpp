// Several regions at once: `#pragma hce co_exec ... nowait depend(...)` and
// `#pragma hce taskwait` (docs/task-graph.md).
//
// hce_co_exec_nowait copies the region (descriptor, maps, captured
// scalars, reduction slots) into a task, adds the dependences on the
// unfinished tasks submitted before it (depend(...) items, and the implicit
// ones of its maps: a task that writes bytes an earlier one reads or
// writes, or reads bytes an earlier one writes, comes after it), and hands
// the ready tasks to the mapper (HCE_TASK_MAP=ratio|rank|heft, dispatcher.hpp).
// One lane thread per device runs the tasks placed on it, in order, with
// the single-region executor restricted to the task's devices
// (execute_region with devices(...) set); a task co-executed on several
// devices starts when all their lanes reach it.  hce_taskwait waits for
// every task, folds their reductions into the user's variables, and starts
// a new graph.
#pragma once

#include "hce/hce.h"

#include <string>
#include <vector>

namespace hce::tasks {

// 0, or 1 with `why`.
int submit(const hce_region &region, int num_deps, const hce_depend *deps,
           std::string &why);
// 0 when every task since the last taskwait succeeded; otherwise 1 and why.
int taskwait(std::string &why);
// Tasks submitted and not yet waited for.
bool pending();
// Waits for every task and stops the lanes (hce_finalize, exit).
void shutdown();

// What happened to one task (tests, HCE_TASK_LOG).
struct TaskRecord {
  int id = 0;
  std::string name;
  std::vector<std::string> devices;
  bool partitioned = false;
  std::vector<int> preds;
  double submitted = 0, start = 0, finish = 0; // seconds, runtime clock
  double est_finish = 0;                       // the mapper's estimate
  bool ok = false, ran = false;
};
// The tasks of the last completed taskwait, in submission order.
std::vector<TaskRecord> last_graph();
// The mapper in use ("ratio", "rank", "heft").
std::string mapper_name();

} // namespace hce::tasks
