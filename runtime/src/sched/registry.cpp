// make_scheduler / scheduler_names: the registry of the inter-device
// schedulers (one file each in this directory; see docs/schedulers.md).
#include "common.hpp"
#include "profile/profile_sched.hpp"

namespace hce {

std::unique_ptr<Scheduler> make_scheduler(std::string_view name) {
  if (name == "static")
    return sched::make_static();
  if (name == "quick")
    return sched::make_quick();
  if (name == "split")
    return sched::make_split();
  if (name == "hguided")
    return sched::make_hguided();
  if (name == "logfit")
    return sched::make_logfit();
  if (name == "fdets")
    return sched::make_fdets();
  if (name == "adets")
    return sched::make_adets();
  if (name == "auto")
    return sched::make_auto();
  if (name == "profile") // static partition from measured profiles
    return sched::make_profile();
  // FDETS with incremental data transfer (HCE paper, Algorithm 3): not in
  // scheduler_names() (the pragma's schedule kinds), for the runtime's
  // incremental communication mode.
  if (name == "fdets_inc")
    return sched::make_fdets_incremental();
  return nullptr;
}

const std::vector<std::string> &scheduler_names() {
  static const std::vector<std::string> names = {"static",  "quick",  "split",
                                                 "hguided", "logfit", "fdets",
                                                 "adets",   "auto",
                                                 "profile"};
  return names;
}

} // namespace hce
