#include "profile/profile_store.hpp"

#include "clock.hpp"
#include "log.hpp"
#include "thread_name.hpp"
#include "trace.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

namespace hce::profile {
namespace {

constexpr const char *kHeader = "hce-profile 1";

// A value on the straight line through (x0, y0) and (x1, y1) at x.
double line(double x0, double y0, double x1, double y1, double x) {
  return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

// One field of the estimate, over samples sorted by size.
double interp_field(const std::vector<Sample> &v, double w, double Sample::*field) {
  const size_t n = v.size();
  if (n == 1) // through (0, 0) and the one sample
    return v[0].*field * w / double(v[0].iterations);
  auto x = [&](size_t i) { return double(v[i].iterations); };
  auto y = [&](size_t i) { return v[i].*field; };
  if (w >= x(0) && w <= x(n - 1)) {
    // The first size in [1, n-1] not below w (binary: the planner asks
    // hundreds of sizes per execution).
    const size_t hi = size_t(std::lower_bound(v.begin() + 1, v.end() - 1, w,
                                              [](const Sample &s, double at) {
                                                return double(s.iterations) < at;
                                              }) -
                             v.begin());
    return std::max(0.0, line(x(hi - 1), y(hi - 1), x(hi), y(hi), w));
  }
  // Outside the measured sizes: the end segment extended, unless it falls
  // (noise: more work cannot take less time) or goes negative; then the
  // end point in proportion to w.
  size_t a = w < x(0) ? 0 : n - 2, b = a + 1, end = w < x(0) ? 0 : n - 1;
  double v_line = line(x(a), y(a), x(b), y(b), w);
  bool falls = y(b) < y(a);
  if (!falls && v_line >= 0)
    return v_line;
  return y(end) * w / x(end);
}

// Which samples (sorted by size) are implausibly slow: kImplausibleRise
// times slower than a larger size took (more work cannot take less time)
// and, from the smaller sizes' lowest time per iteration, than their own
// size would take at kImplausibleRise times that rate.  Both where both
// exist, so that one sample too fast does not condemn the others.
std::vector<bool> implausibly_slow(const std::vector<Sample> &v) {
  const size_t n = v.size();
  std::vector<bool> slow(n, false);
  if (n < 2)
    return slow;
  std::vector<double> right_min(n, INFINITY); // least time of a larger size
  for (size_t i = n - 1; i-- > 0;)            // a time of 0 bounds nothing
    right_min[i] = v[i + 1].total_s() > 0 ? std::min(right_min[i + 1], v[i + 1].total_s())
                                          : right_min[i + 1];
  double left_rate = INFINITY; // least time per iteration of a smaller size
  for (size_t i = 0; i < n; ++i) {
    const double t = v[i].total_s();
    const bool above_right = i + 1 == n || t > kImplausibleRise * right_min[i];
    const bool above_left =
        i == 0 || t > kImplausibleRise * left_rate * double(v[i].iterations);
    slow[i] = above_right && above_left;
    if (t > 0)
      left_rate = std::min(left_rate, t / double(v[i].iterations));
  }
  return slow;
}

// Weighted merge of s into t (sizes close enough to be one).  A measurement
// (not two samples of different sizes merged for room) counts at most
// kMaxRise times t's time: see kMaxRise.
void merge_into(Sample &t, const Sample &s, bool measurement) {
  if (measurement && t.weight <= 1 && s.weight <= 1 && s.total_s() < t.total_s()) {
    const int64_t w = t.iterations; // (kMergeTolerance apart)
    t = s;                          // of two measurements the faster
    t.iterations = w;
    t.weight = 2;
    return;
  }
  double wt = t.weight, ws = s.weight, sum = wt + ws;
  auto mix = [&](double a, double b) { return (a * wt + b * ws) / sum; };
  double scale = 1;
  if (measurement && t.total_s() > 0 && s.total_s() > kMaxRise * t.total_s())
    scale = kMaxRise * t.total_s() / s.total_s();
  t.iterations = int64_t(std::llround(mix(double(t.iterations), double(s.iterations))));
  t.bytes = mix(t.bytes, s.bytes);
  t.exec_s = mix(t.exec_s, s.exec_s * scale);
  t.xfer_s = mix(t.xfer_s, s.xfer_s * scale);
  t.weight = std::min(kMaxWeight, sum);
}

std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

bool unescape(const std::string &s, std::string &out) {
  out.clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i == s.size())
      return false;
    if (s[i] == '\\')
      out += '\\';
    else if (s[i] == 't')
      out += '\t';
    else if (s[i] == 'n')
      out += '\n';
    else
      return false;
  }
  return true;
}

bool parse_double(const std::string &s, double &out) {
  if (s.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && errno == 0 && std::isfinite(out);
}

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

bool read_file(const std::string &path, std::string &text, bool &exists) {
  text.clear();
  std::FILE *f = std::fopen(path.c_str(), "rb");
  exists = f != nullptr;
  if (!f)
    return errno == ENOENT;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    text.append(buf, n);
  bool ok = !std::ferror(f);
  std::fclose(f);
  return ok;
}

} // namespace

std::vector<Sample> plausible_samples(const std::vector<Sample> &samples) {
  const std::vector<bool> slow = implausibly_slow(samples);
  std::vector<Sample> kept;
  kept.reserve(samples.size());
  for (size_t i = 0; i < samples.size(); ++i)
    if (!slow[i])
      kept.push_back(samples[i]);
  return kept.empty() ? samples : kept; // none plausible: read them all
}

std::optional<Estimate> interpolate_plausible(const std::vector<Sample> &v, int64_t w) {
  if (v.empty())
    return std::nullopt;
  Estimate e;
  if (w <= 0)
    return e;
  const double x = double(w);
  e.exec_s = interp_field(v, x, &Sample::exec_s);
  e.xfer_s = interp_field(v, x, &Sample::xfer_s);
  e.bytes = interp_field(v, x, &Sample::bytes);
  // The sizes within kMergeTolerance of w lie in [w (1 - tol), w / (1 - tol)]
  // (one iteration wider each way, against rounding).
  auto s = std::lower_bound(
      v.begin(), v.end(), x * (1 - kMergeTolerance) - 1,
      [](const Sample &a, double at) { return double(a.iterations) < at; });
  for (; s != v.end() && double(s->iterations) <= x / (1 - kMergeTolerance) + 1; ++s)
    if (std::fabs(double(s->iterations - w)) <=
        kMergeTolerance * double(std::max(s->iterations, w)))
      e.measurements = s->weight;
  return e;
}

std::optional<Estimate> interpolate(const std::vector<Sample> &samples, int64_t w) {
  if (samples.empty() || w <= 0)
    return interpolate_plausible(samples, w);
  // Read past the samples of a stall (kImplausibleRise): a copy only when
  // there is one.
  const std::vector<bool> slow = implausibly_slow(samples);
  if (std::find(slow.begin(), slow.end(), true) == slow.end())
    return interpolate_plausible(samples, w);
  return interpolate_plausible(plausible_samples(samples), w);
}

namespace {

// Moves v[i] (new, or its size changed by a merge) to its place by size.
// The rest stays sorted: no sort of the whole vector (recorded executions
// of a shrinking loop, lud's, add one sample to 32 every time).
void reposition(std::vector<Sample> &v, size_t i) {
  const Sample s = v[i];
  v.erase(v.begin() + long(i));
  auto at = std::upper_bound(v.begin(), v.end(), s.iterations,
                             [](int64_t w, const Sample &a) { return w < a.iterations; });
  v.insert(at, s);
}

} // namespace

void Store::add(std::vector<Sample> &v, const Sample &s) {
  if (s.iterations <= 0 || !(s.weight > 0))
    return;
  bool merged = false;
  for (size_t i = 0; i < v.size() && !merged; ++i) {
    Sample &t = v[i];
    double d = std::fabs(double(t.iterations - s.iterations));
    if (d <= kMergeTolerance * double(std::max(t.iterations, s.iterations))) {
      merge_into(t, s, true);
      reposition(v, i);
      merged = true;
    }
  }
  if (merged)
    return;
  v.push_back(s);
  reposition(v, v.size() - 1);
  while (v.size() > kMaxSamples) { // merge the two closest sizes
    size_t best = 0;
    double best_ratio = INFINITY;
    for (size_t i = 0; i + 1 < v.size(); ++i) {
      double r = double(v[i + 1].iterations) / double(v[i].iterations);
      if (r < best_ratio) {
        best_ratio = r;
        best = i;
      }
    }
    merge_into(v[best], v[best + 1], false);
    v.erase(v.begin() + long(best) + 1);
  }
  // Two merges may have made equal sizes; interpolation needs distinct ones.
  for (size_t i = 0; i + 1 < v.size();) {
    if (v[i].iterations == v[i + 1].iterations) {
      merge_into(v[i], v[i + 1], false);
      v.erase(v.begin() + long(i) + 1);
    } else {
      ++i;
    }
  }
}

std::vector<Sample> &Store::slot(SampleMap &map, std::string_view region,
                                 std::string_view device) {
  auto it = map.find(KeyView{region, device});
  if (it == map.end())
    it = map.emplace(Key{std::string(region), std::string(device)}, std::vector<Sample>{})
             .first;
  return it->second;
}

void Store::record(std::string_view region, std::string_view device, const Sample &s,
                   bool first_execution) {
  std::lock_guard<std::mutex> lock(mutex_);
  add(slot(data_, region, device), s); // this run plans with it either way
  if (first_execution) {
    add(slot(held_, region, device), s);
    return;
  }
  // A later execution: the region's first one is not what the next run
  // should start from -- except for a device that ran only then and was
  // left out after (keep_held_of_left_out), until it runs again.
  if (auto kept = kept_held_.find(KeyView{region, device}); kept != kept_held_.end())
    kept_held_.erase(kept);
  for (auto it = held_.lower_bound(KeyView{region, std::string_view()});
       it != held_.end() && it->first.first == region;)
    it = kept_held_.count(it->first) ? std::next(it) : held_.erase(it);
  add(slot(pending_, region, device), s);
}

void Store::keep_held_of_left_out(std::string_view region, std::string_view device) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (held_.count(KeyView{region, device}))
    kept_held_.emplace(std::string(region), std::string(device));
}

