// static: one chunk per device, sized by the fixed partition ratios.
//
// The baseline of fdets-adets-inter-device-scheduling.txt §IV-C ("static
// scheduling": the near-optimal ratios found offline, then the whole
// iteration space split once).  Here the ratios are params.ratios (the
// ratio(...) clause or hce_set_ratio), equal shares when none are given.
// Nothing is learnt between executions: the ratios are the user's.
#include "common.hpp"

namespace hce::sched {
namespace {

class StaticScheduler final : public SyncChunkScheduler {
public:
  std::string_view name() const override { return "static"; }

protected:
  int64_t on_begin() override {
    ratios_ = initial_; // fixed R_i (initial_ratios(params_)), every execution
    return W_;                         // one chunk: W_i = W * R_i
  }
  int64_t on_round_done(const RoundRecord &) override { return W_; }
  bool update_ratios_each_round() const override { return false; }
};

} // namespace

std::unique_ptr<Scheduler> make_static() {
  return std::make_unique<StaticScheduler>();
}

} // namespace hce::sched
