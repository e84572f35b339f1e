// split: Scogland et al.'s split scheduling (CoreTSAR, IPDPS 2012), as
// described in fdets-adets-inter-device-scheduling.txt §III-A-2.
//
// "It splits the total workload W into n equal parts and completes them in n
// steps": step 1 splits the first chunk among the devices by the initial
// ratios; after every step the ratios become the measured relative speeds
// and split the next chunk.  The chunk size W/n is params.initial_chunk
// (default W/128), so n = floor(W / chunk) and chunk k covers
// [floor(k*W/n), floor((k+1)*W/n)) -- equal sizes up to one iteration.
// The latest ratios carry over to the next execution.
//
// Deviation (issue 15, docs/schedulers.md "Every device gets work"): a step
// has at least one iteration per device, chunk = max(W/n, p), so n =
// floor(W / max(W/n, p)).  With W < 128 p the paper's W/n is smaller than p
// and floor(W_curr * R_i) is 0 for every device but one, which then ran the
// whole loop.  The first step gives every device one iteration
// (SyncChunkScheduler), the later ones follow the measured ratios.
#include "common.hpp"

#include <algorithm>

namespace hce::sched {
namespace {

class SplitScheduler final : public SyncChunkScheduler {
public:
  std::string_view name() const override { return "split"; }

protected:
  int64_t on_begin() override {
    const int64_t step = std::max<int64_t>(default_initial_chunk(params_),
                                           eligible_devices(ratios_, unserved()));
    n_ = std::max<int64_t>(1, W_ / step);
    k_ = 0;
    return chunk(0);
  }
  int64_t on_round_done(const RoundRecord &) override { return chunk(++k_); }

private:
  int64_t chunk(int64_t k) const {
    if (k >= n_)
      return W_ - assigned_;
    return mul_div(k + 1, W_, n_) - mul_div(k, W_, n_);
  }
  int64_t n_ = 1, k_ = 0;
};

} // namespace

std::unique_ptr<Scheduler> make_split() { return std::make_unique<SplitScheduler>(); }

} // namespace hce::sched
