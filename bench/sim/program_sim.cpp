// One simulated program run (program_sim.hpp).
#include "program_sim.hpp"

#include "cpu_device.hpp" // kFirstAskGraceMax: the grace's bound
#include "device.hpp" // Device::kPinPieceBytes: the runtime's piece
#include "settings.hpp"     // Settings::min_share: HCE_MIN_SHARE's default
#include "slow_devices.hpp" // HCE_MIN_SHARE, as region_exec.cpp applies it

#include <algorithm>
#include <limits>
#include <memory>
#include <set>

namespace hce::sim {
namespace {

// The runtime's device names (the profile store's keys).
std::string device_name(const std::string &d) { return d == "gpu" ? "cuda:0" : d; }

// The pseudo-devices of the mode walls (profile_hook.cpp co_key/alone_key).
std::string co_key(const std::vector<std::string> &devs) {
  std::string key = "=co:";
  for (size_t i = 0; i < devs.size(); ++i)
    key += (i ? "+" : "") + device_name(devs[i]);
  return key;
}

// The model eft held for device i beside the others (profile_hook.cpp
// model_key): "=model:cpu+cuda:0/cpu".
std::string model_key(const std::vector<std::string> &devs, size_t i) {
  return "=model:" + co_key(devs).substr(4) + "/" + device_name(devs[i]);
}

// Seedable::seed_mode with the wall's measurements where the runtime takes
// them (its second opinion, 2026-11-28 session 23), without before.
template <class S, class E> void seed_mode(S &s, int i, const E &e) {
  if constexpr (requires { e.measurements; })
    s.seed_mode(i, e.exec_s, e.measurements);
  else
    s.seed_mode(i, e.exec_s);
}

// The scheduler the runtime makes for the configuration's schedule at this
// region (region_exec.cpp plan_schedule): FDETS with CO on a region inside a
// data region is the HCE paper's Algorithm 3, fdets_inc (one partition per
// execution, decided an execution ahead).  A region is inside a data region
// when an array it uses is one's (DataEnv::in_data_region).
std::string schedule_of(const Config &cfg, const Bench &b, const Region &r) {
  if (cfg.schedule != "fdets" || !cfg.co)
    return cfg.schedule;
  for (const Use &u : r.uses)
    for (const Array &a : b.arrays)
      if (a.name == u.array && a.resident)
        return "fdets_inc";
  return cfg.schedule;
}

// region_exec.cpp mapped_bytes: the host memory an execution maps (every
// array the region uses, whole: the runtime's maps are the arrays'
// sections).
double mapped_bytes(const Bench &b, const Region &r, int e) {
  double bytes = 0;
  for (const Array &a : b.arrays)
    for (const Use &u : r.uses)
      if (u.array == a.name) {
        bytes += double(a.rows) * a.rowbytes * r.row_scale(e);
        break;
      }
  return bytes;
}

// Whether one of the arrays `r` maps is in a data region (DataEnv::in_data_region).
bool in_data_region(const Bench &b, const Region &r) {
  for (const Use &u : r.uses)
    for (const Array &a : b.arrays)
      if (a.name == u.array && a.resident)
        return true;
  return false;
}

// region_exec.cpp copy_threads_beside and share_copy_threads: the CPU
// threads lent to the GPU's copies, 0 if none.  Under auto, eft, fdets and hguided, on a
// one-shot region mapping kQuietHostBytes or more in which the CPU and the
// GPU both work: kAutoCopyThreadsBeside, at most half the CPU's team.  A
// profile's `copy_threads_under` (Machine::lend_under) names the schedulers
// its measured runtime lent under instead (before 127d285: auto and eft).
// In a data region, only while `data_region_lends` (lends_in_data_region).
// `schedule`: the scheduler the runtime makes (schedule_of: fdets in a data
// region with CO is fdets_inc, which lends none).
int lent_copy_threads(const Machine &m, const std::string &schedule, const Bench &b,
                      const Region &r, int e, int cpu_threads, bool cpu_works,
                      bool gpu_works, bool data_region_lends) {
  const std::vector<std::string> current = {"auto", "eft", "fdets", "hguided"};
  const std::vector<std::string> &under = m.lend_under.empty() ? current : m.lend_under;
  if (std::find(under.begin(), under.end(), schedule) == under.end())
    return 0;
  if (!cpu_works || !gpu_works || mapped_bytes(b, r, e) < kQuietHostBytes)
    return 0;
  if (in_data_region(b, r) && !data_region_lends)
    return 0; // its arrays are pinned once, beside the team
  const int lent = std::min(kAutoCopyThreadsBeside, cpu_threads / 2);
  return lent >= 2 && lent < cpu_threads ? lent : 0;
}

// region_exec.cpp lends_in_data_region: a data region's execution lends
// copy threads while the GPU would register kLendRegisterBytes or more of
// its arrays and the site's lending executions so far (`lent_wall`) cost
// less than registering them (settings.hpp data_region_lending_pays).  The
// GPU then stages its copies through the pool instead of pinning.
bool lends_in_data_region(const Bench &b, const Region &r, int e, Residency *residency,
                          double lent_wall) {
  if (!residency || !in_data_region(b, r))
    return false;
  const double mapped = mapped_bytes(b, r, e);
  return data_region_lending_pays(mapped, residency->unpinned(r, e), lent_wall);
}

// A one-shot region (no array in a data region) mapping kQuietHostBytes or
// more: the GPU's preparation makes the staging pool for its copies when it
// has copy threads (cuda_device.cpp prepare_copies, kPoolMakeBytes).
bool one_shot_staged(const Bench &b, const Region &r, int e) {
  return !in_data_region(b, r) && mapped_bytes(b, r, e) >= kQuietHostBytes;
}

// profile::seed (profile_hook.cpp, 0927089) on the sim's store: a cost
// model per device from the samples at W and W/4 (the model learnt beside
// these devices first, the device's own samples otherwise), and the
// measured mode walls.  Kept in step with the runtime's by hand: it takes a
// Runtime there.
void seed(Scheduler &s, const Region &r, const std::vector<std::string> &devs,
          const profile::Store &store) {
  Seedable *seedable = s.seedable();
  const int64_t W = r.iterations(0);
  if (!seedable || W < 4)
    return;
  const int64_t w1 = W, w2 = W / 4;
  for (size_t i = 0; i < devs.size(); ++i) {
    const std::string dev = device_name(devs[i]);
    const std::string learnt = devs.size() >= 2 ? model_key(devs, i) : "";
    const bool has_learnt =
        !learnt.empty() && store.estimate(r.name, learnt, w1).has_value();
    auto e1 = store.estimate(r.name, has_learnt ? learnt : dev, w1);
    auto e2 = store.estimate(r.name, has_learnt ? learnt : dev, w2);
    if (!e1 || !e2 || e1->total_s() <= 0)
      continue;
    double c = (e1->total_s() - e2->total_s()) / double(w1 - w2);
    double o = e1->total_s() - c * double(w1);
    if (c <= 0 || o < 0) {
      c = e1->total_s() / double(w1);
      o = 0;
    }
    seedable->seed(int(i), o, c);
  }
  if (devs.size() < 2)
    return;
  if (auto co = store.estimate(r.name, co_key(devs), w1))
    seed_mode(*seedable, -1, *co);
  for (size_t i = 0; i < devs.size(); ++i)
    if (auto alone = store.estimate(r.name, "=alone:" + device_name(devs[i]), w1))
      seed_mode(*seedable, int(i), *alone);
}

// Seedable::learnt_model where the runtime has it (0927089 and later; the
// sim also builds against the runtime of earlier measurements, see
// docs/simulator.md).
template <class S> bool learnt_model(const S &s, int i, double &o, double &c) {
  if constexpr (requires { s.learnt_model(i, o, c); })
    return s.learnt_model(i, o, c);
  else
    return false;
}

// Scheduler::ended where the runtime has it (82b5b9d and later).
// (And its one-time part, where it has that.)
template <class S> void ended(S &s, double wall, double one_time) {
  if constexpr (requires { s.ended(wall, one_time); })
    s.ended(wall, one_time);
  else if constexpr (requires { s.ended(wall); })
    s.ended(wall);
}

// profile::record_execution and profile::record_mode (0927089; a first
// execution's samples held back as the runtime's Store::record does).
void record(const Scheduler &s, const Region &r, int e,
            const std::vector<std::string> &devs, const std::vector<DeviceRun> &runs,
            double wall, profile::Store &store) {
  if (!profile::recorded_execution(e))
    return;
  // An accelerator left out of a later execution keeps its first one's
  // sample (Store::keep_held_of_left_out, as record_execution does): without
  // it a program whose GPU ran only its first execution (warm lud from its
  // own runs' cache) probed it at a half share in every later run.
  for (size_t i = 0; e > 0 && i < runs.size(); ++i)
    if (runs[i].iterations <= 0 && devs[i] != "cpu")
      store.keep_held_of_left_out(r.name, device_name(devs[i]));
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].iterations <= 0)
      continue;
    profile::Sample x;
    x.iterations = runs[i].iterations;
    x.bytes = runs[i].bytes;
    x.exec_s = runs[i].compute_busy;
    x.xfer_s = std::max(0.0, runs[i].busy - runs[i].compute_busy);
    store.record(r.name, device_name(devs[i]), x, e == 0);
  }
  if (devs.size() == 1) { // one device: its wall is its arm alone
    profile::Sample alone;
    alone.iterations = r.iterations(e);
    alone.exec_s = wall;
    if (alone.iterations > 0 && wall > 0)
      store.record(r.name, "=alone:" + device_name(devs[0]), alone, e == 0);
    return;
  }
  const Seedable *seedable = s.seedable();
  if (!seedable)
    return;
  // The models, as two points of their line (W and W/4).
  const int64_t w1 = std::max<int64_t>(4, r.iterations(e)), w2 = w1 / 4;
  for (size_t i = 0; i < devs.size(); ++i) {
    double o = 0, c = 0;
    if (!learnt_model(*seedable, int(i), o, c))
      continue;
    for (int64_t w : {w1, w2}) {
      profile::Sample x;
      x.iterations = w;
      x.exec_s = o + c * double(w);
      store.record(r.name, model_key(devs, i), x, e == 0);
    }
  }
  int device = -1;
  profile::Sample mode;
  if (!seedable->measured_mode(device, mode.exec_s) || device >= int(devs.size()))
    return;
  mode.iterations = r.iterations(e);
  store.record(r.name,
               device < 0 ? co_key(devs) : "=alone:" + device_name(devs[size_t(device)]),
               mode, e == 0);
}

