// Random programs inside one data region, against their sequential twin.
//
// Each program keeps two arrays of rows (a, b) in a data region and runs a
// random sequence of operations on random row ranges: stencil sweeps a -> b
// and b -> a (a halo row on each side), an in-place update of a, reductions
// over b (an integer sum, a maximum), host writes announced with
// hce_update(to) and host reads after hce_update(from).  The same call
// sites run with a different trip count at almost every execution, so the
// partitions move between the devices and every row travels: a copy marked
// valid too early, a halo fetched from a stale holder, a host write the
// devices miss or a reduction that drops a partial result shows as a
// difference from the twin (bit for bit: every device runs the same CPU
// variant, a sim device on its own memory, which starts poisoned).
#include "test_support.hpp"

#include "runtime.hpp"
#include "sched/scheduler.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Args {
  int64_t n;         // row length
  int64_t lo;        // the loop's first row
  double c;          // a constant of the body
  int64_t every = 1; // a sweep writes every `every`-th element of a row
};

// dst[i] = (src[i-1] + src[i] + src[i+1]) / 3 + c, rows lo .. lo+W-1; with
// every = 2 only the even elements of each row (the others keep theirs).
void sweep_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *src = static_cast<const double *>(ptrs[0]);
  double *dst = static_cast<double *>(ptrs[1]);
  const auto *a = static_cast<const Args *>(args);
  for (int64_t k = lb; k < ub; ++k) {
    const int64_t i = a->lo + k;
    for (int64_t j = 0; j < a->n; j += a->every)
      dst[i * a->n + j] =
          (src[(i - 1) * a->n + j] + src[i * a->n + j] + src[(i + 1) * a->n + j]) / 3.0 +
          a->c;
  }
}

// x[i] = x[i] * c + 1 in place.
void scale_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  double *x = static_cast<double *>(ptrs[0]);
  const auto *a = static_cast<const Args *>(args);
  for (int64_t k = lb; k < ub; ++k)
    for (int64_t j = 0; j < a->n; ++j) {
      double &v = x[(a->lo + k) * a->n + j];
      v = v * a->c + 1.0;
    }
}

// The integer sum of round(1024 x) and the maximum of x over the rows:
// exact whatever the order the devices combine in.
int64_t fixed(double v) { return std::llround(v * 1024.0); }
void reduce_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *red) {
  const double *x = static_cast<const double *>(ptrs[0]);
  const auto *a = static_cast<const Args *>(args);
  auto *sum = static_cast<int64_t *>(red);
  auto *mx = reinterpret_cast<double *>(static_cast<char *>(red) + HCE_RED_SLOT_BYTES);
  for (int64_t k = lb; k < ub; ++k)
    for (int64_t j = 0; j < a->n; ++j) {
      const double v = x[(a->lo + k) * a->n + j];
      *sum += fixed(v);
      *mx = std::max(*mx, v);
    }
}

// Rows [lo, lo + rows) of an array of rows of n doubles, one row an
// iteration from `first` (relative to lo): a region's map.
hce_map rows_map(const char *name, std::vector<double> &x, int kind, int64_t n,
                 int64_t lo, int64_t first, int64_t rows) {
  hce_map m = hce_test::row_map(name, x.data(), kind, n);
  m.offset = (lo + first) * n;
  m.len = rows * n;
  m.extent = int64_t(x.size());
  return m;
}

// A section of whole rows [lo, hi) (update, data region).
hce_map section(const char *name, std::vector<double> &x, int kind, int64_t n, int64_t lo,
                int64_t hi) {
  hce_map m = hce_test::row_map(name, x.data(), kind, n);
  m.scale = 0;
  m.offset = lo * n;
  m.len = (hi - lo) * n;
  m.extent = int64_t(x.size());
  return m;
}

struct Program {
  int64_t m, n; // rows, row length
  std::string schedule;
  // The communication mode of the program's regions: the scheduler's own,
  // or none, incremental or pipelined (the three-stream pipeline).
  const char *co = nullptr;
  std::vector<double> a, b;   // the runtime's
  std::vector<double> ra, rb; // the sequential twin's
  void *sites[5] = {};        // sweep a->b, sweep b->a, scale, reduce (2 kinds)
  std::mt19937_64 gen;
  std::ostringstream log;             // the operations so far, for a failure
  std::map<std::string, int64_t> did; // iterations per device

  Program(int64_t rows, int64_t cols, std::string sched, unsigned seed)
      : m(rows), n(cols), schedule(std::move(sched)),
        a(hce_test::random_vector(size_t(rows * cols), seed)),
        b(hce_test::random_vector(size_t(rows * cols), seed + 1)), ra(a), rb(b),
        gen(seed) {
    const char *modes[] = {nullptr, "none", "incremental", "pipelined"};
    co = modes[pick(0, 3)];
    log << "co " << (co ? co : "(the scheduler's)") << "; ";
  }

