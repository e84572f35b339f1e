// The `profile` scheduler (runtime/src/sched/profile.cpp) and what the
// runtime tells it about a region: the region's name, the devices' names
// and memory bounds, and the profile store to read.
#pragma once

#include "profile/profile_plan.hpp"
#include "profile/profile_store.hpp"
#include "sched/scheduler.hpp"

#include <memory>
#include <string>
#include <vector>

namespace hce::profile {

struct ProfileContext {
  std::string region;                  // the region's name (name(...) or file:line)
  std::vector<std::string> devices;    // names, in scheduler device order
  std::vector<int64_t> max_iterations; // memory bound per device, 0 = none
  const Store *store = nullptr;        // nullptr: the global store (HCE_PROFILE)
};

// Schedulers that use a region's profile implement this; the runtime
// calls set_profile_context before every begin().
class ProfileAware {
public:
  virtual ~ProfileAware() = default;
  virtual void set_profile_context(const ProfileContext &ctx) = 0;
  // The plan of the current execution when it came from `profile`.
  virtual const Plan *profile_plan() const = 0;
};

// The store a context reads.
const Store &store_of(const ProfileContext &ctx);
// True when every device of ctx has samples for ctx.region.
bool has_profile(const ProfileContext &ctx);

// The plan of s's current execution if s is `profile`, nullptr otherwise.
const Plan *plan_of(const Scheduler &s);
// Gives s the context if it wants one (no-op otherwise).
void set_context(Scheduler &s, const ProfileContext &ctx);

} // namespace hce::profile

namespace hce::sched {
std::unique_ptr<Scheduler> make_profile();
} // namespace hce::sched
