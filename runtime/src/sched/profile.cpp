// profile: the static partition computed from measured profiles, after
// static-partitioning-profile-model.txt (García et al., SIMPAT 2015) §2.
//
// The seed's three phases, for one co_exec loop (one execution unit whose
// partitions are contiguous sub-ranges of [0, W)):
//
//  1. Partition phase (§2.2.1, Algorithm 1) and
//  2. scheduling phase (§2.2.2, Algorithms 2-3): in begin(), from the
//     profile store (runtime/src/profile/profile_store.*: execution and
//     transfer times per region, device and size, linearly interpolated,
//     §2.1) by profile::plan_from_model (runtime/src/profile/profile_plan.*:
//     rates l/N per device, memory-bound ranges, search for the plan with
//     the lowest GETTIME, the 10% threshold).  The plan is a list of ranges
//     per device; a share that does not fit in a device's memory is several
//     ranges, each within the memory bound.
//  3. Execution phase (§2.2.3, Algorithm 6): "the execution of the ...
//     partitions with their input and output transfers is done in
//     background"; when a device finishes one, NEXTEP gives it its next
//     range of the plan.  Here next(d) hands out d's ranges in order; the
//     runtime's controller threads do the transfers around each.  There are
//     no dependencies between the partitions of one loop.
//
// The runtime records every execution's per-device times in the store
// (profile::record_execution, by region_exec.cpp), whatever the scheduler, so the
// next execution -- or the next run of the program, with HCE_PROFILE --
// is partitioned from measurements.
//
// Without a profile for every selected device (first execution, or a new
// device), the default: the split of `static` (the ratio(...) clause, equal
// shares without one), still cut at memory bounds, with one notice per
// region; its times are recorded like any other's.
//
// Protocol: next(d) runs d's next range; when d has none left it waits
// (Wait) while another device still has work in flight or untaken -- if
// that device is dropped, its untaken ranges are split among the devices
// still running by the plan's ratios (and cut at their memory bounds) --
// and gets Done once everything has been handed out and reported.
#include "log.hpp"
#include "profile/profile_sched.hpp"
#include "sched/common.hpp"

#include <deque>

namespace hce::sched {
namespace {

class ProfileScheduler final : public Scheduler, public profile::ProfileAware {
public:
  profile::ProfileAware *profile_aware() override { return this; }
  std::string_view name() const override { return "profile"; }

  void set_profile_context(const profile::ProfileContext &ctx) override {
    ctx_ = ctx;
    has_ctx_ = true;
  }
  const profile::Plan *profile_plan() const override { return &plan_; }

  void begin(const SchedParams &params) override {
    params_ = params;
    p_ = params.num_devices;
    const int64_t W = params.iterations;
    const bool ctx_ok = has_ctx_ && int(ctx_.devices.size()) == p_;
    caps_.assign(size_t(p_), 0);
    if (ctx_ok && ctx_.max_iterations.size() == size_t(p_))
      caps_ = ctx_.max_iterations;
    if (ctx_ok && profile::has_profile(ctx_)) {
      const profile::Store &store = profile::store_of(ctx_);
      std::vector<profile::DeviceModel> models(static_cast<size_t>(p_));
      for (int d = 0; d < p_; ++d) {
        auto &m = models[size_t(d)];
        m.name = ctx_.devices[size_t(d)];
        m.is_host = d < int(params.is_host.size()) && params.is_host[size_t(d)];
        m.samples = store.samples(ctx_.region, m.name);
        m.max_iterations = caps_[size_t(d)];
      }
      plan_ = profile::plan_from_model(W, models);
    } else {
      plan_ = profile::plan_from_ratios(W, initial_ratios(params), caps_);
      std::string region = ctx_ok ? ctx_.region : "<no profile context>";
      std::string missing;
      if (ctx_ok)
        for (const std::string &dev : ctx_.devices)
          if (!profile::store_of(ctx_).has(ctx_.region, dev))
            missing += (missing.empty() ? "" : ", ") + dev;
      notice_once("profile-default/" + region,
                  "region " + region + ": schedule(profile) has no profile" +
                      (missing.empty() ? "" : " for " + missing) +
                      " yet; this execution is split like static (" +
                      (params.ratios.empty() ? "equal shares" : "the given ratios") +
                      ") and its times are recorded");
    }
    ratios_ = plan_.ratios();
    queues_.assign(size_t(p_), {});
    for (int d = 0; d < p_ && d < int(plan_.ranges.size()); ++d)
      for (const Range &r : plan_.ranges[size_t(d)])
        queues_[size_t(d)].push_back(r);
    outstanding_.assign(size_t(p_), 0);
    active_.assign(size_t(p_), true);
    done_.assign(size_t(p_), false);
    planned_none_.assign(size_t(p_), false);
    for (int d = 0; d < p_; ++d)
      planned_none_[size_t(d)] = queues_[size_t(d)].empty();
  }

