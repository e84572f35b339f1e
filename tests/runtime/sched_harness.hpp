// A deterministic discrete-event simulator that drives a hce::Scheduler the
// way the runtime's device controller threads do, in virtual time.
//
// Every simulated device asks next(d) when idle; Run starts the chunk (its
// duration comes from the device's scripted speed), Wait parks the device
// until some other device reports (complete or drop), Done retires it.
// Completions are processed in time order (ties: lower device first); after
// each report the reporting device asks again, then every waiting device.
// With lookahead (ADETS Alg. 4 pipelining) a device asks for its next chunk
// as soon as it starts one, so it holds at most one pre-assigned chunk.
// drop(d) at a scripted time: the in-flight (and pre-assigned) chunks of d
// are "re-run by the runtime", recorded in SimResult::rerun.
//
// If no chunk is running while some device waits, nobody can ever wake it:
// the run stops with deadlock = true.
//
// start_at delays a device's first next() (a controller woken late, a device
// whose first use loads a program image); drop_idle drops every device the
// scheduler's idle() names right after begin(), before any device asks, as
// the runtime's chunk loop does.
#pragma once

#include "sched/scheduler.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace hce::simtest {

struct SimDevice {
  double speed = 1e6;  // iterations per second
  double overhead = 0; // seconds added to every chunk
  bool host = false;   // SchedParams::is_host
  int64_t lanes = 0;   // SchedParams::lanes
  int64_t wave = 0;    // SchedParams::waves
  // Seconds added to a chunk that runs while another device runs one (the
  // H100's CPU chunks beside the GPU's pinning and copies: 1-17 ms).
  double beside = 0;
  // Optional: seconds for `range` as this device's k-th chunk (0-based);
  // overrides speed/overhead.
  std::function<double(Range range, int k)> time_fn;

  double time(Range r, int k) const {
    if (time_fn)
      return time_fn(r, k);
    return overhead + static_cast<double>(r.size()) / speed;
  }
  static SimDevice constant(double speed, double overhead = 0,
                            bool host = false) {
    SimDevice d;
    d.speed = speed;
    d.overhead = overhead;
    d.host = host;
    return d;
  }
  // Speed v[k] for the k-th chunk (the last value repeats).
  static SimDevice per_chunk(std::vector<double> v, double overhead = 0) {
    SimDevice d;
    d.time_fn = [v, overhead](Range r, int k) {
      double s = v[std::min<size_t>(k, v.size() - 1)];
      return overhead + static_cast<double>(r.size()) / s;
    };
    return d;
  }
};

struct SimChunk {
  int device = 0;
  Range range;
  double issued = 0; // virtual time next() returned it
  double start = 0, end = 0;
  bool completed = false;
  bool stalled = false; // SimDevice::beside was added
};

struct SimOptions {
  bool lookahead = false;
  // (device, time): drop the device at the first event at or after time
  // (time <= 0: right after begin(), before any device asks).
  std::vector<std::pair<int, double>> drops;
  // Per device: virtual time of its first next() (missing = 0).
  std::vector<double> start_at;
  // Drop the devices idle() names after begin(), as the runtime does.
  bool drop_idle = false;
  // Seconds the runtime adds to every execution's wall (its own overhead,
  // in no chunk): what Scheduler::ended() gets beyond the makespan.
  double wall_extra = 0;
  // ... and this much more when an accelerator (a device that is not a
  // host) is woken (not idle() after begin()): its per-execution data
  // movement, in no chunk (lud's one-shot maps on the H100: the GPU alone
  // 0.3-0.7 ms, co-execution 0.6-1.2 ms, the CPU alone 10-20 us).
  double accelerator_wall_extra = 0;
  // ... and this much when only hosts are woken right after an execution
  // that woke an accelerator (*accelerator_before, kept by simulate()): the
  // data coming home, in no chunk (lud's rows fetched back from the GPU and
  // the CPU's team woken on the H100: 1.2-2 ms, its chunk 10-20 us).
  double host_after_accelerator_extra = 0;
  std::shared_ptr<bool> accelerator_before = std::make_shared<bool>(false);
  size_t max_steps = 50'000'000;
};

struct SimResult {
  std::vector<SimChunk> chunks; // in issue order
  std::vector<Range> rerun;     // unfinished chunks of dropped devices
  double makespan = 0;
  bool deadlock = false;
  bool step_limit = false;
  std::string error;
  std::vector<int64_t> iterations; // per device, completed chunks only
  std::vector<bool> idle;          // per device: idle() right after begin()

  // Sizes of the chunks device d was given, in order.
  std::vector<int64_t> sizes(int d) const {
    std::vector<int64_t> s;
    for (const SimChunk &c : chunks)
      if (c.device == d)
        s.push_back(c.range.size());
    return s;
  }
};

