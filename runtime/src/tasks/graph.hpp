// The mapper's view of a task graph (docs/task-graph.md): tasks with their
// estimated execution time on every device (C_{i,q} of the task-mapping
// seed, Table 1), the dependence edges with the bytes each carries, and the
// devices with their transfer model.  Pure data: no runtime, no threads, so
// that the mapping algorithms can be tested on hand-made graphs.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace hce::tasks {

constexpr double kCannotRun = std::numeric_limits<double>::infinity();

// One processor M_q.  Devices that work on host memory (the CPU) need no
// transfer between each other; an accelerator reaches the others through
// the host (latency + bytes / bandwidth per hop).
struct MapDevice {
  std::string name;
  bool host_memory = false;
  double bandwidth = 12e9; // bytes/s of a host <-> device copy
  double latency = 10e-6;  // seconds per copy
};

struct MapTask {
  int id = 0;
  std::string name;
  // Seconds on each device (index into MapGraph::devices); kCannotRun where
  // the device has no variant or is excluded by devices(...).
  std::vector<double> cost;
  std::vector<int> preds, succs; // task ids
  // Bytes flowing along each edge, keyed by the other end's id.
  std::map<int, double> bytes_from_pred;
  std::map<int, double> bytes_to_succ;
  double data_bytes = 0; // D: bytes the task maps (data-partition rule)
};

struct MapGraph {
  std::vector<MapDevice> devices;
  std::map<int, MapTask> tasks;

  MapTask &add_task(int id, std::string name, std::vector<double> cost);
  // Edge from -> to carrying `bytes`.
  void add_edge(int from, int to, double bytes);
  int num_devices() const { return int(devices.size()); }
};

// T_{q->w}(e): seconds to move `bytes` produced on device q to device w
// (0 on the same device or between two host-memory devices).
double transfer_time(const MapGraph &g, int q, int w, double bytes);
// Eq. (5) of the seed: the average of T_{q->w}(e) over all m^2 device pairs.
double mean_transfer_time(const MapGraph &g, double bytes);
// Mean execution time sum_q C_{i,q} / m over the devices that can run it.
double mean_cost(const MapTask &t);

} // namespace hce::tasks
