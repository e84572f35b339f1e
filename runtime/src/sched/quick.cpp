// quick: Scogland et al.'s quick scheduling (CoreTSAR, IPDPS 2012), as
// described in fdets-adets-inter-device-scheduling.txt §III-A-1.
//
//  * profiling phase: a small portion of W (the profiling size, here the
//    initial chunk, params.initial_chunk or W/128) is split among the devices
//    by the initial partition ratios; when every device has finished, the
//    new ratios are the relative speeds V_i / sum_j V_j;
//  * execution phase: the remaining workload is split by those ratios;
//  * "if a data-parallel kernel needs to be executed many times, from the
//    second time, the total workload is split according to the partition
//    ratios calculated in the previous execution" (no profiling phase).
//
// Deviation (issue 15, docs/schedulers.md "Every device gets work"): the
// profiling chunk has at least one iteration per device, and the first
// chunk of an execution gives each device that has not run at this site
// yet at least one (SyncChunkScheduler).  With
// W/128 < p the profiling chunk went to one device whole, the others were
// never measured, and on re-execution floor(W * R_i) could be 0.
#include "common.hpp"

#include <algorithm>

namespace hce::sched {
namespace {

class QuickScheduler final : public SyncChunkScheduler {
public:
  std::string_view name() const override { return "quick"; }

protected:
  int64_t on_begin() override {
    if (executions_ > 1)
      return W_; // re-execution: all of W by the previous ratios
    return std::max<int64_t>(default_initial_chunk(params_),      // profiling
                             eligible_devices(ratios_, unserved())); // phase
  }
  // The profiling chunk has been reported and the ratios updated to the
  // measured relative speeds: the execution phase takes all the rest.
  int64_t on_round_done(const RoundRecord &) override { return W_ - assigned_; }
};

} // namespace

std::unique_ptr<Scheduler> make_quick() { return std::make_unique<QuickScheduler>(); }

} // namespace hce::sched
