#include "trace.hpp"

#include "log.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace hce {
namespace {

struct Event {
  int tid;
  std::string name;
  double start, end;
  std::function<std::string()> later; // the name, if set (trace_event_later)
};

struct Trace {
  std::mutex mutex;
  std::atomic<bool> on{false}; // path non-empty: lets trace_event skip the lock
  std::atomic<bool> loaded{false}; // HCE_TRACE read since the last flush
  std::string path;
  std::vector<Event> events;
  std::map<std::pair<std::string, std::string>, int> tracks; // -> tid
};

// The trace of the current runtime session; HCE_TRACE is read again after
// each flush (hce_finalize), so a process can trace several sessions.
Trace &trace() {
  static Trace *t = new Trace; // outlives every static destructor that may trace
  if (t->loaded.load(std::memory_order_acquire))
    return *t;
  std::lock_guard<std::mutex> lock(t->mutex);
  if (!t->loaded) {
    const char *p = std::getenv("HCE_TRACE");
    t->path = p ? p : "";
    t->on = !t->path.empty();
    t->loaded = true;
  }
  return *t;
}

std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20)
      out += c;
  }
  return out;
}

} // namespace

bool trace_enabled() { return trace().on.load(std::memory_order_relaxed); }

namespace {

void add_event(const std::string &device, const char *stream, Event e) {
  Trace &t = trace();
  if (!t.on.load(std::memory_order_relaxed))
    return;
  std::lock_guard<std::mutex> lock(t.mutex);
  if (t.path.empty())
    return;
  auto key = std::make_pair(device, std::string(stream));
  auto [it, fresh] = t.tracks.try_emplace(key, int(t.tracks.size()) + 1);
  e.tid = it->second;
  t.events.push_back(std::move(e));
}

} // namespace

void trace_event(const std::string &device, const char *stream, const std::string &name,
                 double start, double end) {
  add_event(device, stream, {0, name, start, end, nullptr});
}

void trace_event_later(const std::string &device, const char *stream,
                       std::function<std::string()> name, double start, double end) {
  add_event(device, stream, {0, std::string(), start, end, std::move(name)});
}

bool trace_flush() {
  Trace &t = trace();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.loaded = false;
  auto events = std::move(t.events);
  auto tracks = std::move(t.tracks);
  t.events.clear();
  t.tracks.clear();
  if (t.path.empty())
    return true;
  std::string tmp = t.path + ".tmp";
  {
    std::ofstream f(tmp);
    f << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
    f << "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\","
         "\"args\":{\"name\":\"hce\"}}";
    for (const auto &[key, tid] : tracks)
      f << ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":" << tid
        << ",\"name\":\"thread_name\",\"args\":{\"name\":\""
        << escape(key.first + " " + key.second) << "\"}}";
    char buf[128];
    for (const Event &e : events) {
      std::snprintf(buf, sizeof buf, "\"ts\":%.3f,\"dur\":%.3f", e.start * 1e6,
                    (e.end - e.start) * 1e6);
      f << ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":" << e.tid << ",\"name\":\""
        << escape(e.later ? e.later() : e.name) << "\"," << buf << "}";
    }
    f << "\n]}\n";
    if (!f) {
      warning("cannot write HCE_TRACE file '" + t.path + "'");
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), t.path.c_str()) != 0) {
    warning("cannot write HCE_TRACE file '" + t.path + "'");
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

} // namespace hce