  int64_t pick(int64_t lo, int64_t hi) { // uniform in [lo, hi]
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen);
  }
  // A random range of rows [lo, hi) within [first, last).
  std::pair<int64_t, int64_t> rows(int64_t first, int64_t last) {
    const int64_t lo = pick(first, last - 1);
    // Mostly long ranges (work for every device), sometimes a row or two.
    const int64_t hi =
        pick(0, 3) == 0 ? std::min(last, lo + pick(1, 2)) : pick(lo + 1, last);
    return {lo, hi};
  }

  hce_region region(const char *name, int64_t trips, hce_map *maps, int num_maps,
                    const Args *args, hce_cpu_variant cpu, void **site) const {
    hce_region r =
        hce_test::region_of(name, maps, num_maps, trips, *args, cpu, site, schedule);
    r.co = co;
    return r;
  }

  // Runs r; false (a failure added) when it fails.
  bool run(const hce_region &r) {
    if (hce_co_exec(&r) != 0) {
      ADD_FAILURE() << "region " << r.name << " failed";
      return false;
    }
    for (int d = 0; d < hce_num_devices(); ++d)
      did[hce_device_name(d)] += hce_last_iterations(r.site, hce_device_name(d));
    return true;
  }

  // One random operation; false after a failed assertion.
  bool step() {
    const int op = int(pick(0, 9));
    if (op <= 3) { // a sweep, a -> b or b -> a, the destination from or tofrom
      const bool ab = op % 2 == 0;
      auto [lo, hi] = rows(1, m - 1);
      // Every element, or the even ones: a from map that does not write
      // all of its footprint keeps the others' present values.
      Args args{n, lo, double(pick(-4, 4)) / 8, pick(1, 2)};
      const int dst_kind = args.every == 1 && pick(0, 1)
                               ? HCE_MAP_FROM | HCE_MAP_WRITES_ALL
                           : pick(0, 1) ? HCE_MAP_FROM
                                        : HCE_MAP_TOFROM;
      std::vector<double> &src = ab ? a : b, &dst = ab ? b : a;
      hce_map maps[2] = {rows_map("src", src, HCE_MAP_TO, n, lo, -1, 3),
                         rows_map("dst", dst, dst_kind, n, lo, 0, 1)};
      log << (ab ? "sweep a->b " : "sweep b->a ") << lo << ".." << hi
          << (args.every > 1 ? " even" : "") << " kind " << dst_kind << "; ";
      hce_region r = region(ab ? "soak_ab" : "soak_ba", hi - lo, maps, 2, &args,
                            sweep_cpu, &sites[ab ? 0 : 1]);
      if (!run(r))
        return false;
      void *twin[2] = {ab ? ra.data() : rb.data(), ab ? rb.data() : ra.data()};
      sweep_cpu(0, hi - lo, twin, &args, nullptr);
      return true;
    }
    if (op == 4) { // a = a * c + 1 in place
      auto [lo, hi] = rows(0, m);
      Args args{n, lo, 0.5 + double(pick(0, 8)) / 8};
      hce_map maps[1] = {rows_map("a", a, HCE_MAP_TOFROM, n, lo, 0, 1)};
      log << "scale a " << lo << ".." << hi << "; ";
      hce_region r = region("soak_scale", hi - lo, maps, 1, &args, scale_cpu, &sites[2]);
      if (!run(r))
        return false;
      void *twin[1] = {ra.data()};
      scale_cpu(0, hi - lo, twin, &args, nullptr);
      return true;
    }
    if (op <= 6) { // reductions over rows of a or b
      const bool of_a = op == 5;
      auto [lo, hi] = rows(0, m);
      Args args{n, lo, 0};
      int64_t sum = 17, ref_sum = 17;
      double mx = -1e300, ref_mx = -1e300;
      hce_reduction reds[2] = {{"sum", &sum, HCE_RED_ADD, HCE_TYPE_I64, 0},
                               {"mx", &mx, HCE_RED_MAX, HCE_TYPE_F64, 0}};
      hce_map maps[1] = {rows_map("x", of_a ? a : b, HCE_MAP_TO, n, lo, 0, 1)};
      log << "reduce " << (of_a ? "a " : "b ") << lo << ".." << hi << "; ";
      hce_region r = region(of_a ? "soak_reduce_a" : "soak_reduce_b", hi - lo, maps, 1,
                            &args, reduce_cpu, &sites[of_a ? 3 : 4]);
      r.num_reductions = 2;
      r.reductions = reds;
      if (!run(r))
        return false;
      unsigned char block[2 * HCE_RED_SLOT_BYTES];
      std::memcpy(block, &ref_sum, 8);
      std::memcpy(block + 8, &ref_mx, 8);
      void *twin[1] = {of_a ? ra.data() : rb.data()};
      reduce_cpu(0, hi - lo, twin, &args, block);
      std::memcpy(&ref_sum, block, 8);
      std::memcpy(&ref_mx, block + 8, 8);
      EXPECT_EQ(sum, ref_sum) << "sum of rows " << lo << ".." << hi;
      EXPECT_EQ(mx, ref_mx) << "max of rows " << lo << ".." << hi;
      return sum == ref_sum && mx == ref_mx;
    }
    const bool of_a = pick(0, 1) == 0;
    std::vector<double> &x = of_a ? a : b, &rx = of_a ? ra : rb;
    auto [lo, hi] = rows(0, m);
    hce_map sec = section(of_a ? "a" : "b", x, HCE_MAP_TO, n, lo, hi);
    if (op <= 8) { // the host writes rows and says so
      std::uniform_real_distribution<double> v(-1, 1);
      for (int64_t e = lo * n; e < hi * n; ++e)
        x[size_t(e)] = rx[size_t(e)] = v(gen);
      log << "host writes " << (of_a ? "a " : "b ") << lo << ".." << hi << "; ";
      if (hce_update(1, &sec, 1) != 0) {
        ADD_FAILURE() << "update to the devices failed";
        return false;
      }
      return true;
    }
    // The host reads rows back.
    log << "host reads " << (of_a ? "a " : "b ") << lo << ".." << hi << "; ";
    sec.kind = HCE_MAP_FROM;
    if (hce_update(1, &sec, 0) != 0) {
      ADD_FAILURE() << "update from the devices failed";
      return false;
    }
    return same(x, rx, lo, hi, of_a ? "a" : "b");
  }

  bool same(const std::vector<double> &x, const std::vector<double> &rx, int64_t lo,
            int64_t hi, const char *name) const {
    for (int64_t e = lo * n; e < hi * n; ++e)
      if (x[size_t(e)] != rx[size_t(e)]) {
        ADD_FAILURE() << name << "[" << e / n << "][" << e % n << "] = " << x[size_t(e)]
                      << ", expected " << rx[size_t(e)];
        return false;
      }
    return true;
  }
};

