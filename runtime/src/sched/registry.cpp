// make_scheduler / scheduler_names: the registry of the inter-device
// schedulers, one table entry {name, description, factory} per policy (one
// file each in this directory; see docs/schedulers.md), as StarPU lists its
// scheduling policies.
//
// The selectable names come from hce/names.def, the list the translator
// checks schedule(...) against: the table is generated from it, so a name
// there without a factory sched::make_<name> and a description about_<name>
// here does not compile, and no selectable name exists that the translator
// would refuse.
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

// One description per name in names.def (about_<name>).
constexpr std::string_view about_static = "fixed partition by the ratios";
constexpr std::string_view about_quick = "Scogland's quick: one probe chunk, then static";
constexpr std::string_view about_split = "Scogland's split: re-partition every chunk";
constexpr std::string_view about_hguided = "EngineCL's heterogeneous guided";
constexpr std::string_view about_logfit = "LogFit: throughput curve fitting";
constexpr std::string_view about_fdets = "FDETS, Alg. 1 (synchronous chunks)";
constexpr std::string_view about_adets = "ADETS, Alg. 2/4 (asynchronous chunks)";
constexpr std::string_view about_eft =
    "earliest-finish-time shares from per-device cost models";
constexpr std::string_view about_auto =
    "the default: eft (static where there are fewer iterations than devices)";
constexpr std::string_view about_profile = "static partition from the measured profile";

constexpr std::array kSchedulers = {
#define HCE_NAME_SCHEDULER(name)                                                         \
  SchedulerEntry{#name, about_##name, sched::make_##name, true},
#include "hce/names.def"
    // FDETS with incremental data transfer (HCE paper, Algorithm 3): for
    // the runtime's incremental communication mode, not a pragma kind, so
    // not in names.def.
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
