// Observability: HCE_STATS (JSON file and table), HCE_TRACE (Chrome trace
// JSON), and the HCE_SCHEDULE / HCE_CO overrides as the statistics show them.
// The JSON outputs are checked with a small strict recursive-descent parser
// (RFC 8259 grammar, no extensions), so malformed output fails the test.
#include "runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

// ---- a minimal strict JSON parser ------------------------------------------

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  // Object members in order (duplicates kept): keys[i] names vals[i].
  std::vector<std::string> keys;
  std::vector<Json> vals;

  const Json *get(const std::string &key) const {
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == key)
        return &vals[i];
    return nullptr;
  }
  bool has(const std::string &key, Kind k) const {
    const Json *v = get(key);
    return v && v->kind == k;
  }
};

class JsonParser {
public:
  explicit JsonParser(const std::string &text) : s_(text) {}

  // The whole text as one value; false and error() on any syntax error.
  bool parse(Json &out) {
    ws();
    if (!value(out, 0))
      return false;
    ws();
    if (i_ != s_.size())
      return fail("trailing characters");
    return true;
  }
  const std::string &error() const { return err_; }

private:
  bool fail(const std::string &what) {
    if (err_.empty())
      err_ = what + " at offset " + std::to_string(i_) + " near '" +
             s_.substr(i_, 30) + "'";
    return false;
  }
  void ws() {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool lit(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (s_.compare(i_, n, word) != 0)
      return fail(std::string("expected ") + word);
    i_ += n;
    return true;
  }
  bool value(Json &v, int depth) {
    if (depth > 64)
      return fail("nesting too deep");
    if (i_ >= s_.size())
      return fail("unexpected end");
    char c = s_[i_];
    if (c == '{')
      return object(v, depth);
    if (c == '[')
      return array(v, depth);
    if (c == '"') {
      v.kind = Json::String;
      return string(v.str);
    }
    if (c == 't') {
      v.kind = Json::Bool;
      v.b = true;
      return lit("true");
    }
    if (c == 'f') {
      v.kind = Json::Bool;
      return lit("false");
    }
    if (c == 'n') {
      v.kind = Json::Null;
      return lit("null");
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = Json::Number;
      return number(v.num);
    }
    return fail("unexpected character");
  }
  bool object(Json &v, int depth) {
    v.kind = Json::Object;
    ++i_; // {
    ws();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return true;
    }
    for (;;) {
      ws();
      if (i_ >= s_.size() || s_[i_] != '"')
        return fail("expected a key");
      std::string key;
      if (!string(key))
        return false;
      ws();
      if (i_ >= s_.size() || s_[i_] != ':')
        return fail("expected ':'");
      ++i_;
      ws();
      Json member;
      if (!value(member, depth + 1))
        return false;
      v.keys.push_back(std::move(key));
      v.vals.push_back(std::move(member));
      ws();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }
  bool array(Json &v, int depth) {
    v.kind = Json::Array;
    ++i_; // [
    ws();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return true;
    }
    for (;;) {
      ws();
      Json item;
      if (!value(item, depth + 1))
        return false;
      v.arr.push_back(std::move(item));
      ws();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }
  static int hex(char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  }
  bool string(std::string &out) {
    ++i_; // "
    while (i_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20)
        return fail("control character in string");
      if (c != '\\') {
        out += char(c);
        ++i_;
        continue;
      }
      if (++i_ >= s_.size())
        return fail("unterminated escape");
      char e = s_[i_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        int code = 0;
        for (int k = 0; k < 4; ++k) {
          int h = i_ < s_.size() ? hex(s_[i_++]) : -1;
          if (h < 0)
            return fail("bad \\u escape");
          code = code * 16 + h;
        }
        out += code < 0x80 ? char(code) : '?';
        break;
      }
      default:
        return fail("bad escape");
      }
    }
    return fail("unterminated string");
  }
  bool number(double &out) {
    size_t start = i_;
    if (s_[i_] == '-')
      ++i_;
    auto digits = [&] {
      size_t d = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9')
        ++i_;
      return i_ - d;
    };
    if (i_ < s_.size() && s_[i_] == '0')
      ++i_;
    else if (digits() == 0)
      return fail("bad number");
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (digits() == 0)
        return fail("bad fraction");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-'))
        ++i_;
      if (digits() == 0)
        return fail("bad exponent");
    }
    out = std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
    return true;
  }

  const std::string s_;
  size_t i_ = 0;
  std::string err_;
};

