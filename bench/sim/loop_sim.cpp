// One execution of a region's chunk loop in virtual time (loop_sim.hpp).
#include "loop_sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace hce::sim {

std::vector<bool> LoopSim::begin(SchedParams params) {
  params.clock = [this] { return now_; };
  iterations_ = params.iterations;
  for (const SimDevice &d : devs_)
    params.lookahead = params.lookahead || d.pipelined;
  sched_.begin(params);
  devices.assign(devs_.size(), {});
  idle_.assign(devs_.size(), false);
  for (size_t d = 0; d < devs_.size(); ++d)
    if ((idle_[d] = sched_.idle(int(d)))) {
      devices[d].idle = true;
      sched_.drop(int(d)); // chunk_loop.cpp: its controller is not woken
    }
  co_ = std::count(idle_.begin(), idle_.end(), false) >= 2;
  return idle_;
}

double LoopSim::copy_overlap(double a, double b) const {
  double s = 0;
  for (auto [x, y] : copies_)
    s += std::max(0.0, std::min(b, y) - std::max(a, x));
  return std::min(s, b - a);
}

double LoopSim::copy_overlap(double a, double b, bool paged) const {
  double s = 0;
  for (size_t i = 0; i < copies_.size(); ++i)
    if (copy_paged_[i] == paged)
      s += std::max(0.0, std::min(b, copies_[i].second) - std::max(a, copies_[i].first));
  return std::min(s, b - a);
}

bool LoopSim::host_woken(int except) const {
  for (size_t j = 0; j < devs_.size(); ++j)
    if (int(j) != except && devs_[j].cost.host && !idle_[j])
      return true;
  return false;
}

bool LoopSim::host_retired() const {
  for (size_t j = 0; j < devs_.size(); ++j)
    if (devs_[j].cost.host && st_[j].done && sched_.retired(int(j)))
      return true;
  return false;
}

bool LoopSim::host_quiet() const {
  if (host_retired())
    return true;
  for (size_t j = 0; j < devs_.size(); ++j)
    if (host_paused(int(j)))
      return true;
  return false;
}

bool LoopSim::other_works(int d, double t) const {
  for (size_t j = 0; j < devs_.size(); ++j) {
    const DeviceState &h = st_[j];
    if (int(j) == d || idle_[j] || h.done || h.waiting)
      continue;
    // Preparing, or a chunk (or a stage of one) in flight at t.
    if (!h.asked || !h.completions.empty() ||
        std::max({h.end, h.up_free, h.comp_free, h.down_free}) > t)
      return true;
  }
  return false;
}

bool LoopSim::host_paused(int j) const {
  return devs_[size_t(j)].cost.host && !idle_[size_t(j)] && sched_.paused(j) &&
         st_[size_t(j)].end <= now_;
}

bool LoopSim::host_active(int except) const {
  for (size_t j = 0; j < devs_.size(); ++j) {
    const DeviceState &h = st_[j];
    // Past its preparation (its first ask), not done and not waiting: it
    // computes a chunk or is about to ask for one.
    if (int(j) != except && devs_[j].cost.host && !idle_[j] && now_ >= devs_[j].prepare &&
        !h.done && !h.waiting && !host_paused(int(j)))
      return true;
  }
  return false;
}

void LoopSim::stretch_hosts(double a, double b) {
  for (size_t j = 0; j < devs_.size(); ++j) {
    DeviceState &h = st_[j];
    if (!devs_[j].cost.host || devs_[j].pipelined || h.end <= now_)
      continue;
    const double over = std::min(b, h.comp1) - std::max(a, h.comp0);
    if (over <= 0)
      continue;
    // The copy was not known when the chunk began: it now computes
    // cpu_scale times slower for the overlap.
    const double extra = (ctx_.contention.cpu_scale - 1) * over;
    if (extra <= 0)
      continue;
    h.comp1 += extra;
    h.end += extra;
    h.total += extra;
    devices[j].compute_busy += extra;
    devices[j].busy += extra;
    ++h.gen;
    q_.push({h.end, Complete, int(j), h.range, h.total, h.gen});
    q_.push({h.end + host_gap(), Ask, int(j), {}, 0, h.gen});
  }
}

double Stall::duration(double t, double work) const {
  const double end = from + len;
  if (!(factor > 0) || factor == 1 || t >= end || t + work <= from)
    return work;
  double at = t, left = work;
  if (at < from) { // at full speed until the stall
    left -= from - at;
    at = from;
  }
  const double in_stall = (end - at) / factor; // work the stall's rest holds
  if (left <= in_stall)
    return at + left * factor - t;
  return end + (left - in_stall) - t;
}

