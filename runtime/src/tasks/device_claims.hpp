// Which devices (and source sites) a region execution holds right now.
// Executions on disjoint devices of different sites run at the same time
// (nowait task graphs, docs/task-graph.md); one that needs a held device or
// site waits until it is let go.  Claims are taken all at once, so two
// executions never hold part of what the other waits for; the one claim
// added later (the CPU, to re-run failed chunks) is never waited for by an
// execution that holds the CPU already, so no cycle can form.
#pragma once

#include <vector>

namespace hce::tasks {

class DeviceClaim {
public:
  DeviceClaim(std::vector<int> devices, const void *site);
  ~DeviceClaim();
  DeviceClaim(const DeviceClaim &) = delete;
  DeviceClaim &operator=(const DeviceClaim &) = delete;
  // Adds one more device (waits until it is free); no-op if held already.
  void add(int device);

private:
  std::vector<int> devices_;
  const void *site_;
};

} // namespace hce::tasks
