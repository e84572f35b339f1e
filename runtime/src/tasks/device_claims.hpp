// Which devices (and source sites) a region execution holds right now.
// Executions on disjoint devices of different sites run at the same time
// (nowait task graphs, docs/task-graph.md); one that needs a held device or
// site waits until it is let go.  Claims are taken all at once, so two
// executions never hold part of what the other waits for; the one claim
// added later (the CPU, to re-run failed chunks) is never waited for by an
// execution that holds the CPU already, so no cycle can form.
#pragma once

#include <array>
#include <span>
#include <vector>

namespace hce::tasks {

class DeviceClaim {
public:
  DeviceClaim(std::span<const int> devices, const void *site);
  ~DeviceClaim();
  DeviceClaim(const DeviceClaim &) = delete;
  DeviceClaim &operator=(const DeviceClaim &) = delete;
  // Adds one more device (waits until it is free); no-op if held already.
  void add(int device);

private:
  // The devices held: in place for the usual few (every execution takes a
  // claim: lud's ~15 us ones allocated a list each time), the rest in more_.
  static constexpr size_t kInPlace = 8;
  std::array<int, kInPlace> in_place_{};
  size_t in_place_count_ = 0;
  std::vector<int> more_;
  const void *site_;
  void push(int device);
  bool holds(int device) const;
  template <class F> void each(F f) const {
    for (size_t i = 0; i < in_place_count_; ++i)
      f(in_place_[i]);
    for (int d : more_)
      f(d);
  }
};

} // namespace hce::tasks
