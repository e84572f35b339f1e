// Reading hce-sim profiles (sim_profile.hpp; the format is in
// docs/simulator.md).
#include "sim_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hce::sim {
namespace {

StageCost parse_stage(const std::string &v) {
  StageCost s;
  std::sscanf(v.c_str(), "%lf,%lf", &s.o, &s.c);
  return s;
}

// "lat,bw" of a link direction.
void parse_dir(const std::string &v, double &lat, double &bw) {
  std::sscanf(v.c_str(), "%lf,%lf", &lat, &bw);
}

double num(const std::map<std::string, std::string> &kv, const std::string &k,
           double dflt) {
  auto it = kv.find(k);
  return it == kv.end() ? dflt : std::stod(it->second);
}

// A line before any `bench` sets the machine's value; after one, that
// benchmark's own, which replaces it (`contention`, `copy_threads_beside`).
template <class T>
void set_machine_or_bench(Machine &m, T Machine::*machine, bool Bench::*has,
                          T Bench::*own, const T &value) {
  if (m.benches.empty()) {
    m.*machine = value;
  } else {
    m.benches.back().*has = true;
    m.benches.back().*own = value;
  }
}

} // namespace

double CopyLending::staged(double bytes, int copies, int workers) const {
  if (copies <= 0)
    return 0;
  // StagingPool::kSlotBytes and piece_bytes(): a worker stages one piece at
  // a time, a slot, or for a copy of fewer slots than workers its share
  // rounded up to kMinPieceBytes.
  constexpr double kSlot = 1 << 20, kMinPiece = 64 << 10;
  const double each = bytes / copies;
  const int use = std::max(1, workers);
  const double piece =
      std::clamp(std::ceil(each / use / kMinPiece) * kMinPiece, kMinPiece, kSlot);
  const double pieces = std::ceil(each / piece);
  double t = each / bw;
  if (worker > 0)
    t = std::max(t, std::ceil(pieces / use) * std::min(each, piece) / worker);
  // Each worker the job wakes adds lat_worker (FE's traces: a 1.05 MiB
  // copy in six pieces took 0.22 ms, 32 KiB in one 0.03).
  return copies * (lat + lat_worker * std::min(pieces, double(use)) + t);
}