struct Config {
  std::string devices, schedule;
  // Each program run twice on one per-user profile cache (a scratch
  // XDG_CACHE_HOME): the second run's auto starts from the first's models.
  bool warm = false;
  // Two threads of the program run a program each, at once.
  bool two_threads = false;
};

// A readable GetParam() in failure messages.
void PrintTo(const Config &c, std::ostream *os) {
  *os << c.schedule << (c.warm ? " (warm)" : "")
      << (c.two_threads ? " (two threads)" : "") << " on " << c.devices;
}

// The per-user profile cache in a folder of the test's own, for a scope.
class ScratchCache {
public:
  ScratchCache() {
    dir_ = testing::TempDir() + "hce_soak_cache_" + std::to_string(getpid());
    std::filesystem::remove_all(dir_);
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
    unsetenv("HCE_PROFILE"); // the default cache, where auto stays eft
  }
  ~ScratchCache() {
    hce_finalize();
    unsetenv("XDG_CACHE_HOME");
    setenv("HCE_PROFILE", "off", 1); // as ctest runs every test
    std::filesystem::remove_all(dir_);
  }

  // Whether a run saved a profile there.
  bool has_profile() const {
    std::error_code ec;
    for (const auto &e : std::filesystem::recursive_directory_iterator(dir_, ec))
      if (e.path().extension() == ".profile")
        return true;
    return false;
  }

private:
  std::string dir_;
};