LoopSim::Stages LoopSim::stages(int d, Range r, double start) {
  const SimDevice &dev = devs_[size_t(d)];
  const DeviceCost &c = dev.cost;
  const int64_t n = r.size();
  Stages s;
  // The CPU variant without a flattened nest runs a chunk of n < team rows
  // on n threads: a chunk costs at least as much as `lanes` iterations.
  const int64_t lanes =
      c.host ? std::max(c.lanes, c.flat ? 0 : int64_t(c.threads)) : c.lanes;
  const double row = ctx_.region ? ctx_.region->row_scale(ctx_.execution) : 1;
  const Contention &con = ctx_.contention;
  bool up_paged = false, down_paged = false;
  // A kernel in waves: a part wave costs a whole one.
  const int64_t waved = !c.host && c.wave > 0 ? (n + c.wave - 1) / c.wave * c.wave : n;
  const double lanes_n = double(std::max(waved, lanes));
  double comp = c.comp.o + c.comp.c * row * lanes_n;
  if (c.full.c > 0) // a concave kernel (DeviceCost::full)
    comp = std::min(comp, c.full.o + c.full.c * row * lanes_n);
  s.comp = comp * c.scale;
  if (c.host && dev.lent_slowdown > 1 && !sched_.lending())
    s.comp /= dev.lent_slowdown;      // the lent threads back in its team
  if (devices[size_t(d)].chunks == 0) // the first launch of its kernel
    s.comp += dev.first_extra;
  for (const auto &[sd, stall] : ctx_.stalls) {
    if (sd != d)
      continue;
    if (stall.woken || stall.each) {
      const double t = ctx_.t0 + start;
      const bool woken = size_t(d) < ctx_.woken.size() && ctx_.woken[size_t(d)];
      if (devices[size_t(d)].chunks == 0 && (stall.each || woken) && t >= stall.from &&
          t < stall.from + stall.len)
        s.comp += stall.factor; // (seconds: Stall::woken)
    } else if (!stall.beside || other_works(d, start)) {
      s.comp = stall.duration(ctx_.t0 + start, s.comp);
    }
  }
  if (!ctx_.residency) { // v1: transfers per iteration
    s.up = c.up.at(n) * c.scale;
    s.down = c.down.at(n) * c.scale;
  } else {
    Moves in = ctx_.residency->acquire(*ctx_.region, ctx_.execution, r, dev.gpu);
    Moves out = ctx_.residency->release(*ctx_.region, ctx_.execution, r, dev.gpu);
    // Host contention: in an execution where the CPU works, the GPU copies
    // pageable memory through the registered path (the link's bandwidth,
    // not scaled to the GPU alone's staged copies) and, beside a computing
    // CPU team, at the contended bandwidth (whole-copy approximation:
    // decided when the chunk is issued).
    if (dev.gpu && ctx_.lent_bw > 0 && !host_quiet()) {
      // Staged by the threads lent beside the CPU's team: nothing
      // page-locked, the pageable bytes at the pool's rate each way.
      in.registers = out.registers = 0;
      in.reg_bytes = out.reg_bytes = 0;
      s.staged = true;
      const CopyLending &l = ctx_.lent;
      if (l.worker > 0) { // per staging-pool job (CopyLending::staged)
        s.up = l.staged(in.up_bytes, in.up_copies, ctx_.lent_workers) +
               l.staged(in.down_bytes, in.down_copies, ctx_.lent_workers);
        s.down = l.staged(out.up_bytes, out.up_copies, ctx_.lent_workers) +
                 l.staged(out.down_bytes, out.down_copies, ctx_.lent_workers);
      } else {
        s.up = in.seconds(*ctx_.link, ctx_.link_scale, ctx_.lent_bw, ctx_.lent_bw);
        s.down = out.seconds(*ctx_.link, ctx_.link_scale, ctx_.lent_bw, ctx_.lent_bw);
      }
      if (ctx_.execution == 0 && devices[size_t(d)].chunks == 0) {
        s.up += in.up_copies + in.down_copies > 0 ? l.first_up : 0;
        s.down += out.up_copies + out.down_copies > 0 ? l.first_down : 0;
      }
    } else if (dev.gpu && con.on() && host_woken(d)) {
      const bool busy = host_active(d);
      const double up_bw = busy && con.up_bw > 0 ? con.up_bw : ctx_.link->up_bw;
      const double down_bw = busy && con.down_bw > 0 ? con.down_bw : ctx_.link->down_bw;
      s.up = in.seconds(*ctx_.link, ctx_.link_scale, up_bw, down_bw);
      s.down = out.seconds(*ctx_.link, ctx_.link_scale, up_bw, down_bw);
      s.staged = ctx_.staged_link; // through the pool (both_ways)
    } else {
      s.up = in.seconds(*ctx_.link, ctx_.link_scale);
      s.down = out.seconds(*ctx_.link, ctx_.link_scale);
      s.staged = dev.gpu && ctx_.staged_link; // through the pool (both_ways)
    }
    s.bytes = in.bytes() + out.bytes();
    if (in.first_up > 0 && in.up_bytes > 0)
      s.first_up = s.up * std::min(1.0, in.first_up / in.up_bytes);
    if (in.resident > 0 && in.bytes() > 0)
      s.placed_up = s.up * std::min(1.0, in.resident / in.bytes());
    // A copying stage's bookkeeping around its batch (ExecutionContext::chunk_copy).
    if (co_ && ctx_.chunk_copy > 0) {
      if (in.up_copies + in.down_copies > 0)
        s.up += ctx_.chunk_copy;
      if (out.up_copies + out.down_copies > 0)
        s.down += ctx_.chunk_copy;
    }
    up_paged = in.paged() > 0;
    down_paged = out.paged() > 0;
  }
  if (dev.gpu) {
    // The copy engines' busy time, which slows the CPU's compute; not the
    // lent threads' copies: the team's per-row cost beside them is
    // measured as a whole (CopyLending::cpu).
    if (ctx_.lent_bw > 0 && !host_quiet())
      return s;
    if (s.up > 0) {
      copies_.push_back({start, start + s.up});
      copy_paged_.push_back(up_paged);
      if (up_paged && con.on())
        stretch_hosts(start, start + s.up);
    }
    if (s.down > 0) {
      const double d0 = start + s.up + s.comp;
      copies_.push_back({d0, d0 + s.down});
      copy_paged_.push_back(down_paged);
      if (down_paged && con.on())
        stretch_hosts(d0, d0 + s.down);
    }
  } else if (con.on()) {
    // With contention: cpu_scale while a copy of pageable memory runs,
    // dma_slowdown while another copy does.
    const double c0 = start + s.up;
    s.comp += (con.cpu_scale - 1) * copy_overlap(c0, c0 + s.comp, true) +
              std::max(0.0, ctx_.dma_slowdown - 1) * copy_overlap(c0, c0 + s.comp, false);
  } else if (ctx_.dma_slowdown > 1) {
    // Host DRAM shared with the copy engines: while a copy runs, the CPU
    // computes dma_slowdown times slower (host-dram-under-dma.cu).
    const double c0 = start + s.up;
    s.comp += (ctx_.dma_slowdown - 1) * copy_overlap(c0, c0 + s.comp);
  }
  return s;
}

