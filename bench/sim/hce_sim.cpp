// hce-sim: the runtime's real scheduler objects driven in virtual time
// against per-device cost models calibrated from GPU traces, to iterate on
// scheduling without a GPU (docs/simulator.md).
//
// What is simulated is what bench/suite.py measures: per benchmark, the sum
// over its regions of every execution's wall time.  Each region has its own
// scheduler object, kept across its executions as the runtime keeps one per
// call site.  A device runs its chunks as the chunk loop does
// (runtime/src/chunk_loop.cpp): one after the other (upload, compute,
// download), or, pipelined (ADETS' default communication mode), with three
// streams and at most three chunks in flight; it asks the scheduler for the
// next chunk when it is free, and a device told to wait asks again when
// another device reports a chunk.
//
//   usage: hce-sim PROFILE [--check FLOORS] [--csv FILE] [--bench NAME]
//          [--runs N]
//   PROFILE  cost models (bench/sim/calibrate.py writes them)
//   FLOORS   lines "bench ratio": fail (exit 1) if auto's simulated time
//            over the best single device's falls below the floor
//   --runs N the program runs N times in a row and the last run is
//            reported, the earlier runs seeding `auto` (the persistent
//            profile: the second run starts where the first ended)
#include "sched/common.hpp"
#include "sched/scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <queue>
#include <sstream>
#include <string>
#include <vector>

namespace {

// seconds = o + c * max(n, lanes) (lanes only for compute: a small chunk
// cannot use all of a GPU's lanes).
struct StageCost {
  double o = 0, c = 0;
  double at(int64_t n, int64_t lanes = 0) const {
    return n <= 0 ? 0 : o + c * double(std::max(n, lanes));
  }
};

struct DeviceCost {
  bool host = false;
  StageCost up, comp, down;
  int64_t lanes = 0;
  // The CPU device: its OpenMP team.  Next to an accelerator one core goes
  // to the accelerator's controller thread (docs/design.md): the team is one
  // thread smaller, a chunk of n < threads iterations (outer-loop
  // parallelism) runs on n threads.
  int threads = 0;
  double prepare = 0; // seconds per execution outside the chunk loop
};

struct Region {
  std::string name;
  int64_t W = 0;
  int executions = 1;
  std::map<std::string, DeviceCost> cost; // by device ("cpu", "gpu")
};

struct Bench {
  std::string name;
  std::vector<Region> regions;
  std::map<std::string, double> measured; // config -> seconds
};

StageCost parse_stage(const std::string &v) {
  StageCost s;
  std::sscanf(v.c_str(), "%lf,%lf", &s.o, &s.c);
  return s;
}

std::vector<Bench> read_profile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  std::vector<Bench> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string kw;
    if (!(ls >> kw) || kw[0] == '#')
      continue;
    std::map<std::string, std::string> kv;
    std::string word, first;
    ls >> first;
    while (ls >> word)
      if (auto eq = word.find('='); eq != std::string::npos)
        kv[word.substr(0, eq)] = word.substr(eq + 1);
    if (kw == "bench") {
      out.push_back({first, {}, {}});
    } else if (kw == "measured") {
      kv[first.substr(0, first.find('='))] = first.substr(first.find('=') + 1);
      for (auto &[k, v] : kv)
        out.back().measured[k] = std::stod(v);
    } else if (kw == "region") {
      Region r;
      r.name = first;
      r.W = std::stoll(kv["W"]);
      r.executions = std::stoi(kv["execs"]);
      out.back().regions.push_back(r);
    } else if (kw == "cost") {
      DeviceCost c;
      c.host = first == "cpu";
      c.up = parse_stage(kv["up"]);
      c.comp = parse_stage(kv["comp"]);
      c.down = parse_stage(kv["down"]);
      c.lanes = kv.count("lanes") ? std::stoll(kv["lanes"]) : 0;
      c.prepare = kv.count("prepare") ? std::stod(kv["prepare"]) : 0;
      c.threads = kv.count("threads") ? std::stoi(kv["threads"]) : 0;
      out.back().regions.back().cost[first] = c;
    }
  }
  return out;
}

// One execution of a region's chunk loop in virtual time; returns its wall.
class LoopSim {
public:
  LoopSim(hce::Scheduler &s, const std::vector<DeviceCost> &devs, bool pipelined)
      : sched_(s), devs_(devs), st_(devs.size()) {
    for (size_t i = 0; i < devs.size(); ++i)
      st_[i].pipelined = pipelined && !devs[i].host;
  }

