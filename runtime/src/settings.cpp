#include "settings.hpp"

#include "sched/scheduler.hpp"

#include <cstdlib>

namespace hce {
namespace {

const char *value(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

bool bad(std::string &why, const char *name, const char *v, const std::string &want) {
  why = std::string(name) + "='" + v + "': expected " + want;
  return false;
}

} // namespace

std::optional<CoMode> parse_co_mode(const std::string &text) {
  if (text == "none" || text == "off")
    return CoMode::None;
  if (text == "incremental")
    return CoMode::Incremental;
  if (text == "pipelined")
    return CoMode::Pipelined;
  return std::nullopt;
}

bool Settings::from_env(Settings &out, std::string &why) {
  out = Settings{};
  if (const char *v = value("HCE_SCHEDULE")) {
    if (!make_scheduler(v)) {
      std::string known;
      for (const auto &n : scheduler_names())
        known += (known.empty() ? "" : ", ") + n;
      return bad(why, "HCE_SCHEDULE", v, "one of " + known);
    }
    out.schedule = v;
  }
  if (const char *v = value("HCE_CO")) {
    out.co = parse_co_mode(v);
    if (!out.co)
      return bad(why, "HCE_CO", v, "none, off, incremental or pipelined");
  }
  if (const char *v = value("HCE_CHUNK")) {
    char *end = nullptr;
    long long n = std::strtoll(v, &end, 10);
    if (*end || n < 0)
      return bad(why, "HCE_CHUNK", v, "a chunk size (an integer >= 0)");
    out.chunk = n;
  }
  if (const char *v = value("HCE_ALPHA")) {
    char *end = nullptr;
    double a = std::strtod(v, &end);
    if (*end || !(a > 0 && a < 1))
      return bad(why, "HCE_ALPHA", v, "a number in (0, 1)");
    out.alpha = a;
  }
  if (const char *v = value("HCE_MIN_SHARE")) {
    char *end = nullptr;
    double m = std::strtod(v, &end);
    if (*end || !(m >= 0 && m < 1))
      return bad(why, "HCE_MIN_SHARE", v, "a share in [0, 1)");
    out.min_share = m;
  }
  return true;
}

} // namespace hce
