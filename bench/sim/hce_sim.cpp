// hce-sim: the runtime's real scheduler objects driven in virtual time
// against per-device cost models calibrated from GPU measurements, to
// iterate on scheduling without a GPU (docs/simulator.md).
//
// What is simulated is what bench/suite.py measures: per benchmark, the sum
// over its regions of every execution's wall time, for each configuration,
// in the suite's order (the configurations interleaved per round after a
// warm-up round, the median of the rounds reported), with the per-user
// profile cache that the runs before fill (program_sim.hpp).
//
//   usage: hce-sim PROFILE [--check FLOORS] [--check-warm FLOORS] [--csv FILE] [--bench
//   NAME]
//          [--runs N] [--cache FILE] [--save-cache FILE] [--explain [CONFIG]]
//          [--chunks] [--stats]
//   PROFILE  cost models (bench/sim/calibrate.py writes them)
//   FLOORS   lines "bench ratio": fail (exit 1) if auto's simulated time in
//            a program's first run (cold: no profile) over the best single
//            device's falls below the floor
//   --check-warm FLOORS  the same on `auto` with the profile cache (the
//            suite's warm column; with --cache, the run that starts from it)
//   --runs N instead of the suite's rounds: each configuration's program
//            runs N times in a row on one profile cache and the last run
//            is reported (--runs 2: the program's second run)
//   --cache F start from the profile cache file F (a GPU machine's
//            ~/.cache/hce/<program>-<hash>.profile) instead of an empty one
//   --save-cache F  copy the simulated profile cache to F at the end (the
//            suite's rounds; with --bench, one program's; with --runs,
//            the `auto` configuration's)
//   --stall DEV:FROM:LEN:FACTOR  DEV's ("cpu", "gpu") chunks that begin
//            in [FROM, FROM+LEN) seconds of each program run's virtual time
//            compute FACTOR times slower, in every configuration (a noisy
//            machine; repeatable); DEV:FROM:LEN:FACTOR:beside, only those
//            that begin while another device works in their execution;
//            DEV:FROM:LEN:SECONDS:woken: its first chunk of an execution
//            after one of the region's it did no work in takes SECONDS more
//            (call V28's CPU); DEV:FROM:LEN:SECONDS:each, its first chunk of
//            every execution
//   --explain print, per execution of a region, the scheduler's decision
//            (explain()), each device's iterations and the wall, for the
//            `auto` configurations (or CONFIG)
//   --stats  with --explain: instead, per run and region, each device's
//            iterations, chunks, busy seconds and bytes summed over the
//            executions (HCE_STATS's counters)
#include "program_sim.hpp"
#include "sim_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using namespace hce::sim;

struct Options {
  std::string profile, floors, warm_floors, csv, only, explain;
  std::string cache;      // a profile cache file to start from (--cache)
  std::string save_cache; // where to copy the cache at the end (--save-cache)
  int runs = 0;           // 0: the suite's rounds
  bool explain_on = false;
  bool chunks = false;
  bool stats = false;        // --stats
  std::vector<Stall> stalls; // --stall
};

// The configurations simulated for a benchmark, in bench/suite.py's order.
std::vector<Config> configs_for(const Bench &b) {
  const std::vector<std::string> both = {"cpu", "gpu"};
  std::vector<Config> all = {
      {"cpu", "static", {"cpu"}},        {"gpu", "static", {"gpu"}},
      {"fdets", "fdets", both},          {"adets", "adets", both},
      {"hguided", "hguided", both},      {"logfit", "logfit", both},
      {"static", "static", both},        {"auto", "auto", both},
      {"auto-cold", "auto", both, false}};
  if (!b.v2()) { // v1: what the 2026-11-23 table showed; auto is cold
    all.pop_back();
    all.back().profile = false;
    return all;
  }
  std::vector<Config> out;
  for (const Config &c : all)
    if (c.label == "cpu" || c.label == "gpu" || c.label == "auto" ||
        c.label == "auto-cold" || b.measured.count(c.label))
      out.push_back(c);
  // "fdets no-CO" (HCE_CO=off), where the profile has its measured value,
  // after the configurations above (a v2 profile's label: spaces as '-').
  // It runs without the profile cache, so that it leaves the cache the
  // others see as it was (docs/simulator.md, "fdets no-CO"): FDETS is not
  // seeded from it, so its own time is the same either way.
  if (b.measured.count("fdets-no-CO"))
    out.push_back({"fdets-no-CO", "fdets", both, false, false});
  return out;
}

