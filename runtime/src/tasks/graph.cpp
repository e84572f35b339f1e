#include "tasks/graph.hpp"

#include <cmath>

namespace hce::tasks {

MapTask &MapGraph::add_task(int id, std::string name, std::vector<double> cost) {
  MapTask &t = tasks[id];
  t.id = id;
  t.name = std::move(name);
  t.cost = std::move(cost);
  t.cost.resize(devices.size(), kCannotRun);
  return t;
}

void MapGraph::add_edge(int from, int to, double bytes) {
  MapTask &a = tasks.at(from);
  MapTask &b = tasks.at(to);
  if (!a.bytes_to_succ.count(to))
    a.succs.push_back(to);
  if (!b.bytes_from_pred.count(from))
    b.preds.push_back(from);
  a.bytes_to_succ[to] += bytes;
  b.bytes_from_pred[from] += bytes;
}

double transfer_time(const MapGraph &g, int q, int w, double bytes) {
  if (q == w || q < 0 || w < 0 || bytes <= 0)
    return 0;
  const MapDevice &a = g.devices[size_t(q)];
  const MapDevice &b = g.devices[size_t(w)];
  double t = 0;
  if (!a.host_memory) // device q -> host
    t += a.latency + bytes / a.bandwidth;
  if (!b.host_memory) // host -> device w
    t += b.latency + bytes / b.bandwidth;
  return t;
}

double mean_transfer_time(const MapGraph &g, double bytes) {
  const int m = g.num_devices();
  if (m == 0)
    return 0;
  double sum = 0;
  for (int q = 0; q < m; ++q)
    for (int w = 0; w < m; ++w)
      sum += transfer_time(g, q, w, bytes);
  return sum / double(m * m);
}

double mean_cost(const MapTask &t) {
  double sum = 0;
  int n = 0;
  for (double c : t.cost)
    if (std::isfinite(c)) {
      sum += c;
      ++n;
    }
  return n ? sum / n : 0;
}

} // namespace hce::tasks