TEST(JsonParser, AcceptsValidAndRejectsInvalid) {
  Json v;
  for (const char *ok : {"{}", "[]", "{\"a\":[1,-2.5e3,true,false,null,\"x\\n\\u0041\"]}",
                         " [ 0 , {\"k\" : {}} ] "}) {
    JsonParser p(ok);
    EXPECT_TRUE(p.parse(v)) << ok << ": " << p.error();
  }
  for (const char *bad : {"", "{", "{\"a\":1,}", "[1 2]", "{'a':1}", "[01]",
                          "[1.]", "[nan]", "{\"a\" 1}", "[\"x]", "{} {}",
                          "[inf]", "[-]"}) {
    JsonParser p(bad);
    EXPECT_FALSE(p.parse(v)) << "accepted: " << bad;
  }
}

// ---- helpers -----------------------------------------------------------------

std::string read_file(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string temp_path(const std::string &stem) {
  const char *dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/hce_obs_" + stem + "_" +
         std::to_string(getpid()) + ".json";
}

// Removes the environment variables these tests set, whatever happens.
struct EnvGuard {
  ~EnvGuard() {
    hce_finalize();
    unsetenv("HCE_STATS");
    unsetenv("HCE_TRACE");
    unsetenv("HCE_SCHEDULE");
    unsetenv("HCE_CO");
  }
};

struct Args {
  int64_t n;
};

// out[k*n + j] = 2 * in[k*n + j] + 1, with a little work per row.
void scale_rows(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                void *) {
  const double *in = static_cast<const double *>(ptrs[0]);
  double *out = static_cast<double *>(ptrs[1]);
  const int64_t n = static_cast<const Args *>(args)->n;
  for (int64_t k = lb; k < ub; ++k)
    for (int64_t j = 0; j < n; ++j)
      out[k * n + j] = 2.0 * in[k * n + j] + 1.0;
}

struct Rows {
  int64_t W, n;
  std::vector<double> in, out;
  Args args;
  hce_map maps[2];
  void *site = nullptr;
  hce_region region{};

  Rows(const char *name, int64_t w, int64_t row, const char *schedule)
      : W(w), n(row), in(hce_test::random_vector(size_t(w * row), 21)),
        out(size_t(w * row), 0.0) {
    args.n = n;
    maps[0] = hce_test::row_map("in", in.data(), HCE_MAP_TO, n);
    maps[1] = hce_test::row_map("out", out.data(), HCE_MAP_FROM, n);
    region.name = name;
    region.schedule = schedule;
    region.iterations = W;
    region.num_maps = 2;
    region.maps = maps;
    region.args = &args;
    region.args_size = sizeof args;
    region.cpu = scale_rows;
    region.site = &site;
  }
  void expect_correct() const {
    for (size_t e = 0; e < out.size(); ++e)
      ASSERT_EQ(out[e], 2.0 * in[e] + 1.0) << "element " << e;
  }
};

bool parse_file(const std::string &path, Json &root) {
  std::string text = read_file(path);
  JsonParser p(text);
  if (!p.parse(root)) {
    ADD_FAILURE() << path << " is not valid JSON: " << p.error() << "\n"
                  << text.substr(0, 2000);
    return false;
  }
  return true;
}

// ---- HCE_STATS ---------------------------------------------------------------

TEST(Observability, StatsJsonHasEveryKeyAndIterationsAddUp) {
  EnvGuard guard;
  hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:1e12,lat:0");
  const std::string path = temp_path("stats");
  std::remove(path.c_str());
  setenv("HCE_STATS", path.c_str(), 1);

  const int64_t W1 = 300, W2 = 77;
  const int runs1 = 3, runs2 = 2;
  Rows a("obs_rows \"quoted\"", W1, 8, "hguided");
  Rows b("obs_other", W2, 3, "static");
  for (int r = 0; r < runs1; ++r) {
    ASSERT_EQ(hce_co_exec(&a.region), 0);
    a.expect_correct();
  }
  for (int r = 0; r < runs2; ++r)
    ASSERT_EQ(hce_co_exec(&b.region), 0);
  hce_finalize();
  unsetenv("HCE_STATS");

  Json root;
  ASSERT_TRUE(parse_file(path, root));
  ASSERT_EQ(root.kind, Json::Object);
  ASSERT_TRUE(root.has("regions", Json::Array));
  const Json &regions = *root.get("regions");
  ASSERT_EQ(regions.arr.size(), 2u);

  struct Expect {
    const char *name, *schedule;
    int64_t executions, W;
  } expect[2] = {{"obs_rows \"quoted\"", "hguided", runs1, W1},
                 {"obs_other", "static", runs2, W2}};
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE(expect[r].name);
    const Json &reg = regions.arr[size_t(r)];
    ASSERT_EQ(reg.kind, Json::Object);
    for (const char *key : {"name", "schedule"})
      ASSERT_TRUE(reg.has(key, Json::String)) << key;
    for (const char *key : {"executions", "iterations", "wall_seconds", "balance"})
      ASSERT_TRUE(reg.has(key, Json::Number)) << key;
    ASSERT_TRUE(reg.has("devices", Json::Array));
    EXPECT_EQ(reg.get("name")->str, expect[r].name);
    EXPECT_EQ(reg.get("schedule")->str, expect[r].schedule);
    EXPECT_EQ(reg.get("executions")->num, double(expect[r].executions));
    EXPECT_EQ(reg.get("iterations")->num,
              double(expect[r].executions * expect[r].W));
    EXPECT_GT(reg.get("wall_seconds")->num, 0.0);
    double balance = reg.get("balance")->num;
    EXPECT_GE(balance, 0.0);
    EXPECT_LE(balance, 1.0);

    const Json &devs = *reg.get("devices");
    std::set<std::string> names;
    double iters = 0, chunks = 0;
    for (const Json &d : devs.arr) {
      ASSERT_EQ(d.kind, Json::Object);
      ASSERT_TRUE(d.has("device", Json::String));
      for (const char *key : {"iterations", "chunks", "busy_seconds",
                              "bytes_to_device", "bytes_from_device",
                              "bytes_avoided"}) {
        ASSERT_TRUE(d.has(key, Json::Number)) << key;
        EXPECT_GE(d.get(key)->num, 0.0) << key;
      }
      names.insert(d.get("device")->str);
      iters += d.get("iterations")->num;
      chunks += d.get("chunks")->num;
      if (d.get("device")->str == "cpu")
        EXPECT_EQ(d.get("bytes_to_device")->num, 0.0) << "the CPU uses host memory";
    }
    EXPECT_EQ(names, (std::set<std::string>{"cpu", "sim:0", "sim:1"}));
    EXPECT_EQ(iters, double(expect[r].executions * expect[r].W))
        << "per-device iterations must sum to executions*W";
    EXPECT_GE(chunks, double(expect[r].executions));
  }
  std::remove(path.c_str());
}