// The per-user profile cache of one simulated program: a file of its own
// (the runtime's load/save merge rules apply), removed afterwards.
struct ProfileFile {
  std::string path;
  // `from`: a cache file to start from (--cache), e.g. a GPU machine's
  // ~/.cache/hce/<program>-<hash>.profile; "" starts empty.
  ProfileFile(const std::string &name, const std::string &from) {
    path = (std::filesystem::temp_directory_path() /
            ("hce-sim-" + std::to_string(getpid()) + "-" + name + ".profile"))
               .string();
    std::filesystem::remove(path);
    if (!from.empty())
      std::filesystem::copy_file(from, path);
  }
  std::string keep; // --save-cache: copied there at the end
  ~ProfileFile() {
    std::error_code ec;
    if (!keep.empty() && std::filesystem::exists(path, ec))
      std::filesystem::copy_file(path, keep,
                                 std::filesystem::copy_options::overwrite_existing, ec);
    std::filesystem::remove(path, ec);
  }
  ProfileFile(const ProfileFile &) = delete;
  ProfileFile &operator=(const ProfileFile &) = delete;
};

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// --stats: per region of one run, each device's counters summed over the
// executions, as HCE_STATS writes them (iterations, chunks, busy seconds,
// bytes), to set beside a measured run's stats JSON.
void print_stats(const Bench &b, const Config &c, int round, const RunResult &r) {
  struct Sum {
    int64_t iterations = 0;
    int chunks = 0;
    double busy = 0, bytes = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, std::pair<double, std::map<std::string, Sum>>> by;
  for (const ExecutionLog &x : r.log) {
    if (!by.count(x.region))
      order.push_back(x.region);
    auto &[wall, devs] = by[x.region];
    wall += x.wall;
    for (size_t d = 0; d < x.devices.size(); ++d) {
      Sum &s = devs[x.names[d]];
      s.iterations += x.devices[d].iterations;
      s.chunks += x.devices[d].chunks;
      s.busy += x.devices[d].busy;
      s.bytes += x.devices[d].bytes;
    }
  }
  for (const std::string &name : order) {
    const auto &[wall, devs] = by[name];
    std::printf("  %s %-9s run %d stats %-20s wall %.6f", b.name.c_str(), c.label.c_str(),
                round, name.c_str(), wall);
    for (const auto &[dev, s] : devs)
      std::printf("  %s it=%lld ch=%d busy=%.6f bytes=%.3g", dev.c_str(),
                  static_cast<long long>(s.iterations), s.chunks, s.busy, s.bytes);
    std::printf("\n");
  }
}

void print_log(const Bench &b, const Config &c, int round, const RunResult &r) {
  for (const ExecutionLog &x : r.log) {
    std::printf("  %s %-9s run %d %-20s exec %3d W=%-8lld wall %.6f s  bytes %.3g ",
                b.name.c_str(), c.label.c_str(), round, x.region.c_str(), x.execution,
                static_cast<long long>(x.iterations), x.wall, x.bytes);
    for (size_t d = 0; d < x.devices.size(); ++d)
      std::printf(" %s:%s%lld", x.names[d].c_str(), x.devices[d].idle ? "idle," : "",
                  static_cast<long long>(x.devices[d].iterations));
    std::printf("  | %s\n", x.decision.c_str());
  }
}

// Simulated seconds (and bytes) per configuration.
struct Simulated {
  std::map<std::string, double> seconds, bytes;
};

Simulated simulate_bench(const Machine &m, const Bench &b,
                         const std::vector<Config> &cfgs, const Options &opt) {
  Simulated out;
  auto explain = [&](const Config &c) {
    return opt.explain_on &&
           (opt.explain.empty() ? c.schedule == "auto" : opt.explain == c.label);
  };
  if (opt.runs > 0 || !b.v2()) {
    // Each configuration on its own profile cache, N runs in a row.
    const int runs = std::max(1, opt.runs);
    for (const Config &c : cfgs) {
      ProfileFile store(b.name + "-" + c.label, opt.cache);
      // --save-cache with --runs: the default schedule's cache (a warm
      // run's, to start the next one from: the runtime's a stalled run left).
      if (c.label == "auto")
        store.keep = opt.save_cache;
      RunResult r;
      for (int k = 0; k < runs; ++k) {
        LoopSim::trace_chunks = opt.chunks && explain(c);
        r = run_program(m, b, c, store.path, opt.stalls);
        if (explain(c))
          opt.stats ? print_stats(b, c, k, r) : print_log(b, c, k, r);
      }
      out.seconds[c.label] = r.seconds;
      out.bytes[c.label] = r.bytes;
    }
    return out;
  }
  // bench/suite.py: a warm-up round, then `rounds` rounds, each running
  // every configuration once, all on the program's one profile cache
  // (`suite blocked`: each configuration's warm-up and rounds in turn).
  const int rounds = b.rounds > 0 ? b.rounds : m.rounds;
  ProfileFile store(b.name, opt.cache);
  store.keep = opt.save_cache;
  std::map<std::string, std::vector<double>> secs, bytes;
  auto one = [&](int k, const Config &c) {
    LoopSim::trace_chunks = opt.chunks && explain(c);
    RunResult r = run_program(m, b, c, store.path, opt.stalls);
    if (explain(c))
      opt.stats ? print_stats(b, c, k, r) : print_log(b, c, k, r);
    if (k > 0) {
      secs[c.label].push_back(r.seconds);
      bytes[c.label].push_back(r.bytes);
    }
  };
  if (b.blocked) // before 03e76ea: each configuration's rounds in turn
    for (const Config &c : cfgs)
      for (int k = 0; k <= rounds; ++k)
        one(k, c);
  else
    for (int k = 0; k <= rounds; ++k)
      for (const Config &c : cfgs)
        one(k, c);
  for (const Config &c : cfgs) {
    out.seconds[c.label] = median(secs[c.label]);
    out.bytes[c.label] = median(bytes[c.label]);
  }
  return out;
}

bool parse_args(int argc, char **argv, Options &o) {
  if (argc < 2)
    return false;
  o.profile = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc && argv[i + 1][0] != '-';
    if (a == "--chunks") { // with --explain: every chunk of the explained runs
      o.chunks = true;
      continue;
    }
    if (a == "--stats") { // with --explain: per region, the devices' counters
      o.stats = true;
      continue;
    }
    if (a == "--explain") {
      o.explain_on = true;
      if (has_value)
        o.explain = argv[++i];
      continue;
    }
    if (!has_value)
      return false;
    const std::string v = argv[++i];
    if (a == "--check")
      o.floors = v;
    else if (a == "--check-warm")
      o.warm_floors = v;
    else if (a == "--csv")
      o.csv = v;
    else if (a == "--bench")
      o.only = v;
    else if (a == "--cache")
      o.cache = v;
    else if (a == "--save-cache")
      o.save_cache = v;
    else if (a == "--stall") {
      Stall st;
      const size_t c1 = v.find(':');
      if (c1 == std::string::npos || c1 == 0)
        return false;
      st.device = v.substr(0, c1);
      char tail[8] = {};
      const int got = std::sscanf(v.c_str() + c1 + 1, "%lf:%lf:%lf:%7s", &st.from,
                                  &st.len, &st.factor, tail);
      st.beside = got == 4 && std::string(tail) == "beside";
      st.woken = got == 4 && std::string(tail) == "woken";
      st.each = got == 4 && std::string(tail) == "each";
      if ((got != 3 && !st.beside && !st.woken && !st.each) || st.len <= 0 ||
          st.factor <= 0 || (st.device != "cpu" && st.device != "gpu"))
        return false;
      o.stalls.push_back(st);
    } else if (a == "--runs")
      o.runs = std::max(1, std::atoi(v.c_str()));
    else
      return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  if (!parse_args(argc, argv, opt)) {
    std::cerr
        << "usage: hce-sim PROFILE [--check FLOORS] [--check-warm FLOORS] [--csv FILE] "
           "[--bench NAME] "
           "[--runs N] [--cache FILE] [--save-cache FILE] [--explain [CONFIG]] "
           "[--chunks] [--stats] [--stall "
           "DEV:FROM:LEN:FACTOR[:beside|:woken|:each]]...\n";
    return 2;
  }
  Machine machine;
  try {
    machine = read_profile(opt.profile);
  } catch (const std::exception &e) {
    std::cerr << "hce-sim: error: " << e.what() << "\n";
    return 2;
  }
  std::map<std::string, double> floors, warm_floors;
  for (auto [file, into] :
       {std::pair{&opt.floors, &floors}, {&opt.warm_floors, &warm_floors}}) {
    if (file->empty())
      continue;
    std::ifstream f(*file);
    if (!f) {
      std::cerr << "hce-sim: error: cannot read " << *file << "\n";
      return 2;
    }
    std::string name;
    double v;
    while (f >> name >> v)
      (*into)[name] = v;
  }
  std::ofstream csv;
  if (!opt.csv.empty()) {
    csv.open(opt.csv);
    csv << "bench,config,measured_s,simulated_s,error,measured_bytes,simulated_bytes,"
           "run,measured_min_s,measured_max_s\n";
  }
  int failures = 0;
  for (const Bench &b : machine.benches) {
    if (!opt.only.empty() && b.name != opt.only)
      continue;
    const std::vector<Config> cfgs = configs_for(b);
    Simulated sim;
    try {
      sim = simulate_bench(machine, b, cfgs, opt);
    } catch (const std::exception &e) {
      std::cerr << "hce-sim: error: " << b.name << ": " << e.what() << "\n";
      return 2;
    }
    std::printf("%-13s", b.name.c_str());
    for (const Config &c : cfgs) {
      const double s = sim.seconds[c.label];
      auto mi = b.measured.find(c.label);
      const double meas = mi == b.measured.end() ? 0 : mi->second;
      if (meas > 0)
        std::printf("  %s %.4f/%.4f %+.0f%%", c.label.c_str(), s, meas,
                    100 * (s - meas) / meas);
      else
        std::printf("  %s %.4f", c.label.c_str(), s);
      if (csv) {
        auto bi = b.bytes.find(c.label);
        auto ri = b.run.find(c.label);
        csv << b.name << "," << c.label << "," << meas << "," << s << ","
            << (meas > 0 ? (s - meas) / meas : 0) << ","
            << (bi == b.bytes.end() ? 0 : bi->second) << "," << sim.bytes[c.label] << ","
            << (ri == b.run.end() ? "" : ri->second);
        auto si = b.spread.find(c.label);
        if (si != b.spread.end())
          csv << "," << si->second.first << "," << si->second.second << "\n";
        else
          csv << ",,\n";
      }
    }
    // The floors: auto in a program's first run (no profile yet).
    const std::string cold = b.v2() ? "auto-cold" : "auto";
    const double best = std::min(sim.seconds["cpu"], sim.seconds["gpu"]);
    const double ratio = best / sim.seconds[cold];
    std::printf("  cold auto/best %.3f", ratio);
    if (auto f = floors.find(b.name); f != floors.end() && ratio < f->second) {
      std::printf("  BELOW FLOOR %.3f", f->second);
      ++failures;
    }
    if (auto f = warm_floors.find(b.name); f != warm_floors.end()) {
      const double warm = best / sim.seconds["auto"];
      std::printf("  warm auto/best %.3f", warm);
      if (warm < f->second) {
        std::printf("  BELOW WARM FLOOR %.3f", f->second);
        ++failures;
      }
    }
    std::printf("\n");
  }
  if (failures)
    std::fprintf(stderr, "hce-sim: %d benchmark(s) below their floor\n", failures);
  return failures ? 1 : 0;
}
