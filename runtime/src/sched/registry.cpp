// make_scheduler / scheduler_names: the registry of the inter-device
// schedulers, one table entry {name, description, factory} per policy (one
// file each in this directory; see docs/schedulers.md), as StarPU lists its
// scheduling policies.
#include "common.hpp"
#include "profile/profile_sched.hpp"

#include <array>

namespace hce {
namespace {

struct SchedulerEntry {
  std::string_view name;
  std::string_view description;
  std::unique_ptr<Scheduler> (*factory)();
  bool selectable; // a schedule(...) kind; false: chosen by the runtime only
};

constexpr std::array kSchedulers = {
    SchedulerEntry{"static", "fixed partition by the ratios", sched::make_static, true},
    SchedulerEntry{"quick", "Scogland's quick: one probe chunk, then static",
                   sched::make_quick, true},
    SchedulerEntry{"split", "Scogland's split: re-partition every chunk",
                   sched::make_split, true},
    SchedulerEntry{"hguided", "EngineCL's heterogeneous guided", sched::make_hguided,
                   true},
    SchedulerEntry{"logfit", "LogFit: throughput curve fitting", sched::make_logfit,
                   true},
    SchedulerEntry{"fdets", "FDETS, Alg. 1 (synchronous chunks)", sched::make_fdets,
                   true},
    SchedulerEntry{"adets", "ADETS, Alg. 2/4 (asynchronous chunks)", sched::make_adets,
                   true},
    SchedulerEntry{"eft", "earliest-finish-time shares from per-device cost models",
                   sched::make_eft, true},
    SchedulerEntry{"auto", "the default: eft, or profile/static where they apply",
                   sched::make_auto, true},
    SchedulerEntry{"profile", "static partition from the measured profile",
                   sched::make_profile, true},
    // FDETS with incremental data transfer (HCE paper, Algorithm 3): for
    // the runtime's incremental communication mode, not a pragma kind.
    SchedulerEntry{"fdets_inc", "FDETS with incremental transfers, Alg. 3",
                   sched::make_fdets_incremental, false},
};

} // namespace

std::unique_ptr<Scheduler> make_scheduler(std::string_view name) {
  for (const SchedulerEntry &e : kSchedulers)
    if (e.name == name)
      return e.factory();
  return nullptr;
}

const std::vector<std::string> &scheduler_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const SchedulerEntry &e : kSchedulers)
      if (e.selectable)
        v.emplace_back(e.name);
    return v;
  }();
  return names;
}

} // namespace hce
