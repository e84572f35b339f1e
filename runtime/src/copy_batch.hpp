#pragma once
// The calling thread's open copy batches (Device::begin_copies ..
// finish_copies), one per device: several threads copy to and from one
// device at once (the CPU's fetches beside the GPU's own chunks), each
// waiting only for the copies of its own batch.  `State` is what a device
// keeps of a batch until it finishes (CudaDevice: the streams to wait for;
// SimDevice: the deferred memcpys).

#include <optional>
#include <vector>

namespace hce {

template <class State> class OpenCopyBatches {
public:
  // The batch `dev` has open on this thread, or nullptr.
  static State *find(const void *dev) {
    for (Entry &e : entries())
      if (e.dev == dev)
        return &e.state;
    return nullptr;
  }
  static void open(const void *dev) {
    if (!find(dev))
      entries().push_back({dev, State{}});
  }
  // Closes `dev`'s batch and returns what it kept (nothing: none was open).
  static std::optional<State> close(const void *dev) {
    std::vector<Entry> &es = entries();
    for (auto it = es.begin(); it != es.end(); ++it)
      if (it->dev == dev) {
        State s = std::move(it->state);
        es.erase(it);
        return s;
      }
    return std::nullopt;
  }

private:
  struct Entry {
    const void *dev;
    State state;
  };
  static std::vector<Entry> &entries() {
    thread_local std::vector<Entry> batches;
    return batches;
  }
};

} // namespace hce