TEST(Observability, StatsOnePrintsATableNamingEveryDevice) {
  EnvGuard guard;
  hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:1e12,lat:0");
  setenv("HCE_STATS", "1", 1);
  Rows a("obs_table", 200, 4, "fdets");
  ASSERT_EQ(hce_co_exec(&a.region), 0);
  testing::internal::CaptureStderr();
  hce_finalize();
  std::string err = testing::internal::GetCapturedStderr();
  unsetenv("HCE_STATS");
  EXPECT_NE(err.find("obs_table"), std::string::npos) << err;
  EXPECT_NE(err.find("fdets"), std::string::npos) << err;
  for (const char *dev : {"cpu", "sim:0", "sim:1"})
    EXPECT_NE(err.find(dev), std::string::npos) << dev << "\n" << err;
}

// ---- HCE_SCHEDULE and HCE_CO ---------------------------------------------------

TEST(Observability, ScheduleEnvironmentOverridesTheClause) {
  EnvGuard guard;
  hce_test::use_devices("cpu,sim:0", "sim=bw:1e12,lat:0");
  const std::string path = temp_path("schedule");
  std::remove(path.c_str());
  setenv("HCE_STATS", path.c_str(), 1);
  setenv("HCE_SCHEDULE", "adets", 1);
  Rows a("obs_sched", 150, 4, "static");
  ASSERT_EQ(hce_co_exec(&a.region), 0);
  a.expect_correct();
  EXPECT_EQ(hce::Runtime::get().sites().at(0)->schedule, "adets");
  hce_finalize();
  unsetenv("HCE_STATS");
  Json root;
  ASSERT_TRUE(parse_file(path, root));
  ASSERT_TRUE(root.has("regions", Json::Array));
  ASSERT_EQ(root.get("regions")->arr.size(), 1u);
  const Json &reg = root.get("regions")->arr[0];
  ASSERT_TRUE(reg.has("schedule", Json::String));
  EXPECT_EQ(reg.get("schedule")->str, "adets");
  std::remove(path.c_str());
}