Machine read_profile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  Machine m;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::string kw;
    if (!(ls >> kw) || kw[0] == '#')
      continue;
    // Words after the keyword: the first as written, key=value pairs.
    std::vector<std::string> words;
    std::map<std::string, std::string> kv;
    for (std::string w; ls >> w;) {
      words.push_back(w);
      if (auto eq = w.find('='); eq != std::string::npos)
        kv[w.substr(0, eq)] = w.substr(eq + 1);
    }
    const std::string first = words.empty() ? "" : words[0];
    auto need_bench = [&] {
      if (m.benches.empty())
        throw std::runtime_error(path + ":" + std::to_string(lineno) + ": '" + kw +
                                 "' before any 'bench'");
      return &m.benches.back();
    };
    auto need_region = [&] {
      Bench *b = need_bench();
      if (b->regions.empty())
        throw std::runtime_error(path + ":" + std::to_string(lineno) + ": '" + kw +
                                 "' before any 'region'");
      return &b->regions.back();
    };
    try {
      if (kw == "overhead") {
        m.overhead = {num(kv, "cpu", 0), num(kv, "gpu", 0), num(kv, "pair", 0),
                      num(kv, "both", 0)};
      } else if (kw == "dma_slowdown") {
        m.dma_slowdown = std::stod(first);
      } else if (kw == "copy_threads_beside") {
        const CopyLending l{num(kv, "bw", 0),        num(kv, "cpu", 0),
                            num(kv, "lat", 0),       num(kv, "worker", 0),
                            num(kv, "first_up", 0),  num(kv, "first_down", 0),
                            num(kv, "lat_worker", 0)};
        if (l.bw < 0 || l.cpu < 0 || l.lat < 0 || l.worker < 0 || l.first_up < 0 ||
            l.first_down < 0 || l.lat_worker < 0)
          throw std::runtime_error("copy_threads_beside: bw, cpu, lat, worker, first_up, "
                                   "first_down, lat_worker >= 0");
        set_machine_or_bench(m, &Machine::lending, &Bench::has_lending, &Bench::lending,
                             l);
      } else if (kw == "copy_threads_under") {
        m.lend_under.clear();
        for (size_t a = 0, b; a <= first.size(); a = b + 1) {
          b = first.find(',', a);
          if (b == std::string::npos)
            b = first.size();
          if (b > a)
            m.lend_under.push_back(first.substr(a, b - a));
        }
        if (m.lend_under.empty())
          throw std::runtime_error("copy_threads_under: a list of schedulers");
      } else if (kw == "staging_pool") {
        m.staging_pool = std::stod(first);
        if (m.staging_pool < 0)
          throw std::runtime_error("staging_pool: seconds >= 0");
      } else if (kw == "both_ways") {
        m.both_ways = std::stod(first);
        if (m.both_ways < 1)
          throw std::runtime_error("both_ways: a factor >= 1");
      } else if (kw == "pipeline_first") {
        m.pipeline_first = std::stod(first);
        if (m.pipeline_first < 0)
          throw std::runtime_error("pipeline_first: seconds >= 0");
      } else if (kw == "chunk_host") {
        m.chunk_host = std::stod(first);
        m.chunk_copy = num(kv, "copy", 0);
        if (m.chunk_host < 0 || m.chunk_copy < 0)
          throw std::runtime_error("chunk_host: seconds >= 0 [copy=seconds >= 0]");
      } else if (kw == "prepare_registering") {
        m.prepare_registering = std::stod(first);
        if (m.prepare_registering < 0)
          throw std::runtime_error("prepare_registering: seconds >= 0");
      } else if (kw == "cpu_team") {
        m.cpu_team = std::stod(first);
        if (m.cpu_team < 0)
          throw std::runtime_error("cpu_team: seconds >= 0");
        m.cpu_team_prologue = words.size() > 1 && words[1] == "prologue";
        if (words.size() > 1 && !m.cpu_team_prologue)
          throw std::runtime_error("cpu_team: seconds [prologue]");
      } else if (kw == "contention") {
        const Contention c{num(kv, "cpu_scale", 1), num(kv, "up_bw", 0),
                           num(kv, "down_bw", 0)};
        if (c.cpu_scale < 1 || c.up_bw < 0 || c.down_bw < 0)
          throw std::runtime_error("contention: cpu_scale >= 1, bandwidths >= 0");
        set_machine_or_bench(m, &Machine::contention, &Bench::has_contention,
                             &Bench::contention, c);
      } else if (kw == "rounds") {
        (m.benches.empty() ? m.rounds : m.benches.back().rounds) = std::stoi(first);
      } else if (kw == "suite") {
        need_bench()->blocked = first == "blocked";
      } else if (kw == "bench") {
        m.benches.push_back({});
        m.benches.back().name = first;
      } else if (kw == "measured") {
        for (auto &[k, v] : kv)
          need_bench()->measured[k] = std::stod(v);
      } else if (kw == "bytes") {
        for (auto &[k, v] : kv)
          need_bench()->bytes[k] = std::stod(v);
      } else if (kw == "spread") {
        for (auto &[k, v] : kv) {
          std::pair<double, double> mm{0, 0};
          std::sscanf(v.c_str(), "%lf,%lf", &mm.first, &mm.second);
          need_bench()->spread[k] = mm;
        }
      } else if (kw == "run") {
        for (auto &[k, v] : kv)
          need_bench()->run[k] = v;
      } else if (kw == "link") {
        Link &l = need_bench()->link;
        parse_dir(kv["up"], l.up_lat, l.up_bw);
        parse_dir(kv["down"], l.down_lat, l.down_bw);
        if (kv.count("reg")) {
          parse_dir(kv["reg"], l.reg_lat, l.reg_bw);
          if (l.reg_lat < 0 || l.reg_bw <= 0)
            throw std::runtime_error("link: reg=lat,bw with lat >= 0, bw > 0");
        }
        if (kv.count("unreg")) {
          if (kv["unreg"].find(',') != std::string::npos)
            parse_dir(kv["unreg"], l.unreg_lat, l.unreg_bw);
          else
            l.unreg_bw = std::stod(kv["unreg"]);
          if (!(l.unreg_bw > 0) || l.unreg_lat < 0)
            throw std::runtime_error("link: unreg=[lat,]bw with lat >= 0, bw > 0");
        }
        if (kv.count("batch")) {
          l.batch_enqueue = std::stod(kv["batch"]);
          if (!(l.batch_enqueue > 0))
            throw std::runtime_error(
                "link: batch=S with S > 0 (seconds per further copy)");
        }
        if (kv.count("pinned")) {
          const int n = std::sscanf(kv["pinned"].c_str(), "%lf,%lf,%lf", &l.pin_up_bw,
                                    &l.pin_down_bw, &l.pin_reg_bw);
          if (n < 2 || l.pin_up_bw <= 0 || l.pin_down_bw <= 0 ||
              (n == 3 && l.pin_reg_bw <= 0))
            throw std::runtime_error(
                "link: pinned=up_bw,down_bw[,reg_bw] with every value > 0");
        }
      } else if (kw == "array") {
        need_bench()->arrays.push_back(
            {first, num(kv, "rowbytes", 0), int64_t(num(kv, "rows", 0)),
             num(kv, "resident", 0) != 0, num(kv, "home", 0) != 0});
      } else if (kw == "region") {
        Region r;
        r.name = first;
        r.W = std::stoll(kv.at("W"));
        r.executions = std::stoi(kv.at("execs"));
        r.base = int64_t(num(kv, "base", 0));
        r.shrink = num(kv, "shrink", 0) != 0;
        if (auto sw = kv.find("swap"); sw != kv.end()) {
          const size_t comma = sw->second.find(',');
          r.swap_a = sw->second.substr(0, comma);
          r.swap_b = comma == std::string::npos ? "" : sw->second.substr(comma + 1);
        }
        need_bench()->regions.push_back(r);
      } else if (kw == "use") {
        Use u;
        u.array = first;
        const std::string mode = words.size() > 1 ? words[1] : "";
        u.read = mode == "to" || mode == "tofrom";
        u.write = mode == "from" || mode == "tofrom";
        if (!u.read && !u.write)
          throw std::runtime_error("use: mode must be to, from or tofrom");
        u.whole = words.size() > 2 && words[2] == "whole";
        u.lo = int64_t(num(kv, "lo", 0));
        u.hi = int64_t(num(kv, "hi", 1));
        need_region()->uses.push_back(u);
      } else if (kw == "cost") {
        DeviceCost c;
        c.host = first == "cpu";
        c.up = parse_stage(kv["up"]);
        c.comp = parse_stage(kv["comp"]);
        if (kv.count("full")) {
          c.full = parse_stage(kv["full"]);
          if (c.host || !(c.full.c > 0))
            throw std::runtime_error("cost: full=o,c only for the gpu, with c > 0");
        }
        c.down = parse_stage(kv["down"]);
        c.lanes = int64_t(num(kv, "lanes", 0));
        c.kernel_lanes = int64_t(num(kv, "kernel_lanes", 0));
        c.wave = int64_t(num(kv, "wave", 0));
        c.kernel_wave = int64_t(num(kv, "kernel_wave", 0));
        c.prepare = num(kv, "prepare", 0);
        c.prepare_first = num(kv, "prepare_first", 0);
        c.first_launch = num(kv, "first_launch", 0);
        c.threads = int(num(kv, "threads", 0));
        c.flat = num(kv, "flat", 0) != 0;
        c.scale = num(kv, "scale", 1);
        c.chunk = num(kv, "chunk", -1);
        if (kv.count("chunk") && (c.chunk < 0 || !(c.scale > 0)))
          throw std::runtime_error("cost: chunk=S with S >= 0 and scale > 0");
        need_region()->cost[first] = c;
      } else {
        throw std::runtime_error("unknown keyword '" + kw + "'");
      }
    } catch (const std::logic_error &e) { // stoi/stod/at
      throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + e.what());
    } catch (const std::runtime_error &e) {
      const std::string what = e.what();
      if (what.rfind(path, 0) == 0)
        throw;
      throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + what);
    }
  }
  // A measured fixed cost per chunk (DeviceCost::chunk): o * scale becomes
  // it, and c takes up the difference over the single device's run (one
  // chunk of max(iterations, lanes) per execution, lud's shrinking), so
  // that its calibration (`scale`) holds.
  for (Bench &b : m.benches)
    for (Region &r : b.regions)
      for (auto &[dev, c] : r.cost) {
        if (c.chunk < 0)
          continue;
        const int64_t lanes =
            c.host ? std::max(c.lanes, c.flat ? 0 : int64_t(c.threads)) : c.lanes;
        double rows = 0; // what c multiplies over the executions
        for (int e = 0; e < r.executions; ++e)
          rows += double(std::max<int64_t>(r.iterations(e), lanes)) * r.row_scale(e);
        const double execs = std::max(1, r.executions);
        const double o = c.chunk / c.scale; // unscaled
        c.comp.c =
            rows > 0 ? std::max(0.0, c.comp.c - (o - c.comp.o) * execs / rows) : c.comp.c;
        c.comp.o = o;
      }
  // What the simulator relies on: every region has both devices' costs,
  // every map names a declared array, v2 benchmarks declare a link.
  for (const Bench &b : m.benches)
    for (const Region &r : b.regions) {
      for (const char *dev : {"cpu", "gpu"})
        if (!r.cost.count(dev))
          throw std::runtime_error(path + ": bench " + b.name + ", region " + r.name +
                                   ": no 'cost " + dev + "' line");
      for (const Use &u : r.uses)
        if (!b.array(u.array))
          throw std::runtime_error(path + ": bench " + b.name + ", region " + r.name +
                                   ": 'use " + u.array + "' names no array");
      if (!r.uses.empty() && !b.v2())
        throw std::runtime_error(path + ": bench " + b.name + ": maps without a 'link'");
    }
  return m;
}

} // namespace hce::sim
