// Which threads are running a region's variant right now.  A co_exec loop
// inside the body of another (a function called from the loop body) must
// not wait for device claims its caller holds: it runs inline on the
// calling thread (issue 11.6).  Devices that run the CPU variant on a
// controller thread (cpu, sim) mark it with a VariantScope; the OpenMP
// worker threads of the variant's `parallel for` are recognised by
// omp_in_parallel() while some region executes.
#pragma once

#include <omp.h>

#include <atomic>

namespace hce {

class VariantScope {
public:
  VariantScope() { ++depth(); }
  ~VariantScope() { --depth(); }
  VariantScope(const VariantScope &) = delete;
  VariantScope &operator=(const VariantScope &) = delete;
  static bool active() { return depth() > 0; }

private:
  static int &depth() {
    thread_local int d = 0;
    return d;
  }
};

// Regions executing now (hce_co_exec calls in progress), all threads.
inline std::atomic<int> &regions_executing() {
  static std::atomic<int> n{0};
  return n;
}

// True on a thread inside a region's execution: a controller running a
// variant, or an OpenMP thread while some region executes (a variant's
// `parallel for` worker, which cannot be told from a user's omp thread
// beside the execution).  Such a thread must not wait for a site's or a
// device's claim: its own execution may hold it.
inline bool inside_an_execution() {
  return VariantScope::active() || (omp_in_parallel() && regions_executing().load() > 0);
}

} // namespace hce