void LoopSim::cut_registrations() {
  for (size_t d = 0; d < devs_.size(); ++d) {
    const SimDevice &dev = devs_[d];
    DeviceState &s = st_[d];
    if (idle_[d] || s.asked || dev.reg <= 0 || now_ >= dev.reg)
      continue;
    // Checked before each piece: the one under way ends, and the rest of
    // the preparation (windows, broadcast uploads) is left for the next
    // (DataEnv::prepare; Residency::unprepare_last).
    const double piece = dev.reg_piece > 0 ? dev.reg_piece : dev.reg;
    const double stop = std::min(dev.reg, std::ceil(now_ / piece) * piece);
    s.reg_undone = dev.reg - stop;
    q_.push({stop, Ask, int(d), {}, 0, ++s.gen});
  }
}

double LoopSim::run() {
  for (size_t d = 0; d < devs_.size(); ++d)
    if (!idle_[d])
      q_.push(
          {devs_[d].prepare, Ask, int(d), {}, 0, devs_[d].reg > 0 ? ++st_[d].gen : 0});
  double end = 0;
  while (!q_.empty()) {
    Event e = q_.top();
    q_.pop();
    if (e.gen != 0 && e.gen != st_[size_t(e.dev)].gen)
      continue; // a stretched host chunk's old events
    now_ = e.t;
    if (e.kind == Complete) {
      sched_.complete(e.dev, e.range, e.steady >= 0 ? e.steady : e.seconds);
      devices[size_t(e.dev)].chunk_times.push_back({e.range.size(), e.seconds});
      end = std::max(end, e.t);
      const bool was_complete = completed_ >= iterations_;
      completed_ += e.range.size();
      if (!was_complete && completed_ >= iterations_)
        cut_registrations();
      for (size_t d = 0; d < st_.size(); ++d)
        if (st_[d].waiting) {
          st_[d].waiting = false;
          q_.push({now_, Ask, int(d), {}, 0});
        }
      continue;
    }
    // A device's controller is done when it is told Done: after its
    // preparation even when others took all the work (the loop joins it).
    end = std::max(end, e.t);
    st_[size_t(e.dev)].asked = true;
    ask(e.dev);
    if (++steps_ > 10'000'000)
      throw std::runtime_error("scheduler did not finish");
  }
  return end;
}

