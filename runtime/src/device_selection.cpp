#include "device_selection.hpp"

#include <cctype>

namespace hce {
namespace {
std::string trim(const std::string &s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
    --e;
  return s.substr(b, e - b);
}
} // namespace

std::optional<std::vector<DeviceSpec>> parse_device_list(const std::string &text,
                                                         std::string &why) {
  std::vector<DeviceSpec> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos)
      comma = text.size();
    std::string item = trim(text.substr(pos, comma - pos));
    pos = comma + 1;
    if (item.empty()) {
      if (comma == text.size() && !out.empty())
        break;
      why = "empty device name in '" + text + "'";
      return std::nullopt;
    }
    DeviceSpec spec;
    size_t colon = item.find(':');
    spec.kind = item.substr(0, colon);
    if (spec.kind != "cpu" && spec.kind != "sim" && spec.kind != "cuda" &&
        spec.kind != "omp") {
      why = "unknown device '" + item + "' (expected cpu, sim:N, cuda[:N] or omp[:N])";
      return std::nullopt;
    }
    if (colon != std::string::npos) {
      std::string num = item.substr(colon + 1);
      bool digits = !num.empty() && num.size() < 6;
      for (char c : num)
        digits = digits && std::isdigit(static_cast<unsigned char>(c));
      if (!digits || spec.kind == "cpu") {
        why = "bad device number in '" + item + "'";
        return std::nullopt;
      }
      spec.ordinal = std::stoi(num);
    } else if (spec.kind == "sim") {
      spec.ordinal = 0;
    }
    bool dup = false;
    for (const auto &s : out)
      dup = dup || s == spec;
    if (!dup)
      out.push_back(spec);
    if (comma == text.size())
      break;
  }
  return out;
}

bool spec_matches(const DeviceSpec &spec, const std::string &kind, int ordinal) {
  if (spec.kind != kind)
    return false;
  return kind == "cpu" || spec.ordinal < 0 || spec.ordinal == ordinal;
}

} // namespace hce
