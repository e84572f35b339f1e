#include "stats.hpp"

#include "log.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace hce {
namespace {

std::string json_string(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

} // namespace

std::string fmt_bytes(uint64_t b) {
  char buf[32];
  if (b >= (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.2f GiB", double(b) / double(1ull << 30));
  else if (b >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.2f MiB", double(b) / double(1ull << 20));
  else if (b >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  return buf;
}

std::string stats_table(const std::vector<NamedStats> &regions) {
  std::ostringstream out;
  char line[512];
  for (const auto &r : regions) {
    const RegionStats &s = r.stats;
    std::snprintf(line, sizeof line,
                  "hce: region %s  schedule=%s%s%s%s  executions=%lld  "
                  "iterations=%lld  wall=%.6f s  balance=%.3f\n",
                  r.name.c_str(), s.schedule.c_str(), s.choice.empty() ? "" : " (",
                  s.choice.c_str(), s.choice.empty() ? "" : ")",
                  static_cast<long long>(s.executions),
                  static_cast<long long>(s.iterations), s.wall_seconds,
                  s.balance);
    out << line;
    std::snprintf(line, sizeof line, "hce:   %-8s %14s %8s %11s %12s %12s %12s %12s\n",
                  "device", "iterations", "chunks", "busy[s]", "to device",
                  "from device", "peer", "avoided");
    out << line;
    for (const auto &name : s.device_order) {
      const DeviceStats &d = s.devices.at(name);
      std::snprintf(line, sizeof line,
                    "hce:   %-8s %14lld %8lld %11.6f %12s %12s %12s %12s\n",
                    name.c_str(), static_cast<long long>(d.iterations),
                    static_cast<long long>(d.chunks), d.busy_seconds,
                    fmt_bytes(d.bytes_to_device).c_str(),
                    fmt_bytes(d.bytes_from_device).c_str(),
                    fmt_bytes(d.bytes_peer).c_str(),
                    fmt_bytes(d.bytes_avoided).c_str());
      out << line;
    }
  }
  return out.str();
}

std::string stats_json(const std::vector<NamedStats> &regions) {
  std::ostringstream out;
  out.precision(9);
  out << "{\"regions\":[";
  bool first = true;
  for (const auto &r : regions) {
    const RegionStats &s = r.stats;
    out << (first ? "" : ",") << "{\"name\":" << json_string(r.name)
        << ",\"schedule\":" << json_string(s.schedule)
        << ",\"choice\":" << json_string(s.choice)
        << ",\"executions\":" << s.executions
        << ",\"iterations\":" << s.iterations
        << ",\"wall_seconds\":" << s.wall_seconds
        << ",\"balance\":" << s.balance << ",\"devices\":[";
    first = false;
    bool dfirst = true;
    for (const auto &name : s.device_order) {
      const DeviceStats &d = s.devices.at(name);
      out << (dfirst ? "" : ",") << "{\"device\":" << json_string(name)
          << ",\"iterations\":" << d.iterations << ",\"chunks\":" << d.chunks
          << ",\"busy_seconds\":" << d.busy_seconds
          << ",\"last_iterations\":" << d.last_iterations
          << ",\"last_finish\":" << d.last_finish
          << ",\"bytes_to_device\":" << d.bytes_to_device
          << ",\"bytes_from_device\":" << d.bytes_from_device
          << ",\"bytes_peer\":" << d.bytes_peer
          << ",\"bytes_avoided\":" << d.bytes_avoided
          << ",\"background_wait_seconds\":" << d.background_wait_seconds
          << ",\"left_out\":" << d.left_out << "}";
      dfirst = false;
    }
    out << "]}";
  }
  out << "]}\n";
  return out.str();
}

void report_stats_from_env(const std::vector<NamedStats> &regions) {
  const char *env = std::getenv("HCE_STATS");
  if (!env || !*env || std::string(env) == "0")
    return;
  if (std::string(env) == "1") {
    std::fputs(stats_table(regions).c_str(), stderr);
    return;
  }
  std::string path = env;
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << stats_json(regions);
    if (!f) {
      warning("cannot write HCE_STATS file '" + path + "'");
      std::remove(tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    warning("cannot write HCE_STATS file '" + path + "'");
    std::remove(tmp.c_str());
  }
}

} // namespace hce
