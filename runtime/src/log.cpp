#include "log.hpp"

#include <mutex>
#include <set>

namespace hce {
namespace {
std::mutex log_mutex;

void emit(const char *kind, const std::string &msg) {
  std::lock_guard<std::mutex> lock(log_mutex);
  std::fprintf(stderr, "hce: %s%s\n", kind, msg.c_str());
  std::fflush(stderr);
}
} // namespace

void notice(const std::string &msg) { emit("note: ", msg); }
void warning(const std::string &msg) { emit("warning: ", msg); }
void error(const std::string &msg) { emit("error: ", msg); }

namespace {
// Whether `key` is seen for the first time in this process.
bool first_time(const std::string &key) {
  // Never destroyed: a message may come from the runtime's shutdown, which
  // runs after static destructors (HostPins::get()).
  static auto &seen = *new std::set<std::string>;
  std::lock_guard<std::mutex> lock(log_mutex);
  return seen.insert(key).second;
}
} // namespace

void notice_once(const std::string &key, const std::string &msg) {
  if (first_time(key))
    notice(msg);
}

void warning_once(const std::string &key, const std::string &msg) {
  if (first_time("warning/" + key))
    warning(msg);
}

} // namespace hce