std::vector<Sample> Store::samples(std::string_view region,
                                   std::string_view device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = data_.find(KeyView{region, device});
  return it == data_.end() ? std::vector<Sample>{} : it->second;
}

bool Store::has(std::string_view region, std::string_view device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = data_.find(KeyView{region, device});
  return it != data_.end() && !it->second.empty();
}

std::optional<Estimate> Store::estimate(std::string_view region, std::string_view device,
                                        int64_t w) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = data_.find(KeyView{region, device});
  if (it == data_.end())
    return std::nullopt;
  return interpolate(it->second, w);
}

size_t Store::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto &[k, v] : pending_)
    n += v.size();
  for (const auto &[k, v] : held_)
    n += v.size();
  return n;
}

bool Store::mentions(std::string_view device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto &[k, v] : data_)
    if (!v.empty() && k.second.find(device) != std::string::npos)
      return true;
  return false;
}

size_t Store::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto &[k, v] : data_)
    n += v.size();
  return n;
}

void Store::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  kept_held_.clear();
  data_.clear();
  pending_.clear();
  held_.clear();
}

std::string Store::serialize() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out = std::string(kHeader) + "\n";
  out += "# HCE profile (docs/runtime-api.md): one line per sample, fields "
         "separated by tabs:\n";
  out += "# region\tdevice\titerations\tbytes\texec_seconds\ttransfer_"
         "seconds\tweight\n";
  for (const auto &[key, v] : data_)
    for (const Sample &s : v)
      out += escape(key.first) + "\t" + escape(key.second) + "\t" +
             std::to_string(s.iterations) + "\t" + fmt(s.bytes) + "\t" + fmt(s.exec_s) +
             "\t" + fmt(s.xfer_s) + "\t" + fmt(s.weight) + "\n";
  return out;
}

