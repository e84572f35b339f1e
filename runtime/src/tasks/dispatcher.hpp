// The queue engine shared by the mappers: the seed's central priority
// ReadyQueue and per-device queues (§5.1, Fig. 4(c); Alg. 1 lines 1-21).
// Ready tasks are inserted by the mapper's priority; while fewer than `thr`
// tasks sit in the device queues, the front of the ReadyQueue is placed by
// the mapper and appended to the queue of each device it runs on.  Times are
// passed in, so the same engine drives the runtime (wall clock) and the
// discrete-event simulation used by the tests.
#pragma once

#include "tasks/mapper.hpp"

#include <deque>
#include <vector>

namespace hce::tasks {

class Dispatcher {
public:
  Dispatcher(const MapGraph &graph, const Mapper &mapper, int threshold);

  // PushTask (Alg. 1 lines 1-8): a task whose predecessors have finished.
  void push_ready(int task);
  // Lines 9-12 and PushTaskOnDeviceQueue (15-21), repeated while allowed:
  // the placements made now, in order.
  std::vector<Placement> dispatch(double now);
  // A placed task started / finished (at `now`, actual times).
  void on_start(int task, double now);
  void on_finish(int task, double now);

  const std::vector<int> &ready_queue() const { return ready_; }
  // GetAllDeviceLen(): tasks placed and not finished.
  int in_device_queues() const { return int(placed_.size()); }
  // The state a placement made now would see.
  MapState state(double now) const;
  int threshold() const { return thr_; }

private:
  struct Placed {
    int task;
    std::vector<int> devices;
    double duration; // estimated
    double started = -1;
  };
  const MapGraph &g_;
  const Mapper &mapper_;
  int thr_;
  std::vector<int> ready_;
  std::vector<double> ready_prio_;
  std::vector<Placed> placed_; // in placement order
  std::map<int, std::vector<int>> placed_on_;
  std::map<int, double> finish_;
};

// Discrete-event run of a whole graph on the graph's devices with the task
// costs taken as exact: every device runs its queue in order, a task on
// several devices starts when all of them reach it.  For tests and for
// comparing the mappers without hardware.
struct SimTask {
  int id;
  std::vector<int> devices;
  double start, finish;
  bool partitioned;
};
struct SimResult {
  std::vector<SimTask> order; // in start order
  double makespan = 0;
  const SimTask *find(int id) const;
};
SimResult simulate(const MapGraph &graph, const Mapper &mapper, int threshold);

} // namespace hce::tasks