// The runtime's fixed cost of one execution: which controllers it wakes.
double overhead(const Overheads &o, const std::vector<std::string> &devs,
                const std::vector<bool> &idle) {
  int working = 0;
  for (bool i : idle)
    working += i ? 0 : 1;
  if (devs.size() == 1)
    return devs[0] == "cpu" ? o.cpu : o.gpu;
  return working >= 2 ? o.both : o.pair;
}

} // namespace

RunResult run_program(const Machine &m, const Bench &b, const Config &cfg,
                      const std::string &profile, const std::vector<Stall> &stalls) {
  RunResult out;
  profile::Store file_store;
  profile::Store *store = nullptr;
  if (cfg.profile && !profile.empty()) {
    file_store.load(profile);
    store = &file_store;
  }
  std::unique_ptr<Residency> residency;
  if (b.v2())
    residency = std::make_unique<Residency>(b, cfg.co);
  std::vector<std::unique_ptr<Scheduler>> scheds(b.regions.size());
  // region_exec.cpp plan_schedule: a papers' scheduler's region leaves out
  // a device below HCE_MIN_SHARE (eft, seedable, keeps it in its model);
  // the scheduler is made afresh when its devices change.
  std::vector<SlowDevices> slow(b.regions.size());
  std::vector<std::vector<std::string>> sched_devs(b.regions.size());
  std::vector<std::string> sched_names(b.regions.size());
  const double min_share = Settings{}.min_share;
  std::vector<bool> gpu_prepared(b.regions.size(), false);
  // Per region: the walls of its executions that lent copy threads in a
  // data region (region_exec.cpp SiteState::lent_wall).
  std::vector<double> lent_wall(b.regions.size(), 0.0);
  std::vector<bool> gpu_launched(b.regions.size(), false);
  // The data region's arrays a host's chunks wrote (DataEnv::note_host_wrote).
  std::set<std::string> host_wrote;
  const auto wrote_any = [&host_wrote](const Region &r) {
    for (const Use &u : r.uses)
      if (host_wrote.count(u.array))
        return true;
    return false;
  };
  // The CPU's OpenMP team exists (Machine::cpu_team): made at the runtime's
  // start beside a GPU, while CUDA starts (runtime.cpp start_gpus); else by
  // the CPU's first prologue or chunk.  In a program's first run (no profile
  // names the CPU) the making's time is the grace of the first CPU
  // prologue's first ask: it waits for the accelerators' first ask at most
  // that long (ChunkWorker::first_ask_wait).
  const auto lists = [&](const char *name) {
    return std::find(cfg.devices.begin(), cfg.devices.end(), name) != cfg.devices.end();
  };
  bool cpu_forked = lists("cpu") && lists("gpu");
  bool first_ask_grace = cpu_forked && !(store && store->mentions("cpu"));
  bool pool_made = false;  // the GPU's staging pool exists (Machine::staging_pool)
  // Per region, the devices that worked in its last execution (Stall::woken).
  std::vector<std::set<std::string>> worked_last(b.regions.size());
  int max_execs = 0;
  for (const Region &r : b.regions)
    max_execs = std::max(max_execs, r.executions);
  // Program order: an iterative benchmark runs its regions in turn.
  for (int e = 0; e < max_execs; ++e) {
    for (size_t ri = 0; ri < b.regions.size(); ++ri) {
      const Region &r = b.regions[ri];
      if (e >= r.executions)
        continue;
      std::vector<std::string> names = cfg.devices;
      if (!scheds[ri] || !scheds[ri]->seedable()) {
        std::vector<std::string> kept;
        for (size_t i : slow[ri].keep(names, e, min_share, nullptr))
          kept.push_back(names[i]);
        names = kept;
      }
      // One device left by HCE_MIN_SHARE runs the loop in one chunk, but
      // for a pipeline's on the GPU (plan_schedule).
      std::string sched_name = schedule_of(cfg, b, r);
      if (names.size() == 1 && cfg.devices.size() > 1 &&
          (cfg.schedule != "adets" || names[0] != "gpu"))
        sched_name = "static";
      if (!scheds[ri] || sched_devs[ri] != names || sched_names[ri] != sched_name) {
        scheds[ri] = make_scheduler(sched_name); // the site's scheduler
        sched_devs[ri] = names;
        sched_names[ri] = sched_name;
        if (store)
          seed(*scheds[ri], r, names, *store);
      }
      Scheduler &s = *scheds[ri];
      const bool data_region_lends =
          lends_in_data_region(b, r, e, residency.get(), lent_wall[ri]);
      std::vector<SimDevice> devs;
      SchedParams p;
      p.iterations = r.iterations(e);
      p.num_devices = int(names.size());
      p.data_region = in_data_region(b, r);
      p.maps_rows = !r.uses.empty();
      // region_exec.cpp begin_run: what a co-execution's preparations would
      // register (RegisterAsk), and the rows a host's chunks would fetch.
      if (residency && p.data_region &&
          std::find(names.begin(), names.end(), "cpu") != names.end()) {
        p.register_bytes_of = [res = residency.get(), &r, e, &wrote_any] {
          return wrote_any(r) ? 0 : res->unpinned(r, e);
        };
        p.host_fetch_bytes_of = [res = residency.get(), &r, e] {
          return res->host_lacks(r, e);
        };
      }
      for (const std::string &name : names) {
        SimDevice d;
        d.cost = r.cost.at(name);
        d.gpu = name == "gpu";
        d.pipelined = cfg.schedule == "adets" && d.gpu; // CoMode::Pipelined
        // region_exec.cpp pipelines_when_compute_bound.
        d.pipeline_when_compute_bound =
            d.gpu && !d.pipelined && (cfg.schedule == "auto" || cfg.schedule == "eft") &&
            one_shot_staged(b, r, e);
        // ... or once no host computes (CudaDevice::copies_overlap).
        d.pipeline_after_first = d.pipeline_when_compute_bound;
        // The CPU's team reported to the scheduler: one core fewer when
        // the process has an accelerator (CpuDevice::threads()).
        const int team = names.size() > 1 ? d.cost.threads - 1 : d.cost.threads;
        p.is_host.push_back(d.cost.host);
        p.lanes.push_back(d.cost.host ? (d.cost.flat ? 1 : std::max(0, team))
                                      : d.cost.kernel_lanes);
        p.waves.push_back(d.cost.host ? 0 : d.cost.kernel_wave);
        // region_exec.cpp set_co_speed: the team left when every device
        // works and the CPU lends threads to the GPU's copies.
        const int lent =
            d.cost.host && names.size() > 1
                ? lent_copy_threads(m, sched_name, b, r, e, team, /*cpu_works=*/true,
                                    /*gpu_works=*/true, data_region_lends)
                : 0;
        p.co_speed.push_back(lent > 0 ? double(team - lent) / team : 1.0);
        devs.push_back(d);
      }
      // region_exec.cpp set_rate_ceiling: where the CPU lends threads, each
      // GPU's staged copies at kStagedCopyCeiling.
      const bool lends = std::any_of(p.co_speed.begin(), p.co_speed.end(),
                                     [](double s) { return s < 1; });
      const double mapped = mapped_bytes(b, r, e);
      for (const SimDevice &d : devs)
        p.rate_ceiling.push_back(lends && d.gpu && mapped > 0 && p.iterations > 0
                                     ? kStagedCopyCeiling /
                                           (mapped / double(p.iterations))
                                     : 0.0);
      ExecutionContext ctx;
      ctx.region = &r;
      ctx.execution = e;
      ctx.residency = residency.get();
      ctx.link = &b.link;
      ctx.dma_slowdown = m.dma_slowdown;
      ctx.chunk_host = m.chunk_host;
      ctx.chunk_copy = m.chunk_copy;
      ctx.both_ways = m.both_ways;
      ctx.staged_link = one_shot_staged(b, r, e);
      ctx.contention = m.contention_of(b);
      ctx.t0 = out.seconds;
      for (const Stall &st : stalls)
        for (size_t i = 0; i < names.size(); ++i)
          if (names[i] == st.device)
            ctx.stalls.push_back({int(i), st});
      for (const std::string &name : names)
        ctx.woken.push_back(e == 0 || !worked_last[ri].count(name));
      for (const std::string &name : names)
        if (name == "gpu")
          ctx.link_scale = r.cost.at(name).scale;
      LoopSim loop(s, devs, ctx);
      const std::vector<bool> idle = loop.begin(p);
      bool cpu_works = false, gpu_works = false;
      for (size_t i = 0; i < devs.size(); ++i) {
        cpu_works = cpu_works || (devs[i].cost.host && !idle[i]);
        gpu_works = gpu_works || (devs[i].gpu && !idle[i]);
      }
      const CopyLending &lending = m.lending_of(b);
      int lent = 0;
      if (lending.bw > 0)
        for (const SimDevice &d : devs)
          if (d.cost.host)
            lent = lent_copy_threads(m, sched_name, b, r, e, d.cost.threads - 1,
                                     cpu_works, gpu_works, data_region_lends);
      if (lent > 0)
        loop.lend_copy_threads(lending, lent);
      double one_time = 0; // Device::one_time_seconds(): registering, the pool
      for (size_t i = 0; i < devs.size(); ++i) {
        SimDevice &d = loop.device(int(i));
        if (d.cost.host) {
          // region_exec.cpp: the whole team when every accelerator is left
          // out, one thread fewer beside a working one.
          bool alone = true;
          for (size_t j = 0; j < devs.size(); ++j)
            alone = alone && (j == i || idle[j]);
          if (!alone && d.cost.threads > 1) {
            d.cost.comp.c *= double(d.cost.threads) / (d.cost.threads - 1);
            d.cost.threads -= 1;
          }
          if (!alone && lent > 0) { // ... and less the threads lent
            const int team = std::max(1, d.cost.threads - lent);
            d.lent_slowdown =
                lending.cpu > 0 ? lending.cpu : double(d.cost.threads) / team;
            d.cost.comp.c *= d.lent_slowdown;
            d.cost.threads = team;
          }
          d.prepare = d.cost.prepare * d.cost.scale;
          if (!cpu_forked && m.cpu_team_prologue) // its prologue makes the team
            d.prepare += m.cpu_team;
          else if (!cpu_forked) // its first fork creates the team (unscaled)
            d.first_extra = m.cpu_team;
        } else if (!idle[i]) {
          // Before its first chunk, on its controller, while the others
          // compute: pinning and windows once per program run, broadcasts
          // it lacks, and (v1) a preparation per execution.
          d.prepare = d.cost.prepare * d.cost.scale;
          if (!gpu_launched[ri])
            d.first_extra = d.cost.first_launch * d.cost.scale;
          // ADETS' pipelined GPU: the first kernel of every execution is
          // slower than the later ones (Machine::pipeline_first).
          if (d.pipelined)
            d.first_extra += m.pipeline_first;
          const bool first_prepare = !gpu_prepared[ri];
          gpu_prepared[ri] = true;
          // The staging pool (Machine::staging_pool): prepare_copies makes
          // it, once per process, for a one-shot region mapping
          // kQuietHostBytes or more while the GPU has copy threads: alone
          // (no CPU chunk: every core), or lent beside the CPU's team; and
          // for a data region's execution that lends (lends_in_data_region:
          // its arrays are staged, not pinned).  Beside a team that lends
          // none the GPU registers instead.
          const bool staged_in_data_region = lent > 0 && data_region_lends;
          if (!pool_made && m.staging_pool > 0 && (lent > 0 || !cpu_works) &&
              (one_shot_staged(b, r, e) || staged_in_data_region)) {
            d.prepare += m.staging_pool;
            one_time += m.staging_pool;
            pool_made = true;
          }
          // Beside a working CPU team the preparation pins the data
          // region's arrays whole (Residency::pin; Link::pin_up_bw).
          bool cpu_works = false;
          for (size_t j = 0; j < devs.size(); ++j)
            cpu_works = cpu_works || (devs[j].cost.host && !idle[j]);
          if (residency && cpu_works && !staged_in_data_region) {
            const double pinned_now = residency->pin(r, e);
            if (b.link.pin_reg_bw > 0) {
              d.reg = pinned_now / b.link.pin_reg_bw;
              d.reg_piece = double(Device::kPinPieceBytes) / b.link.pin_reg_bw;
              d.prepare += d.reg;
              one_time += d.reg;
            }
          }
          // The GPU alone, every core its copy threads (share_copy_threads):
          // its preparation stages a data region's arrays through the pool
          // where their unpinned spans come to kPoolMakeBytes, or the pool
          // is there, and registers them otherwise (CudaDevice::prepare_hosts,
          // stages_instead_of_pinning) -- fdtd2d's ey region, 63.98 MiB of
          // ey and hz, registers both.  What that costs is in the calibrated
          // prepare_first (the profiles measured the GPU alone); what it
          // changes is what a co-execution would register later
          // (DataEnv::would_pin: eft's host_probe_deferred).  Not modelled:
          // a rented array pinned once staged twice its size.
          if (residency && !cpu_works && in_data_region(b, r)) {
            if (residency->unpinned_spans(r, e, double(kPoolMinBytes)) >=
                double(kPoolMakeBytes))
              pool_made = true;
            if (!pool_made)
              residency->pin(r, e);
          }
          if (first_prepare) {
            double first = d.cost.prepare_first * d.cost.scale;
            // Registering beside the CPU's team, the GPU makes no staging
            // pool (Machine::prepare_registering); staging beside it, the
            // pool is its own line above.
            if ((d.reg > 0 || staged_in_data_region) && m.prepare_registering >= 0)
              first = std::min(first, m.prepare_registering);
            d.prepare += first;
          }
          if (residency) {
            Moves mv = residency->prepare(r, e);
            d.prepare += mv.seconds(b.link, ctx.link_scale);
            out.bytes += mv.bytes();
          }
        }
      }
      // The grace: taken by the first CPU prologue, waited only beside a
      // working accelerator, and ended by its first ask (just after it).
      for (size_t i = 0; i < devs.size() && first_ask_grace; ++i)
        if (devs[i].cost.host && !idle[i]) {
          first_ask_grace = false;
          double asks = std::numeric_limits<double>::infinity();
          for (size_t j = 0; j < devs.size(); ++j)
            if (!devs[j].cost.host && !idle[j])
              asks = std::min(asks, loop.device(int(j)).prepare);
          SimDevice &d = loop.device(int(i));
          if (asks < std::numeric_limits<double>::infinity())
            d.prepare = std::max(
                d.prepare,
                std::min(asks + 1e-6,
                         d.prepare + std::min(m.cpu_team, hce::kFirstAskGraceMax)));
        }
      const double loop_wall = loop.run();
      worked_last[ri].clear();
      for (size_t i = 0; i < devs.size(); ++i)
        if (loop.devices[i].chunks > 0)
          worked_last[ri].insert(names[i]);
      // Beside a working CPU the GPU registered the pageable rows it copied;
      // the execution ends when they are unregistered (Link::unreg_bw).
      bool cpu_worked = false;
      for (size_t i = 0; i < devs.size(); ++i)
        cpu_worked = cpu_worked || (devs[i].cost.host && loop.devices[i].chunks > 0);
      const double unreg = residency && cpu_worked && lent == 0 && b.link.unreg_bw > 0
                               ? residency->registrations() * b.link.unreg_lat +
                                     residency->registered_bytes() / b.link.unreg_bw
                               : 0;
      const double wall = overhead(m.overhead, names, idle) + loop_wall + unreg;
      // region_exec.cpp: the scheduler gets the whole execution's wall
      // (Scheduler::ended, 82b5b9d), here the loop's and the runtime's
      // fixed cost of the execution (no data placement outside the loop is
      // modelled).
      if (lent > 0 && data_region_lends)
        lent_wall[ri] += wall;
      ended(s, wall, one_time);
      // region_exec.cpp fold_stats: the devices' rates, from a site's
      // second execution on.
      for (size_t i = 0; i < devs.size() && e > 0; ++i)
        if (loop.devices[i].iterations > 0) {
          if (const double rate = rate_of_large_chunks(loop.devices[i].chunk_times);
              rate > 0)
            slow[ri].measured(names[i], rate);
        } else if (!idle[i] && p.iterations >= int64_t(devs.size())) {
          slow[ri].got_nothing(names[i]);
        }
      for (size_t i = 0; i < devs.size(); ++i) {
        if (!devs[i].cost.host && loop.devices[i].chunks > 0)
          gpu_launched[ri] = true;
        if (devs[i].cost.host && loop.devices[i].chunks > 0 && in_data_region(b, r))
          for (const Use &u : r.uses)
            if (u.write)
              host_wrote.insert(u.array);
        if (devs[i].cost.host &&
            (loop.devices[i].chunks > 0 || (m.cpu_team_prologue && !idle[i])))
          cpu_forked = true;
      }
      if (residency && b.link.pin_reg_bw > 0)
        for (size_t i = 0; i < devs.size(); ++i)
          if (loop.reg_undone(int(i)) > 0) {
            residency->unpin_last(loop.reg_undone(int(i)) * b.link.pin_reg_bw);
            // Its windows and uploads not made: the next preparation's.
            residency->unprepare_last();
            gpu_prepared[ri] = false;
          }
      if (residency)
        residency->end_execution(r, e);
      if (store)
        record(s, r, e, names, loop.devices, wall, *store);
      double bytes = 0;
      for (const DeviceRun &d : loop.devices)
        bytes += d.bytes;
      out.seconds += wall;
      out.bytes += bytes;
      out.log.push_back(
          {r.name, e, p.iterations, s.explain(), names, loop.devices, wall, bytes});
    }
  }
  if (store)
    store->save(profile); // at the runtime's shutdown
  return out;
}

} // namespace hce::sim
