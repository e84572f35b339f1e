// The HCE_* variables that tune every region's execution, parsed into one
// typed object (libomptarget's Envar style) that rejects a bad value with
// one message instead of silently taking a default (HCE_CO=maybe,
// HCE_MIN_SHARE=x).  Device selection (HCE_DEVICES, HCE_SIM), output
// (HCE_STATS, HCE_TRACE) and the profile (HCE_PROFILE) are read where they
// are used, once per runtime.
//
// Read once, when the runtime starts (Runtime::settings()); a bad value then
// fails every region with `hce: error: HCE_X='value': expected ...`.  Tests
// that change them between regions call Runtime::reload_settings().
#pragma once

#include "data_env.hpp" // CoMode

#include <cstdint>
#include <optional>
#include <string>

namespace hce {

// "none"/"off", "incremental", "pipelined"; nullopt for anything else.
std::optional<CoMode> parse_co_mode(const std::string &text);

struct Settings {
  std::optional<std::string> schedule; // HCE_SCHEDULE: overrides schedule()
  std::optional<CoMode> co;            // HCE_CO: overrides co()
  std::optional<int64_t> chunk;        // HCE_CHUNK: overrides chunk()
  std::optional<double> alpha;         // HCE_ALPHA: overrides alpha()
  double min_share = 0.03;             // HCE_MIN_SHARE, in [0, 1)

  // The settings from the environment; false + why (naming the variable and
  // the accepted values) on a bad value.
  static bool from_env(Settings &out, std::string &why);
};

} // namespace hce
