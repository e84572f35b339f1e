#include "settings.hpp"

#include "sched/scheduler.hpp"
#include "tasks/mapper.hpp"
#include "text_list.hpp"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>

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

// "0" or "1" (HCE_CUDA_P2P, HCE_HUGE_PAGES, HCE_TASK_LOG, HCE_OMP_POISON).
std::optional<bool> parse_flag(const std::string &text) {
  if (text == "0" || text == "1")
    return text == "1";
  return std::nullopt;
}

// A decimal count from 0 to 64, the whole text (HCE_COPY_THREADS_BESIDE,
// HCE_CORES_PER_ACCELERATOR, HCE_CORES_LEFT_FREE, HCE_PREFAULT).
std::optional<int> parse_count(const char *text) {
  char *end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (*end || *text == '\0' || n < 0 || n > 64)
    return std::nullopt;
  return int(n);
}

// A whole finite number > 0 (strtod alone takes blanks, hex, inf, nan).
std::optional<double> parse_positive(const std::string &text) {
  if (text.empty() ||
      !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.'))
    return std::nullopt;
  char *end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end || !std::isfinite(v) || !(v > 0) ||
      text.find_first_of("xX") != std::string::npos)
    return std::nullopt;
  return v;
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

std::optional<PinPolicy> parse_pin_policy(const std::string &text) {
  for (PinPolicy p :
       {PinPolicy::Region, PinPolicy::Keep, PinPolicy::Stage, PinPolicy::Off})
    if (text == pin_policy_name(p))
      return p;
  return std::nullopt;
}

const char *pin_policy_name(PinPolicy p) {
  switch (p) {
  case PinPolicy::Region: return "region";
  case PinPolicy::Keep: return "keep";
  case PinPolicy::Stage: return "stage";
  case PinPolicy::Off: return "off";
  }
  return "?";
}

std::optional<size_t> parse_byte_size(const std::string &text) {
  // A decimal number first: strtod alone would also take leading blanks, a
  // sign, hexadecimal, inf and nan.
  const char *s = text.c_str();
  if (!(std::isdigit(static_cast<unsigned char>(s[0])) ||
        (s[0] == '.' && std::isdigit(static_cast<unsigned char>(s[1])))))
    return std::nullopt;
  char *end = nullptr;
  const double v = std::strtod(s, &end);
  for (const char *c = s; c < end; ++c)
    if (*c == 'x' || *c == 'X')
      return std::nullopt;
  double mul = 1;
  switch (*end) {
  case 'k':
  case 'K': mul = 1024.0; break;
  case 'm':
  case 'M': mul = 1024.0 * 1024; break;
  case 'g':
  case 'G': mul = 1024.0 * 1024 * 1024; break;
  default: break;
  }
  if (mul != 1)
    ++end;
  if (mul != 1 && end[0] == 'i' && end[1] == 'B')
    end += 2;
  else if (end[0] == 'B')
    ++end;
  const double bytes = v * mul;
  // 2^64 (for a 64-bit size_t) is the first double that does not fit.
  const double too_many = std::ldexp(1.0, std::numeric_limits<size_t>::digits);
  if (*end || !std::isfinite(bytes) || bytes < 0 || bytes >= too_many)
    return std::nullopt;
  return static_cast<size_t>(bytes);
}

bool Settings::from_env(Settings &result, std::string &why) {
  result = Settings{};
  Settings out;
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
  if (const char *v = value("HCE_COPY_THREADS_BESIDE")) {
    out.copy_threads_beside = parse_count(v);
    if (!out.copy_threads_beside)
      return bad(why, "HCE_COPY_THREADS_BESIDE", v, "a thread count from 0 to 64");
  }
  if (const char *v = value("HCE_CORES_PER_ACCELERATOR")) {
    out.cores_per_accelerator = parse_count(v);
    if (!out.cores_per_accelerator)
      return bad(why, "HCE_CORES_PER_ACCELERATOR", v, "a core count from 0 to 64");
  }
  if (const char *v = value("HCE_CORES_LEFT_FREE")) {
    out.cores_left_free = parse_count(v);
    if (!out.cores_left_free)
      return bad(why, "HCE_CORES_LEFT_FREE", v, "a core count from 0 to 64");
  }
  const char *bytes_want = "a byte count (4096, 64k, 512MiB, 1.5g: k, m, g are powers of "
                           "1024, then optionally B or iB)";
  if (const char *v = value("HCE_CUDA_MEM_LIMIT")) {
    out.cuda_mem_limit = parse_byte_size(v);
    if (!out.cuda_mem_limit)
      return bad(why, "HCE_CUDA_MEM_LIMIT", v, bytes_want);
  }
  if (const char *v = value("HCE_OMP_MEM_LIMIT")) {
    out.omp_mem_limit = parse_byte_size(v);
    if (!out.omp_mem_limit)
      return bad(why, "HCE_OMP_MEM_LIMIT", v, bytes_want);
  }
  if (const char *v = value("HCE_CUDA_PIN")) {
    auto p = parse_pin_policy(v);
    if (!p)
      return bad(why, "HCE_CUDA_PIN", v, "region, keep, stage or off");
    out.cuda_pin = *p;
  }
  if (const char *v = value("HCE_CUDA_P2P")) {
    const std::optional<bool> p2p = parse_flag(v);
    if (!p2p)
      return bad(why, "HCE_CUDA_P2P", v, "0 (off) or 1 (on)");
    out.cuda_p2p = *p2p;
  }
  if (const char *v = value("HCE_HUGE_PAGES")) {
    const std::optional<bool> huge = parse_flag(v);
    if (!huge)
      return bad(why, "HCE_HUGE_PAGES", v, "0 (off) or 1 (on)");
    out.huge_pages = *huge;
  }
  if (const char *v = value("HCE_PREFAULT")) {
    out.prefault_threads = parse_count(v);
    if (!out.prefault_threads)
      return bad(why, "HCE_PREFAULT", v, "a thread count from 0 (off) to 64");
  }
  if (const char *v = value("HCE_OMP_POISON")) {
    const std::optional<bool> poison = parse_flag(v);
    if (!poison)
      return bad(why, "HCE_OMP_POISON", v, "0 (off) or 1 (on)");
    out.omp_poison = *poison;
  }
  if (const char *v = value("HCE_TASK_MAP")) {
    if (!tasks::make_mapper(v)) {
      std::string known;
      for (const auto &n : tasks::mapper_names())
        known += (known.empty() ? "" : ", ") + n;
      return bad(why, "HCE_TASK_MAP", v, "a task mapper: " + known);
    }
    out.task_map = v;
  }
  if (const char *v = value("HCE_TASK_THRESHOLD")) {
    char *end = nullptr;
    errno = 0;
    long long n = std::strtoll(v, &end, 10);
    if (*end || errno || n <= 0 || n > INT_MAX)
      return bad(why, "HCE_TASK_THRESHOLD", v, "a number of tasks (an integer > 0)");
    out.task_threshold = n;
  }
  if (const char *v = value("HCE_TASK_PARTITION")) {
    const std::string text = v;
    if (text == "off" || text == "0")
      out.task_partition = 0;
    else if (!(out.task_partition = parse_positive(text)))
      return bad(why, "HCE_TASK_PARTITION", v, "seconds (a number > 0), or off");
  }
  if (const char *v = value("HCE_TASK_SPEED")) {
    for (const std::string &item : split_list(v, ',')) {
      const size_t eq = item.find('=');
      const std::optional<double> speed =
          eq == std::string::npos ? std::nullopt : parse_positive(item.substr(eq + 1));
      if (eq == 0 || !speed)
        return bad(
            why, "HCE_TASK_SPEED", v,
            "relative speeds NAME=SPEED, comma-separated, each > 0 (cpu=1,cuda=8)");
      out.task_speed.push_back({item.substr(0, eq), *speed});
    }
  }
  if (const char *v = value("HCE_TASK_LOG")) {
    const std::optional<bool> log = parse_flag(v);
    if (!log)
      return bad(why, "HCE_TASK_LOG", v, "0 (off) or 1 (one line per task)");
    out.task_log = *log;
  }
  result = out;
  return true;
}

} // namespace hce