bool Store::parse(const std::string &text, const std::string &file, std::string &why) {
  SampleMap parsed;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  bool header = false;
  auto bad = [&](const std::string &what) {
    why = file + ":" + std::to_string(lineno) + ": " + what;
    return false;
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty() || line[0] == '#')
      continue;
    if (!header) {
      if (line != kHeader)
        return bad("expected the header line '" + std::string(kHeader) + "', got '" +
                   line.substr(0, 60) + "'");
      header = true;
      continue;
    }
    std::vector<std::string> f;
    size_t pos = 0;
    for (;;) {
      size_t tab = line.find('\t', pos);
      f.push_back(
          line.substr(pos, tab == std::string::npos ? std::string::npos : tab - pos));
      if (tab == std::string::npos)
        break;
      pos = tab + 1;
    }
    if (f.size() != 7)
      return bad("expected 7 tab-separated fields (region, device, "
                 "iterations, bytes, exec_seconds, transfer_seconds, "
                 "weight), got " +
                 std::to_string(f.size()));
    std::string region, device;
    if (!unescape(f[0], region) || region.empty())
      return bad("bad region name '" + f[0] + "'");
    if (!unescape(f[1], device) || device.empty())
      return bad("bad device name '" + f[1] + "'");
    Sample s;
    double it = 0;
    if (!parse_double(f[2], it) || it < 1 || it != std::floor(it) || it > 9e18)
      return bad("iterations '" + f[2] + "' is not a positive integer");
    s.iterations = int64_t(it);
    if (!parse_double(f[3], s.bytes) || s.bytes < 0)
      return bad("bytes '" + f[3] + "' is not a non-negative number");
    if (!parse_double(f[4], s.exec_s) || s.exec_s < 0)
      return bad("exec_seconds '" + f[4] + "' is not a non-negative number");
    if (!parse_double(f[5], s.xfer_s) || s.xfer_s < 0)
      return bad("transfer_seconds '" + f[5] + "' is not a non-negative number");
    if (!parse_double(f[6], s.weight) || !(s.weight > 0))
      return bad("weight '" + f[6] + "' is not a positive number");
    add(parsed[{region, device}], s);
  }
  // Only comments and blank lines (or nothing): an empty profile.
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto &[k, v] : parsed)
    for (const Sample &s : v)
      add(data_[k], s);
  return true;
}