  // The plan gives it nothing: the model's choice (a rate of 0, the 10%
  // threshold), a ratio of 0, or fewer iterations than devices.  The
  // runtime then leaves it out and HCE_STATS reports it (left_out).
  bool idle(int d) const override { return d >= 0 && d < p_ && planned_none_[size_t(d)]; }

  Decision next(int d) override {
    if (d < 0 || d >= p_ || !active_[size_t(d)] || done_[size_t(d)])
      return Decision::done();
    auto &q = queues_[size_t(d)];
    if (!q.empty()) { // Algorithm 6 NEXTEP: d's next range of the plan
      Range r = q.front();
      q.pop_front();
      ++outstanding_[size_t(d)];
      return Decision::run(r.lb, r.ub);
    }
    // Another device's work may still come back here if it is dropped.
    for (int e = 0; e < p_; ++e)
      if (e != d && active_[size_t(e)] &&
          (outstanding_[size_t(e)] > 0 || !queues_[size_t(e)].empty()))
        return Decision::wait();
    done_[size_t(d)] = true;
    return Decision::done();
  }

  void complete(int d, Range, double) override {
    if (d >= 0 && d < p_ && outstanding_[size_t(d)] > 0)
      --outstanding_[size_t(d)];
  }

  void drop(int d) override {
    if (d < 0 || d >= p_ || !active_[size_t(d)])
      return;
    active_[size_t(d)] = false;
    outstanding_[size_t(d)] = 0; // the runtime re-runs its in-flight chunks
    ratios_[size_t(d)] = 0;
    std::deque<Range> left;
    left.swap(queues_[size_t(d)]);
    std::vector<bool> takers(static_cast<size_t>(p_));
    bool any = false;
    for (int e = 0; e < p_; ++e) {
      takers[size_t(e)] = active_[size_t(e)] && !done_[size_t(e)];
      any = any || takers[size_t(e)];
    }
    if (!any)
      return; // nobody left to run it: the runtime runs it on the CPU
    for (const Range &r : left) {
      std::vector<int64_t> sizes = split_sizes(r.size(), ratios_, takers);
      int64_t lb = r.lb;
      for (int e = 0; e < p_; ++e) {
        if (sizes[size_t(e)] == 0)
          continue;
        for (const Range &piece :
             profile::split_ranges({lb, lb + sizes[size_t(e)]}, caps_[size_t(e)]))
          queues_[size_t(e)].push_back(piece);
        lb += sizes[size_t(e)];
      }
    }
  }

  std::vector<double> current_ratios() const override { return ratios_; }

private:
  profile::ProfileContext ctx_;
  bool has_ctx_ = false;
  SchedParams params_;
  int p_ = 0;
  profile::Plan plan_;
  std::vector<double> ratios_;
  std::vector<int64_t> caps_;
  std::vector<std::deque<Range>> queues_; // untaken ranges per device
  std::vector<int> outstanding_;          // handed out, not reported
  std::vector<bool> active_, done_;
  std::vector<bool> planned_none_; // idle(): no range in this execution's plan
};

} // namespace

std::unique_ptr<Scheduler> make_profile() { return std::make_unique<ProfileScheduler>(); }

} // namespace hce::sched

namespace hce::profile {

const Store &store_of(const ProfileContext &ctx) {
  return ctx.store ? *ctx.store : global();
}

bool has_profile(const ProfileContext &ctx) {
  if (ctx.devices.empty())
    return false;
  const Store &s = store_of(ctx);
  for (const std::string &dev : ctx.devices)
    if (!s.has(ctx.region, dev))
      return false;
  return true;
}

const Plan *plan_of(const Scheduler &s) {
  const ProfileAware *a = s.profile_aware();
  return a ? a->profile_plan() : nullptr;
}

void set_context(Scheduler &s, const ProfileContext &ctx) {
  if (ProfileAware *a = s.profile_aware())
    a->set_profile_context(ctx);
}

} // namespace hce::profile