void LoopSim::ask(int d) {
  DeviceState &s = st_[size_t(d)];
  if (s.done)
    return;
  Decision dec = sched_.next(d);
  if (dec.kind == Decision::Done) {
    s.done = true;
    return;
  }
  if (dec.kind == Decision::Wait) {
    s.waiting = true;
    return;
  }
  DeviceRun &run = devices[size_t(d)];
  const Stages st = stages(d, dec.range, now_);
  if (trace_chunks)
    std::fprintf(
        stderr,
        "    chunk dev %d [%lld,%lld) n=%lld at %.6f up %.6f comp %.6f down %.6f\n", d,
        (long long)dec.range.lb, (long long)dec.range.ub, (long long)dec.range.size(),
        now_, st.up, st.comp, st.down);
  run.iterations += dec.range.size();
  run.chunks += 1;
  run.compute_busy += st.comp;
  run.busy += st.up + st.comp + st.down;
  run.bytes += st.bytes;
  if (!devs_[size_t(d)].pipelined) {
    const double total = st.up + st.comp + st.down;
    SimDevice &dev = devs_[size_t(d)];
    if (run.chunks > 1 &&
        ((dev.pipeline_after_first && host_quiet()) ||
         (dev.pipeline_when_compute_bound && st.comp > 2 * (st.up + st.down))))
      dev.pipelined = true; // its next chunk in the pipeline (chunk_loop.cpp)
    long gen = 0;
    if (devs_[size_t(d)].cost.host) { // stretch_hosts may re-time it
      gen = ++s.gen;
      s.range = dec.range;
      s.comp0 = now_ + st.up;
      s.comp1 = s.comp0 + st.comp;
      s.end = now_ + total;
      s.total = total;
    }
    q_.push({now_ + total, Complete, d, dec.range, total, gen,
             steady(total - one_time(d, st))});
    q_.push({now_ + total + host_gap(), Ask, d, {}, 0, gen});
    return;
  }
  // Staged copies through one pool (Machine::both_ways): while this upload
  // overlaps the earlier chunks' downloads, the two move g times the bytes
  // of one alone, not twice; the upload makes up what both lose.  (Every
  // download still queued, not only the last chunk's: a small chunk's
  // download after a large one's hid the large one's from the next upload.)
  const double u0 = std::max(now_, s.up_free);
  double u1 = u0 + st.up;
  while (!s.downs.empty() && s.downs.front().second <= u0)
    s.downs.pop_front();
  if (st.staged && ctx_.both_ways >= 1) {
    double o = 0;
    for (const auto &[a, b] : s.downs)
      o += std::max(0.0, std::min(u1, b) - std::max(u0, a));
    u1 += (2 - ctx_.both_ways) * o;
  }
  const double c0 = std::max(u1, s.comp_free), c1 = c0 + st.comp;
  const double d0 = std::max(c1, s.down_free), d1 = d0 + st.down;
  s.downs.emplace_back(d0, d1);
  s.up_free = u1;
  s.comp_free = c1;
  s.down_free = d1;
  s.completions.push_back(d1);
  // What the chunk loop measures: its slowest stage.
  const double up = u1 - u0;
  q_.push({d1, Complete, d, dec.range, std::max({up, st.comp, st.down}), 0,
           steady(std::max({up - one_time(d, st), st.comp, st.down}))});
  // The next upload starts when the upload stream and a slot are free.
  double next = u1;
  if (s.completions.size() >= 3) {
    next = std::max(next, s.completions.front());
    s.completions.pop_front();
  }
  q_.push({next, Ask, d, {}, 0});
}

} // namespace hce::sim