class DataRegionSoak : public testing::TestWithParam<Config> {
protected:
  // One random program (seed `prog`) in a runtime of its own; adds to
  // did_ the iterations each device ran.
  void run_program(const Config &c, unsigned base, unsigned prog) {
    std::mt19937 g(base + prog);
    const int64_t m = 40 + int64_t(g() % 90), n = 1 + int64_t(g() % 12);
    // Devices of random speeds, copy costs, team sizes and memories (from
    // three quarters of one array, where windows move and a chunk may find
    // no room, to both arrays), some with peer and background copies.
    std::ostringstream sim;
    for (int s = 0; s < 2; ++s)
      sim << (s ? ";" : "") << "sim:" << s
          << "=speed:" << std::uniform_real_distribution<double>(0.2, 1.0)(g)
          << ",bw:" << (g() % 2 ? "1e12" : "3e9") << ",lat:" << (g() % 2 ? "0" : "4e-6")
          << ",threads:" << 1 + g() % 2 << ",p2p:" << g() % 2 << ",bg:" << g() % 2
          << ",mem:" << (m * n * 8 * int64_t(3 + g() % 8)) / 4;
    hce_test::use_devices(c.devices, sim.str());
    SCOPED_TRACE("program " + std::to_string(prog) + ", HCE_SIM=" + sim.str() +
                 ", rows " + std::to_string(m) + " x " + std::to_string(n));
    // With two threads, each runs a program of its own in its own data
    // region at the same time (the devices and the data layer shared).
    std::vector<std::unique_ptr<Program>> ps;
    for (int t = 0; t < (c.two_threads ? 2 : 1); ++t)
      ps.push_back(
          std::make_unique<Program>(m, n, c.schedule, base * 7 + prog + 1000 * t));
    auto drive = [](Program &p) {
      hce_map whole[2] = {section("a", p.a, HCE_MAP_TOFROM, p.n, 0, p.m),
                          section("b", p.b, HCE_MAP_TOFROM, p.n, 0, p.m)};
      if (hce_data_begin(2, whole) != 0) {
        ADD_FAILURE() << "hce_data_begin failed";
        return;
      }
      bool ok = true;
      for (int s = 0; s < 60 && ok; ++s)
        ok = p.step();
      EXPECT_EQ(hce_data_end(), 0);
      EXPECT_TRUE(ok) << p.log.str();
      EXPECT_TRUE(p.same(p.a, p.ra, 0, p.m, "a") && p.same(p.b, p.rb, 0, p.m, "b"))
          << "after the data region: " << p.log.str();
    };
    std::thread other;
    if (ps.size() > 1)
      other = std::thread(drive, std::ref(*ps[1]));
    drive(*ps[0]);
    if (other.joinable())
      other.join();
    if (HasFailure())
      return;
    for (const auto &p : ps)
      for (const auto &[dev, n] : p->did)
        did_[dev] += n;
    for (const hce::SiteState *site : hce::Runtime::get().sites())
      for (const auto &[dev, d] : site->stats.devices)
        left_out_[dev] += d.left_out;
    hce_finalize(); // the sites above die with this runtime (the cache is saved)
  }

  // Per device over the programs: the iterations it ran, and the executions
  // whose scheduler left it out on purpose (HCE_STATS' left_out, issue 15).
  std::map<std::string, int64_t> did_, left_out_;
};

TEST_P(DataRegionSoak, RandomProgramsMatchTheirSequentialTwin) {
  const Config &c = GetParam();
  // Every device keeps its share, however small (HCE_MIN_SHARE would leave
  // a slow sim out of most regions, and its copies with it).
  hce_test::ScopedEnv min_share("HCE_MIN_SHARE", "0");
  std::optional<ScratchCache> cache;
  if (c.warm)
    cache.emplace();
  const unsigned base =
      unsigned(std::hash<std::string>{}(c.devices + c.schedule + (c.warm ? "warm" : "") +
                                        (c.two_threads ? "two" : "")) %
               100000);
  for (unsigned prog = 0; prog < 10; ++prog)
    for (int run = 0; run < (c.warm ? 2 : 1); ++run) {
      SCOPED_TRACE(c.warm ? (run ? "the warm run" : "the run that fills the cache") : "");
      run_program(c, base, prog);
      if (HasFailure())
        return;
      if (cache)
        ASSERT_TRUE(cache->has_profile())
            << "the run left no profile to start the next from";
    }
  // Rows went through every device (else the programs tested less than
  // they say): each computed some of them, unless its scheduler left it
  // out on purpose and said so (logfit on these small loops, some modes).
  for (const auto &[dev, n] : did_)
    EXPECT_TRUE(n > 0 || left_out_[dev] > 0)
        << dev << " of " << c.devices << " never ran an iteration and was never left out";
}

std::vector<Config> configs() {
  std::vector<Config> out;
  for (const char *devices : {"cpu,sim:0,sim:1", "cpu,sim:0", "sim:0,sim:1"}) {
    for (const std::string &s : hce::scheduler_names())
      out.push_back({devices, s});
    out.push_back({devices, "auto", /*warm=*/true});
    for (const char *s : {"auto", "fdets", "hguided", "static"})
      out.push_back({devices, s, /*warm=*/false, /*two_threads=*/true});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    EverySchedulerAndDeviceSet, DataRegionSoak, testing::ValuesIn(configs()),
    [](const testing::TestParamInfo<Config> &info) {
      std::string name;
      for (char ch : info.param.devices + "_" + info.param.schedule +
                         (info.param.warm ? "_warm" : "") +
                         (info.param.two_threads ? "_two_threads" : ""))
        if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')
          name += ch;
        else if (ch == ',')
          name += '_';
      return name;
    });

} // namespace
