// auto: picks one of the papers' schedulers per execution of a region.
//
// The choice follows the conclusions of fdets-adets-inter-device-
// scheduling.txt §IV-B ("FDETS is more suitable for data-parallel kernels
// ... which only need to be executed once or several times, while ADETS is
// more suitable for data-parallel kernels that need to be executed many
// times and/or whose computation ... non-uniformly distributed") and of
// hce-runtime-cooperative-execution.txt §VI-C (FDETS with incremental
// transfers for the iterative stencils, whose partition must be stable from
// one execution to the next):
//
//   W < p                          -> static (fewer iterations than devices:
//                                     one iteration each by the ratios)
//   a profile for every device     -> profile: the static partition from the
//   (HCE_PROFILE set)                 measured profile (static-partitioning-
//                                     profile-model.txt §2; sched/profile.cpp)
//   re-execution (2nd, 3rd, ...)   -> fdets: it reuses the fastest chunk and
//                                     its ratios, and keeps the partition
//                                     steady so incremental transfers pay
//   first execution, W >= 1024 * p -> adets: no barrier per chunk, per-device
//                                     chunk sizes
//   first execution, W <  1024 * p -> fdets (few iterations: a handful of
//                                     synchronous chunks)
//
// When the choice changes from one execution to the next, the new scheduler
// starts from the ratios the previous one measured (its current_ratios()).
#include "common.hpp"
#include "profile/profile_sched.hpp"

namespace hce::sched {
namespace {

constexpr int64_t kAdetsMinPerDevice = 1024;

class AutoScheduler final : public Scheduler, public profile::ProfileAware {
public:
  std::string_view name() const override { return "auto"; }

  void begin(const SchedParams &params) override {
    ++executions_;
    const int64_t W = params.iterations;
    const int p = params.num_devices;
    Scheduler *pick;
    if (W < p)
      pick = static_.get();
    else if (has_ctx_ && ctx_.auto_handover && profile::has_profile(ctx_))
      pick = profile_.get();
    else if (executions_ > 1)
      pick = fdets_.get();
    else if (W >= kAdetsMinPerDevice * static_cast<int64_t>(p))
      pick = adets_.get();
    else
      pick = fdets_.get();
    SchedParams q = params;
    if (cur_ && cur_ != pick && pick != static_.get()) {
      std::vector<double> learnt = cur_->current_ratios();
      if (static_cast<int>(learnt.size()) == p)
        q.ratios = learnt;
    }
    cur_ = pick;
    cur_->begin(q);
  }
  Decision next(int device) override {
    return cur_ ? cur_->next(device) : Decision::done();
  }
  void complete(int device, Range range, double seconds) override {
    if (cur_)
      cur_->complete(device, range, seconds);
  }
  void drop(int device) override {
    if (cur_)
      cur_->drop(device);
  }
  std::vector<double> current_ratios() const override {
    return cur_ ? cur_->current_ratios() : std::vector<double>{};
  }
  void set_profile_context(const profile::ProfileContext &ctx) override {
    ctx_ = ctx;
    has_ctx_ = true;
    profile::set_context(*profile_, ctx);
  }
  const profile::Plan *profile_plan() const override {
    return cur_ == profile_.get() ? profile::plan_of(*profile_) : nullptr;
  }
  // The scheduler chosen for the current execution.
  std::string_view chosen() const { return cur_ ? cur_->name() : ""; }

private:
  std::unique_ptr<Scheduler> static_ = make_static();
  std::unique_ptr<Scheduler> fdets_ = make_fdets();
  std::unique_ptr<Scheduler> adets_ = make_adets();
  std::unique_ptr<Scheduler> profile_ = make_profile();
  profile::ProfileContext ctx_;
  bool has_ctx_ = false;
  Scheduler *cur_ = nullptr;
  int executions_ = 0;
};

} // namespace

std::string_view auto_choice(const Scheduler &s) {
  auto *a = dynamic_cast<const AutoScheduler *>(&s);
  return a ? a->chosen() : std::string_view{};
}

std::unique_ptr<Scheduler> make_auto() {
  return std::make_unique<AutoScheduler>();
}

} // namespace hce::sched