// Sum of bytes_avoided over every device of every region of the runtime.
uint64_t total_avoided() {
  uint64_t sum = 0;
  for (const hce::SiteState *s : hce::Runtime::get().sites())
    for (const auto &[name, d] : s->stats.devices)
      sum += d.bytes_avoided;
  return sum;
}

// The input rows read by every chunk of a region repeated inside a data
// region: with CO the copy stays on the device, with HCE_CO=off it is
// uploaded again every chunk and nothing is avoided.
uint64_t avoided_in_data_region(bool co_off) {
  hce_test::use_devices("cpu,sim:0", "sim=bw:1e12,lat:0");
  if (co_off)
    setenv("HCE_CO", "off", 1);
  // sim:0 works in all four executions (a loaded run must not leave it out).
  hce_test::ScopedEnv keep_both("HCE_MIN_SHARE", "0");
  const int64_t W = 120, n = 6;
  Rows a("obs_co", W, n, "static");
  hce_map whole[2] = {
      {"in", a.in.data(), sizeof(double), HCE_MAP_TO, 0, 0, W * n, 1, 0},
      {"out", a.out.data(), sizeof(double), HCE_MAP_FROM, 0, 0, W * n, 1, 0}};
  EXPECT_EQ(hce_data_begin(2, whole), 0);
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(hce_co_exec(&a.region), 0);
  EXPECT_EQ(hce_data_end(), 0);
  a.expect_correct();
  EXPECT_GT(hce_last_iterations(&a.site, "sim:0"), 0);
  uint64_t avoided = total_avoided();
  hce_finalize();
  unsetenv("HCE_CO");
  return avoided;
}

TEST(Observability, CoOffAvoidsNothingInADataRegion) {
  EnvGuard guard;
  EXPECT_GT(avoided_in_data_region(false), 0u)
      << "with CO the repeated region should reuse device data";
  EXPECT_EQ(avoided_in_data_region(true), 0u)
      << "HCE_CO=off must move every footprint";
}

// ---- HCE_TRACE ----------------------------------------------------------------

// Checks a Chrome trace written for `devices`; `min_events` X events at least;
// each of `copying` has a `copies` track (its batches of host copies).
void check_trace(const std::string &path, const std::vector<std::string> &devices,
                 size_t min_events, const std::vector<std::string> &copying = {}) {
  Json root;
  ASSERT_TRUE(parse_file(path, root));
  ASSERT_EQ(root.kind, Json::Object);
  ASSERT_TRUE(root.has("traceEvents", Json::Array));
  std::map<double, std::string> thread_names; // tid -> name
  size_t complete = 0;
  std::set<double> tids_used;
  for (const Json &e : root.get("traceEvents")->arr) {
    ASSERT_EQ(e.kind, Json::Object);
    ASSERT_TRUE(e.has("ph", Json::String));
    const std::string &ph = e.get("ph")->str;
    if (ph == "M") {
      ASSERT_TRUE(e.has("name", Json::String));
      if (e.get("name")->str != "thread_name")
        continue;
      ASSERT_TRUE(e.has("tid", Json::Number));
      ASSERT_TRUE(e.has("args", Json::Object));
      ASSERT_TRUE(e.get("args")->has("name", Json::String));
      thread_names[e.get("tid")->num] = e.get("args")->get("name")->str;
    } else if (ph == "X") {
      ++complete;
      for (const char *key : {"ts", "dur", "pid", "tid"})
        ASSERT_TRUE(e.has(key, Json::Number)) << key;
      ASSERT_TRUE(e.has("name", Json::String));
      EXPECT_GE(e.get("ts")->num, 0.0);
      EXPECT_GE(e.get("dur")->num, 0.0);
      EXPECT_TRUE(std::isfinite(e.get("ts")->num));
      tids_used.insert(e.get("tid")->num);
    }
  }
  EXPECT_GE(complete, min_events);
  for (double tid : tids_used)
    EXPECT_TRUE(thread_names.count(tid)) << "X events on unnamed track " << tid;
  std::set<std::string> names;
  for (const auto &[tid, name] : thread_names)
    names.insert(name);
  for (const std::string &dev : devices)
    // "prepare": each device's per-execution preparation (the CPU's team,
    // an accelerator's windows), traced since call OC's cold traces could
    // not show where a first execution's milliseconds went.
    for (const char *stream : {"prepare", "upload", "compute", "download"}) {
      bool found = false;
      for (const std::string &name : names)
        found |= name.find(dev) != std::string::npos &&
                 name.find(stream) != std::string::npos;
      EXPECT_TRUE(found) << "no track named for " << dev << " " << stream;
    }
  for (const std::string &dev : copying)
    EXPECT_TRUE(names.count(dev + " copies"))
        << "no track of " << dev << "'s copy batches";
}

