// auto: what a region gets without a schedule clause.
//
//   W < p       -> static (fewer iterations than devices: one iteration
//                  each by the ratios), or eft if it left a device out last
//                  time
//   otherwise   -> eft (sched/eft.cpp): no rounds, a cost model per device,
//                  earliest-finish-time shares, blocks kept from one
//                  execution to the next so that data stays put; seeded by
//                  the profile (the per-user cache, or the file HCE_PROFILE
//                  names) where it has the region.
//
// Not the `profile` scheduler's static partition, whatever the profile
// holds: until session 98 auto handed a region to it once HCE_PROFILE named
// a file and every device had samples, and on the H100 (call V23, warm,
// against eft seeded by the same file) lud took 32-36 ms against 5.7,
// jacobi2d 20-22 against 13.3, cg 18-21 against 10 -- so that moving the
// cache, which issue 12 asks HCE_PROFILE to do, cost up to 6x.  It stays
// selectable by name (schedule(profile)).
//
// The papers' schedulers remain selectable by name for the comparisons; the
// H100 measurements that made eft the default are in docs/benchmarks.md.
// When the choice changes from one execution to the next, the new scheduler
// starts from the ratios the previous one measured (its current_ratios()).
#include "common.hpp"

#include <utility>

namespace hce::sched {
namespace {

class AutoScheduler final : public Scheduler, public Seedable {
public:
  Seedable *seedable() override { return this; }
  // No profile context: auto never hands a region to `profile` (above).
  profile::ProfileAware *profile_aware() override { return nullptr; }
  std::string_view name() const override { return "auto"; }

  void begin(const SchedParams &params) override {
    ++executions_;
    const int64_t W = params.iterations;
    const int p = params.num_devices;
    Scheduler *pick;
    // Fewer iterations than devices: eft, if its last execution left a
    // device out (it knows where they run best: lud's last execution, one
    // row, cost 1 ms on the GPU that static gave it, against 18 us on the
    // CPU that ran the 510 before); static's one iteration each otherwise.
    bool eft_chooses = false;
    if (W < p && W > 0 && cur_ == eft_.get())
      for (int i = 0; i < p && !eft_chooses; ++i)
        eft_chooses = eft_->idle(i);
    if (W < p && !eft_chooses)
      pick = static_.get();
    else
      pick = eft_.get();
    if (cur_ && cur_ != pick && pick != static_.get()) {
      std::vector<double> learnt = cur_->current_ratios();
      if (static_cast<int>(learnt.size()) == p) {
        SchedParams q = params;
        q.ratios = learnt;
        cur_ = pick;
        cur_->begin(q);
        return;
      }
    }
    cur_ = pick;
    cur_->begin(params); // no copy: the usual case, every execution
  }
  Decision next(int device) override {
    return cur_ ? cur_->next(device) : Decision::done();
  }
  void complete(int device, Range range, double seconds) override {
    if (cur_)
      cur_->complete(device, range, seconds);
  }
  bool steady_chunk_costs() const override { return cur_ && cur_->steady_chunk_costs(); }
  bool placing_data(int device) const override {
    return cur_ && cur_->placing_data(device);
  }
  void drop(int device) override {
    if (cur_)
      cur_->drop(device);
  }
  bool idle(int device) const override { return cur_ && cur_->idle(device); }
  void ended(double wall_s, double one_time_s) override {
    if (cur_)
      cur_->ended(wall_s, one_time_s);
  }
  bool retired(int device) const override { return cur_ && cur_->retired(device); }
  bool lending() const override { return !cur_ || cur_->lending(); }
  bool paused(int device) const override { return cur_ && cur_->paused(device); }
  bool gave_nothing(int device) const override {
    return cur_ && cur_->gave_nothing(device);
  }
  double expected_wall() const override { return cur_ ? cur_->expected_wall() : 0; }
  std::string explain() const override { return explain_later()(); }
  std::function<std::string()> explain_later() const override {
    if (!cur_)
      return [] { return std::string(); };
    std::string name(cur_->name());
    if (cur_ == static_.get()) {
      std::string why = name + ": fewer iterations than devices";
      return [why] { return why; };
    }
    return [name, inner = cur_->explain_later()] {
      const std::string why = inner();
      return name + (why.empty() ? "" : ": " + why);
    };
  }
  std::vector<double> current_ratios() const override {
    return cur_ ? cur_->current_ratios() : std::vector<double>{};
  }
  void seed(int device, double overhead_s, double per_iteration_s) override {
    eft_->seedable()->seed(device, overhead_s, per_iteration_s);
  }
  void seed_mode(int device, double wall_s, double measurements) override {
    eft_->seedable()->seed_mode(device, wall_s, measurements);
  }
  bool measured_mode(int &device, double &wall_s) const override {
    return cur_ == eft_.get() &&
           std::as_const(*eft_).seedable()->measured_mode(device, wall_s);
  }
  bool measured_rarely() const override {
    return cur_ == eft_.get() && std::as_const(*eft_).seedable()->measured_rarely();
  }
  bool learnt_model(int device, double &overhead_s,
                    double &per_iteration_s) const override {
    return cur_ == eft_.get() && std::as_const(*eft_).seedable()->learnt_model(
                                     device, overhead_s, per_iteration_s);
  }
  // The scheduler chosen for the current execution.
  std::string_view chosen() const { return cur_ ? cur_->name() : ""; }

private:
  std::unique_ptr<Scheduler> static_ = make_static();
  std::unique_ptr<Scheduler> eft_ = make_eft();
  Scheduler *cur_ = nullptr;
  int executions_ = 0;
};

} // namespace

std::string_view auto_choice(const Scheduler &s) {
  auto *a = dynamic_cast<const AutoScheduler *>(&s);
  return a ? a->chosen() : std::string_view{};
}

std::unique_ptr<Scheduler> make_auto() { return std::make_unique<AutoScheduler>(); }

} // namespace hce::sched
