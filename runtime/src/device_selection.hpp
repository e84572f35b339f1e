// Which devices a process uses: HCE_DEVICES (a comma list of cpu, sim:N,
// cuda, cuda:N, omp, omp:N), else everything detected.  A region's
// devices(...) clause then restricts that set.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hce {

struct DeviceSpec {
  std::string kind; // "cpu", "sim", "cuda", "omp"
  int ordinal = -1; // -1: every device of that kind ("cuda")
  std::string name() const {
    return ordinal < 0 || kind == "cpu" ? kind : kind + ":" + std::to_string(ordinal);
  }
  friend bool operator==(const DeviceSpec &, const DeviceSpec &) = default;
};

// Parses a device list such as "cpu, sim:0,cuda".  On a malformed entry
// returns nullopt and explains in `why`.
std::optional<std::vector<DeviceSpec>> parse_device_list(const std::string &text,
                                                         std::string &why);

// True when `device_name` ("sim:1") is named by `spec` ("sim:1" or "sim").
bool spec_matches(const DeviceSpec &spec, const std::string &kind, int ordinal);

} // namespace hce