  // Iterations each device ran in the last run().
  std::vector<int64_t> iterations;

  double run(hce::SchedParams params) {
    iterations.assign(st_.size(), 0);
    params.clock = [this] { return now_; };
    for (const DeviceState &d : st_)
      params.lookahead = params.lookahead || d.pipelined;
    sched_.begin(params);
    // A device's preparation (windows, pinning, broadcast uploads) runs on
    // its controller before its first chunk, while the others compute
    // (region_exec.cpp); a device the scheduler plans to leave out skips it.
    std::vector<bool> idle(st_.size());
    for (size_t d = 0; d < st_.size(); ++d)
      if ((idle[d] = sched_.idle(int(d))))
        sched_.drop(int(d)); // chunk_loop.cpp: its controller is not woken
    for (size_t d = 0; d < st_.size(); ++d)
      if (!idle[d])
        push({devs_[d].prepare, Ask, int(d), {}, 0});
    double end = 0;
    while (!q_.empty()) {
      Event e = q_.top();
      q_.pop();
      now_ = e.t;
      if (e.kind == Complete) {
        sched_.complete(e.dev, e.range, e.seconds);
        iterations[size_t(e.dev)] += e.range.size();
        end = std::max(end, e.t);
        for (size_t d = 0; d < st_.size(); ++d)
          if (st_[d].waiting) {
            st_[d].waiting = false;
            push({now_, Ask, int(d), {}, 0});
          }
        continue;
      }
      ask(e.dev);
      if (++steps_ > 10'000'000)
        throw std::runtime_error("scheduler did not finish");
    }
    return end;
  }

private:
  enum Kind { Complete = 0, Ask = 1 }; // completions first at equal times
  struct Event {
    double t;
    Kind kind;
    int dev;
    hce::Range range;
    double seconds;
    bool operator>(const Event &o) const { return t != o.t ? t > o.t : kind > o.kind; }
  };
  struct DeviceState {
    bool pipelined = false, waiting = false, done = false;
    double up_free = 0, comp_free = 0, down_free = 0;
    std::deque<double> completions; // of the chunks in flight
  };

  void push(Event e) { q_.push(e); }

  void ask(int d) {
    DeviceState &s = st_[d];
    if (s.done)
      return;
    hce::Decision dec = sched_.next(d);
    if (dec.kind == hce::Decision::Done) {
      s.done = true;
      return;
    }
    if (dec.kind == hce::Decision::Wait) {
      s.waiting = true;
      return;
    }
    const DeviceCost &c = devs_[d];
    const int64_t n = dec.range.size();
    const double up = c.up.at(n), comp = c.comp.at(n, c.lanes), down = c.down.at(n);
    if (!s.pipelined) {
      double fin = now_ + up + comp + down;
      push({fin, Complete, d, dec.range, up + comp + down});
      push({fin, Ask, d, {}, 0});
      return;
    }
    const double u0 = std::max(now_, s.up_free), u1 = u0 + up;
    const double c0 = std::max(u1, s.comp_free), c1 = c0 + comp;
    const double d0 = std::max(c1, s.down_free), d1 = d0 + down;
    s.up_free = u1;
    s.comp_free = c1;
    s.down_free = d1;
    s.completions.push_back(d1);
    push({d1, Complete, d, dec.range, std::max({up, comp, down})});
    // The next upload starts when the upload stream and a slot are free.
    double next = u1;
    if (s.completions.size() >= 3) {
      next = std::max(next, s.completions.front());
      s.completions.pop_front();
    }
    push({next, Ask, d, {}, 0});
  }

  hce::Scheduler &sched_;
  const std::vector<DeviceCost> &devs_;
  std::vector<DeviceState> st_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> q_;
  double now_ = 0;
  long steps_ = 0;
};

struct Config {
  std::string label, schedule;
  std::vector<std::string> devices;
};