inline SchedParams make_params(int64_t W, const std::vector<SimDevice> &devs,
                               int64_t chunk = 0, double alpha = 0.1,
                               std::vector<double> ratios = {},
                               bool lookahead = false) {
  SchedParams p;
  p.iterations = W;
  p.num_devices = static_cast<int>(devs.size());
  p.initial_chunk = chunk;
  p.alpha = alpha;
  p.ratios = std::move(ratios);
  for (const SimDevice &d : devs) {
    p.is_host.push_back(d.host);
    p.lanes.push_back(d.lanes);
    p.waves.push_back(d.wave);
  }
  p.lookahead = lookahead;
  return p;
}

// Runs one execution of the region (calls s.begin(params)).
inline SimResult simulate(Scheduler &s, const SchedParams &params,
                          const std::vector<SimDevice> &devs,
                          const SimOptions &opt = {}) {
  const int p = static_cast<int>(devs.size());
  SimResult res;
  res.iterations.assign(p, 0);
  enum Status { Asking, Waiting, Retired };
  struct Dev {
    std::deque<size_t> queue; // chunk indices: front running, then queued
    Status status = Asking;
    bool dropped = false;
    bool want_more = false; // lookahead ask answered Wait
    int nchunks = 0;
  };
  std::vector<Dev> dev(p);
  std::vector<std::pair<int, double>> drops = opt.drops;
  std::vector<bool> drop_done(drops.size(), false);
  double now = 0;
  size_t steps = 0;

  // Schedulers that plan by finish times (eft) read the virtual clock.
  SchedParams timed = params;
  timed.clock = [&now] { return now; };
  s.begin(timed);
  for (int d = 0; d < p; ++d)
    res.idle.push_back(s.idle(d));
  auto start_of = [&](int d) {
    return d < static_cast<int>(opt.start_at.size()) ? opt.start_at[d] : 0.0;
  };
  std::vector<bool> started(p, false);

  auto start_front = [&](int d) {
    SimChunk &c = res.chunks[dev[d].queue.front()];
    c.start = now;
    c.end = now + std::max(0.0, devs[d].time(c.range, dev[d].nchunks++));
    // Chunks that run side by side stall those of devices with `beside`.
    auto stall = [&](SimChunk &x, int owner) {
      if (devs[owner].beside > 0 && !x.stalled) {
        x.end += devs[owner].beside;
        x.stalled = true;
      }
    };
    for (int e = 0; e < p; ++e)
      if (e != d && !dev[e].queue.empty()) {
        stall(c, d);
        stall(res.chunks[dev[e].queue.front()], e);
      }
  };
  // One next() call; returns true if a chunk was handed out.
  auto ask = [&](int d) -> bool {
    Dev &v = dev[d];
    if (v.dropped || v.status == Retired)
      return false;
    Decision dec = s.next(d);
    ++steps;
    if (dec.kind == Decision::Run) {
      if (dec.range.empty() || dec.range.lb < 0 ||
          dec.range.ub > params.iterations) {
        std::ostringstream os;
        os << "bad range [" << dec.range.lb << "," << dec.range.ub
           << ") for device " << d;
        if (res.error.empty())
          res.error = os.str();
        v.status = Retired;
        return false;
      }
      res.chunks.push_back({d, dec.range, now, 0, 0, false});
      v.queue.push_back(res.chunks.size() - 1);
      v.want_more = false;
      v.status = Asking;
      if (v.queue.size() == 1)
        start_front(d);
      return true;
    }
    if (dec.kind == Decision::Wait) {
      if (v.queue.empty())
        v.status = Waiting;
      else
        v.want_more = true;
      return false;
    }
    // Done: no more work for d (it finishes what it holds).
    v.status = Retired;
    v.want_more = false;
    return false;
  };
  // A device with nothing (or, with lookahead, only one running chunk)
  // asks for more.
  auto serve = [&](int d) {
    Dev &v = dev[d];
    if (v.dropped || v.status == Retired || !started[d])
      return;
    if (v.queue.empty()) {
      if (ask(d) && opt.lookahead && dev[d].queue.size() == 1)
        ask(d);
    } else if (opt.lookahead && v.queue.size() == 1) {
      ask(d);
    }
  };
  auto wake_all = [&](int except) {
    for (int d = 0; d < p; ++d)
      if (d != except && !dev[d].dropped && dev[d].status != Retired &&
          (dev[d].status == Waiting || dev[d].want_more))
        serve(d);
  };
  auto do_drops = [&](double t) {
    for (size_t i = 0; i < drops.size(); ++i) {
      if (drop_done[i] || drops[i].second > t)
        continue;
      drop_done[i] = true;
      int d = drops[i].first;
      if (d < 0 || d >= p || dev[d].dropped)
        continue;
      dev[d].dropped = true;
      for (size_t ci : dev[d].queue)
        res.rerun.push_back(res.chunks[ci].range);
      dev[d].queue.clear();
      dev[d].status = Retired;
      s.drop(d);
      wake_all(d);
    }
  };

  if (opt.drop_idle)
    for (int d = 0; d < p; ++d)
      if (res.idle[d]) {
        dev[d].dropped = true;
        dev[d].status = Retired;
        s.drop(d);
      }
  do_drops(0);
  auto start_due = [&](double t) {
    for (int d = 0; d < p; ++d)
      if (!started[d] && start_of(d) <= t) {
        started[d] = true;
        serve(d);
      }
  };
  start_due(0);

  while (true) {
    if (steps > opt.max_steps) {
      res.step_limit = true;
      break;
    }
    // Next completion.
    int who = -1;
    double t = std::numeric_limits<double>::infinity();
    for (int d = 0; d < p; ++d)
      if (!dev[d].queue.empty()) {
        double e = res.chunks[dev[d].queue.front()].end;
        if (e < t) {
          t = e;
          who = d;
        }
      }
    // Pending drops that happen before it.
    double tdrop = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < drops.size(); ++i)
      if (!drop_done[i])
        tdrop = std::min(tdrop, drops[i].second);
    if (tdrop <= t && tdrop < std::numeric_limits<double>::infinity()) {
      now = std::max(now, tdrop);
      do_drops(now);
      continue;
    }
    // Devices that start before it.
    double tstart = std::numeric_limits<double>::infinity();
    for (int d = 0; d < p; ++d)
      if (!started[d])
        tstart = std::min(tstart, start_of(d));
    if (tstart <= t && tstart < std::numeric_limits<double>::infinity()) {
      now = std::max(now, tstart);
      start_due(now);
      continue;
    }
    if (who < 0) {
      for (int d = 0; d < p; ++d)
        if (!dev[d].dropped && dev[d].status == Waiting)
          res.deadlock = true;
      break;
    }
    now = t;
    Dev &v = dev[who];
    SimChunk &c = res.chunks[v.queue.front()];
    v.queue.pop_front();
    c.completed = true;
    res.iterations[who] += c.range.size();
    res.makespan = std::max(res.makespan, c.end);
    if (!v.queue.empty())
      start_front(who); // the pre-assigned chunk starts now
    s.complete(who, c.range, c.end - c.start);
    ++steps;
    serve(who);
    wake_all(who);
  }
  // The runtime joins every device it woke, so one that starts late ends the
  // execution no earlier than its start, even with nothing to do.
  // (Devices idle() names are not woken.)
  for (int d = 0; d < p; ++d)
    if (!res.idle[d] && started[d] && !dev[d].dropped)
      res.makespan = std::max(res.makespan, start_of(d));
  // As the runtime does after the loop (region_exec): the whole wall, which
  // a late device's join is part of.  (The clock starts at 0 each time.)
  bool accelerator = false;
  for (int d = 0; d < p; ++d)
    accelerator = accelerator || (!res.idle[d] && !devs[size_t(d)].host);
  bool woken = false;
  for (int d = 0; d < p; ++d)
    woken = woken || !res.idle[d];
  const bool home = woken && !accelerator && *opt.accelerator_before;
  *opt.accelerator_before = accelerator;
  s.ended(res.makespan + opt.wall_extra + (accelerator ? opt.accelerator_wall_extra : 0) +
              (home ? opt.host_after_accelerator_extra : 0),
          0);
  return res;
}

// "" if the completed chunks plus the re-run ones cover [0, W) exactly once.
inline std::string check_coverage(const SimResult &r, int64_t W) {
  if (!r.error.empty())
    return r.error;
  if (r.deadlock)
    return "deadlock";
  if (r.step_limit)
    return "step limit";
  std::vector<Range> all = r.rerun;
  for (const SimChunk &c : r.chunks)
    if (c.completed)
      all.push_back(c.range);
  std::sort(all.begin(), all.end(),
            [](const Range &a, const Range &b) { return a.lb < b.lb; });
  int64_t at = 0;
  for (const Range &x : all) {
    std::ostringstream os;
    if (x.empty()) {
      os << "empty range at " << x.lb;
      return os.str();
    }
    if (x.lb != at) {
      os << (x.lb < at ? "overlap" : "gap") << " at " << std::min(at, x.lb)
         << " (next range [" << x.lb << "," << x.ub << "))";
      return os.str();
    }
    at = x.ub;
  }
  if (at != W) {
    std::ostringstream os;
    os << "covered [0," << at << ") of " << W;
    return os.str();
  }
  return "";
}

} // namespace hce::simtest