void Store::merge(const Store &other) {
  if (&other == this)
    return;
  SampleMap copy;
  {
    std::lock_guard<std::mutex> lock(other.mutex_);
    copy = other.data_;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto &[k, v] : copy)
    for (const Sample &s : v)
      add(data_[k], s);
}

bool Store::load(const std::string &path) {
  std::string text, why;
  bool exists = false;
  if (!read_file(path, text, exists)) {
    warning("profile " + path + ": cannot be read (" + std::strerror(errno) +
            "); starting with an empty profile");
    return false;
  }
  Store fresh;
  if (!fresh.parse(text, path, why)) {
    warning("profile " + why + "; the file is ignored (it is replaced at exit)");
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  data_ = std::move(fresh.data_);
  pending_.clear();
  return true;
}

bool Store::save(const std::string &path) {
  // What the file holds now (another process may have added to it).
  Store merged;
  std::string text, why;
  bool exists = false;
  if (read_file(path, text, exists) && exists && !merged.parse(text, path, why))
    warning("profile " + why + "; the file is replaced");
  SampleMap mine;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    mine = pending_;
    for (const auto &[k, v] : held_) // regions that ran once, kept_held_
      for (const Sample &s : v)
        add(mine[k], s);
  }
  for (const auto &[k, v] : mine)
    for (const Sample &s : v)
      add(merged.data_[k], s);
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << merged.serialize();
    out.flush();
    if (!out) {
      warning("profile " + path + ": cannot write " + tmp + " (" + std::strerror(errno) +
              "); the measurements are not saved");
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    warning("profile " + path + ": cannot rename " + tmp + " over it (" +
            std::strerror(errno) + "); the measurements are not saved");
    std::remove(tmp.c_str());
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  data_ = std::move(merged.data_);
  pending_.clear();
  held_.clear();
  kept_held_.clear();
  return true;
}

namespace {
std::mutex global_mutex;
std::unique_ptr<Store> global_store;
std::string global_store_path;
bool global_requested = false; // HCE_PROFILE named a file (profile_requested)

// FNV-1a, 64 bits: a stable hash of the executable's path (std::hash
// may differ between library versions, and the name must not).
uint64_t fnv1a(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// HCE_PROFILE: unset, "off" or a path (docs/runtime-api.md).
const char *profile_env() { return std::getenv("HCE_PROFILE"); }

std::string global_path() {
  const char *env = profile_env();
  if (env && std::strcmp(env, "off") == 0)
    return "";
  if (env && *env)
    return env;
  std::string dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    dir = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    dir = std::string(home) + "/.cache";
  else
    return "";
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return dir + "/hce/" + cache_file_name(ec ? std::string() : exe.string());
}

// The environment is read once per runtime session, when the store loads
// (shutdown_global forgets it): the hooks ask at every execution, and a
// getenv there cost lud ~450 instructions an execution.
void load_locked() {
  if (global_store)
    return;
  const double start = now_seconds();
  global_store = std::make_unique<Store>();
  const char *env = profile_env();
  global_requested = env && *env && std::strcmp(env, "off") != 0;
  global_store_path = global_path();
  if (global_store_path.empty())
    return;
  global_store->load(global_store_path);
  if (trace_enabled())
    trace_event("profile", "load",
                "profile " + global_store_path + ": " +
                    std::to_string(global_store->size()) + " samples",
                start, now_seconds());
}

// The loader start_loading() starts; joined before the store is forgotten
// (a jthread: joined at exit too).
std::mutex loader_mutex;
std::jthread loader;

void join_loader() {
  std::lock_guard<std::mutex> lock(loader_mutex);
  if (loader.joinable())
    loader.join();
}
} // namespace

void start_loading() {
  std::lock_guard<std::mutex> lock(loader_mutex);
  if (loader.joinable())
    return;
  loader = std::jthread([] {
    name_this_thread("hce profile");
    std::lock_guard<std::mutex> store_lock(global_mutex);
    load_locked();
  });
}

std::string cache_file_name(std::string_view exe) {
  const std::filesystem::path path(exe);
  if (exe.empty() || path.filename().empty())
    return "program.profile";
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(fnv1a(exe)));
  return path.filename().string() + "-" + hash + ".profile";
}

bool profile_requested() {
  std::lock_guard<std::mutex> lock(global_mutex);
  load_locked();
  return global_requested;
}

Store &global() {
  std::lock_guard<std::mutex> lock(global_mutex);
  load_locked();
  return *global_store;
}

bool recording() {
  std::lock_guard<std::mutex> lock(global_mutex);
  load_locked();
  return !global_store_path.empty();
}

void shutdown_global() {
  join_loader();
  std::unique_ptr<Store> s;
  std::string path;
  bool requested = false;
  {
    std::lock_guard<std::mutex> lock(global_mutex);
    s = std::move(global_store);
    path = global_store_path;
    requested = global_requested;
    global_store_path.clear();
    global_requested = false;
  }
  if (s && !path.empty() && s->pending() > 0) {
    // The cache's folder may not exist yet (a user's HCE_PROFILE must).
    if (!requested) {
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    }
    s->save(path);
  }
}

} // namespace hce::profile