// Seconds for one run of the benchmark (all regions, all executions);
// `schedulers` persist across runs (one per region), as a persistent
// profile would carry what the previous run learnt.
double simulate(const Bench &b, const Config &cfg,
                std::vector<std::unique_ptr<hce::Scheduler>> &schedulers) {
  double total = 0;
  for (size_t ri = 0; ri < b.regions.size(); ++ri) {
    const Region &r = b.regions[ri];
    std::vector<DeviceCost> devs;
    for (const std::string &d : cfg.devices) {
      DeviceCost c = r.cost.at(d);
      if (c.host && c.threads > 1) {
        const int team = cfg.devices.size() > 1 ? c.threads - 1 : c.threads;
        c.comp.c *= double(c.threads) / team;
        c.lanes = team;
      }
      devs.push_back(c);
    }
    if (schedulers.size() <= ri)
      schedulers.push_back(hce::make_scheduler(cfg.schedule));
    hce::SchedParams p;
    p.iterations = r.W;
    p.num_devices = int(devs.size());
    for (const DeviceCost &d : devs) {
      p.is_host.push_back(d.host);
      p.lanes.push_back(d.host ? d.lanes : 0); // the runtime knows its team
    }
    const bool pipelined = cfg.schedule == "adets" && devs.size() > 1;
    for (int e = 0; e < r.executions; ++e) {
      LoopSim sim(*schedulers[ri], devs, pipelined);
      total += sim.run(p);
    }
  }
  return total;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: hce-sim PROFILE [--check FLOORS] [--csv FILE] "
                 "[--bench NAME] [--runs N]\n";
    return 2;
  }
  std::string floors_path, csv_path, only;
  int runs = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--check")
      floors_path = argv[i + 1];
    else if (a == "--csv")
      csv_path = argv[i + 1];
    else if (a == "--bench")
      only = argv[i + 1];
    else if (a == "--runs")
      runs = std::max(1, std::atoi(argv[i + 1]));
  }
  std::vector<Bench> benches;
  try {
    benches = read_profile(argv[1]);
  } catch (const std::exception &e) {
    std::cerr << "hce-sim: error: " << e.what() << "\n";
    return 2;
  }
  const std::vector<Config> configs = {{"cpu", "static", {"cpu"}},
                                       {"gpu", "static", {"gpu"}},
                                       {"fdets", "fdets", {"cpu", "gpu"}},
                                       {"adets", "adets", {"cpu", "gpu"}},
                                       {"hguided", "hguided", {"cpu", "gpu"}},
                                       {"logfit", "logfit", {"cpu", "gpu"}},
                                       {"static", "static", {"cpu", "gpu"}},
                                       {"auto", "auto", {"cpu", "gpu"}}};
  std::map<std::string, double> floors;
  if (!floors_path.empty()) {
    std::ifstream f(floors_path);
    std::string name;
    double v;
    while (f >> name >> v)
      floors[name] = v;
  }
  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path);
    csv << "bench,config,measured_s,simulated_s,error\n";
  }
  int failures = 0;
  std::printf("%-13s", "bench");
  for (const Config &c : configs)
    std::printf(" %17s", c.label.c_str());
  std::printf("  auto/best\n");
  for (const Bench &b : benches) {
    if (!only.empty() && b.name != only)
      continue;
    std::map<std::string, double> sim;
    for (const Config &c : configs) {
      std::vector<std::unique_ptr<hce::Scheduler>> scheds;
      for (int k = 0; k < runs; ++k)
        sim[c.label] = simulate(b, c, scheds);
    }
    std::printf("%-13s", b.name.c_str());
    for (const Config &c : configs) {
      auto m = b.measured.find(c.label);
      double meas = m == b.measured.end() ? 0 : m->second;
      char cell[64];
      if (meas > 0)
        std::snprintf(cell, sizeof cell, "%.4f/%.4f %+3.0f%%", sim[c.label], meas,
                      100 * (sim[c.label] - meas) / meas);
      else
        std::snprintf(cell, sizeof cell, "%.4f", sim[c.label]);
      std::printf(" %17s", cell);
      if (csv)
        csv << b.name << "," << c.label << "," << meas << "," << sim[c.label] << ","
            << (meas > 0 ? (sim[c.label] - meas) / meas : 0) << "\n";
    }
    const double best = std::min(sim["cpu"], sim["gpu"]);
    const double ratio = best / sim["auto"];
    std::printf("  %.3f", ratio);
    if (auto f = floors.find(b.name); f != floors.end() && ratio < f->second) {
      std::printf("  BELOW FLOOR %.3f", f->second);
      ++failures;
    }
    std::printf("\n");
  }
  if (failures)
    std::fprintf(stderr, "hce-sim: %d benchmark(s) below their floor\n", failures);
  return failures ? 1 : 0;
}