TEST(Observability, TraceIsWellFormedWithATrackPerDeviceAndStream) {
  EnvGuard guard;
  const std::string path = temp_path("trace");
  std::remove(path.c_str());
  setenv("HCE_TRACE", path.c_str(), 1);
  hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:1e12,lat:0");
  Rows a("obs_trace", 256, 16, "static");
  ASSERT_EQ(hce_co_exec(&a.region), 0);
  ASSERT_EQ(hce_co_exec(&a.region), 0);
  a.expect_correct();
  hce_finalize();
  unsetenv("HCE_TRACE");
  check_trace(path, {"cpu", "sim:0", "sim:1"}, 6, {"sim:0", "sim:1"});
  std::remove(path.c_str());
}

// hce_finalize() is documented to re-read the environment on next use
// (docs/runtime-api.md), so HCE_TRACE set after the runtime has already run
// once in this process must still produce a trace.
// The region track's `choice` events: one per execution, each naming what
// the scheduler chose in that execution (eft's arms), though formatted only
// when the file is written (trace_event_later: formatting every
// execution's cost ~1.3 us of lud's on the H100): a cold auto's first
// execution learns, a later one does not.
TEST(Observability, TraceNamesEachExecutionsOwnChoice) {
  EnvGuard guard;
  const std::string path = temp_path("trace_choice");
  std::remove(path.c_str());
  setenv("HCE_TRACE", path.c_str(), 1);
  hce_test::ScopedEnv cold("HCE_PROFILE", "off");
  hce_test::use_devices("cpu,sim:0", "sim=bw:1e12,lat:0");
  Rows a("obs_choice", 256, 16, "auto");
  const int kExecutions = 6;
  for (int e = 0; e < kExecutions; ++e)
    ASSERT_EQ(hce_co_exec(&a.region), 0);
  a.expect_correct();
  hce_finalize();
  unsetenv("HCE_TRACE");
  Json root;
  ASSERT_TRUE(parse_file(path, root));
  std::vector<std::string> choices;
  for (const Json &e : root.get("traceEvents")->arr)
    if (e.get("ph")->str == "X" &&
        e.get("name")->str.rfind("region obs_choice: ", 0) == 0 &&
        e.get("name")->str != "region obs_choice: plan")
      choices.push_back(e.get("name")->str);
  ASSERT_EQ(choices.size(), size_t(kExecutions));
  EXPECT_EQ(choices.front(),
            "region obs_choice: eft: learning: probing the devices' costs");
  // (Which execution learns again depends on the VM's timings.)
  EXPECT_TRUE(std::any_of(choices.begin() + 1, choices.end(), [](const std::string &c) {
    return c.find("learning") == std::string::npos &&
           c.find("arms: co ") != std::string::npos;
  })) << choices.back();
  EXPECT_GE(std::set<std::string>(choices.begin(), choices.end()).size(), 3u);
  std::remove(path.c_str());
}

TEST(Observability, TraceIsReReadAfterFinalize) {
  EnvGuard guard;
  unsetenv("HCE_TRACE");
  hce_test::use_devices("cpu,sim:0", "sim=bw:1e12,lat:0");
  {
    Rows warm("obs_untraced", 40, 2, "static");
    ASSERT_EQ(hce_co_exec(&warm.region), 0);
  }
  const std::string path = temp_path("trace2");
  std::remove(path.c_str());
  setenv("HCE_TRACE", path.c_str(), 1);
  hce_test::use_devices("cpu,sim:0", "sim=bw:1e12,lat:0");
  Rows a("obs_trace2", 64, 4, "static");
  ASSERT_EQ(hce_co_exec(&a.region), 0);
  hce_finalize();
  unsetenv("HCE_TRACE");
  ASSERT_FALSE(read_file(path).empty())
      << "HCE_TRACE set after an earlier runtime instance wrote no trace";
  check_trace(path, {"cpu", "sim:0"}, 2);
  std::remove(path.c_str());
}

} // namespace
