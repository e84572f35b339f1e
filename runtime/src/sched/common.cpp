// Shared helpers of the inter-device schedulers; see common.hpp.
#include "common.hpp"

#include <algorithm>
#include <cmath>

namespace hce::sched {

int64_t default_initial_chunk(const SchedParams &params) {
  const int64_t W = std::max<int64_t>(0, params.iterations);
  int64_t c =
      params.initial_chunk > 0 ? params.initial_chunk : std::max<int64_t>(1, W / 128);
  return std::max<int64_t>(1, std::min(c, std::max<int64_t>(1, W)));
}

std::vector<double> normalise(std::vector<double> ratios,
                              const std::vector<bool> &active) {
  normalise_in_place(ratios, active);
  return ratios;
}

void normalise_in_place(std::vector<double> &ratios, const std::vector<bool> &active) {
  double sum = 0;
  int nactive = 0;
  for (size_t i = 0; i < ratios.size(); ++i) {
    bool on = i < active.size() ? active[i] : true;
    if (!on || !std::isfinite(ratios[i]) || !(ratios[i] > 0))
      ratios[i] = 0;
    if (on) {
      ++nactive;
      sum += ratios[i];
    }
  }
  for (size_t i = 0; i < ratios.size(); ++i) {
    bool on = i < active.size() ? active[i] : true;
    if (!on)
      ratios[i] = 0;
    else if (sum > 0)
      ratios[i] /= sum;
    else
      ratios[i] = 1.0 / nactive; // nactive > 0 here
  }
}

std::vector<double> initial_ratios(const SchedParams &params) {
  std::vector<double> r;
  initial_ratios(params, r);
  return r;
}

void initial_ratios(const SchedParams &params, std::vector<double> &out) {
  const int p = std::max(0, params.num_devices);
  if (static_cast<int>(params.ratios.size()) == p)
    out = params.ratios;
  else
    out.assign(size_t(p), 1.0);
  normalise_in_place(out, {}); // every device counted
}

int fastest_chunk(const std::vector<int64_t> &sizes, const std::vector<double> &speeds,
                  double alpha) {
  double vmax = 0;
  for (double v : speeds)
    if (std::isfinite(v))
      vmax = std::max(vmax, v);
  if (!(vmax > 0))
    return -1;
  const double floor_v = vmax / (1 + std::max(0.0, alpha));
  int best = -1;
  for (size_t i = 0; i < sizes.size() && i < speeds.size(); ++i)
    if (speeds[i] >= floor_v && (best < 0 || sizes[i] > sizes[best]))
      best = static_cast<int>(i);
  return best;
}

int64_t mul_div(int64_t a, int64_t b, int64_t c) {
  if (a <= 0 || b <= 0 || c <= 0)
    return 0;
  unsigned __int128 prod =
      static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b);
  return static_cast<int64_t>(prod / static_cast<unsigned __int128>(c));
}

std::vector<int64_t> split_sizes(int64_t total, const std::vector<double> &ratios,
                                 const std::vector<bool> &active) {
  std::vector<int64_t> out;
  split_sizes(total, ratios, active, out);
  return out;
}

void split_sizes(int64_t total, const std::vector<double> &ratios,
                 const std::vector<bool> &active, std::vector<int64_t> &out) {
  const size_t p = ratios.size();
  out.assign(p, 0);
  if (total <= 0)
    return;
  // normalise()'s ratios, entry by entry (its arithmetic, without a copy).
  auto on = [&](size_t i) { return i < active.size() ? bool(active[i]) : true; };
  auto kept = [&](size_t i) {
    return on(i) && std::isfinite(ratios[i]) && ratios[i] > 0 ? ratios[i] : 0.0;
  };
  double sum = 0;
  int nactive = 0;
  for (size_t i = 0; i < p; ++i)
    if (on(i)) {
      ++nactive;
      sum += kept(i);
    }
  auto r = [&](size_t i) {
    return !on(i) ? 0.0 : sum > 0 ? kept(i) / sum : 1.0 / nactive;
  };
  // The remainder goes to the device with the largest ratio (ties: the
  // last one): the fractions it absorbs (< p iterations) cost the fastest
  // device the least time.
  int last = -1;
  for (size_t i = 0; i < p; ++i)
    if (on(i) && r(i) > 0 && (last < 0 || r(i) >= r(size_t(last))))
      last = static_cast<int>(i);
  if (last < 0)
    return; // no active device
  int64_t used = 0;
  for (size_t i = 0; i < p; ++i) {
    if (static_cast<int>(i) == last || !on(i) || !(r(i) > 0))
      continue;
    // + 1e-6 absorbs the representation error of ratios such as 0.3
    // (0.3 * 1000 = 299.99999999999998...), far below one iteration.
    long double want = static_cast<long double>(total) * r(i) + 1e-6L;
    int64_t s = static_cast<int64_t>(std::floor(want));
    s = std::clamp<int64_t>(s, 0, total - used);
    out[i] = s;
    used += s;
  }
  out[size_t(last)] = total - used; // Alg. 1 l.5 (W_curr.i = W_curr * R_i)
}

int eligible_devices(const std::vector<double> &ratios, const std::vector<bool> &active) {
  int n = 0;
  for (size_t i = 0; i < ratios.size(); ++i)
    n += (i >= active.size() || active[i]) && std::isfinite(ratios[i]) && ratios[i] > 0;
  return n;
}

std::vector<int64_t> split_sizes_each(int64_t total, const std::vector<double> &ratios,
                                      const std::vector<bool> &active) {
  return split_sizes_each(total, ratios, active, active);
}

std::vector<int64_t> split_sizes_each(int64_t total, const std::vector<double> &ratios,
                                      const std::vector<bool> &active,
                                      const std::vector<bool> &needy) {
  std::vector<int64_t> out;
  split_sizes_each(total, ratios, active, needy, out);
  return out;
}

void split_sizes_each(int64_t total, const std::vector<double> &ratios,
                      const std::vector<bool> &active, const std::vector<bool> &needy,
                      std::vector<int64_t> &out) {
  split_sizes(total, ratios, active, out);
  if (total < eligible_devices(ratios, active))
    return; // not one iteration for each: the ratios decide
  // Each needy device left with 0 takes one iteration from the largest
  // share.  That share has >= 2: the total (>= the eligible count) is
  // spread over fewer devices than are eligible.
  for (size_t i = 0; i < out.size(); ++i) {
    const bool want = i < active.size() && active[i] && i < needy.size() && needy[i];
    if (out[i] > 0 || !want || !std::isfinite(ratios[i]) || !(ratios[i] > 0))
      continue;
    auto largest = std::max_element(out.begin(), out.end());
    *largest -= 1;
    out[i] = 1;
  }
}

void AskLog::begin(int p) {
  asked_.assign(static_cast<size_t>(std::max(0, p)), false);
  got_.assign(asked_.size(), false);
}

void AskLog::asked(int device) {
  if (device >= 0 && device < static_cast<int>(asked_.size()))
    asked_[device] = true;
}

void AskLog::got(int device) {
  if (device >= 0 && device < static_cast<int>(got_.size()))
    got_[device] = true;
}

bool AskLog::gave_nothing(int device) const {
  return device >= 0 && device < static_cast<int>(asked_.size()) && asked_[device] &&
         !got_[device];
}

std::vector<double> ratios_from_speeds(const std::vector<double> &old_ratios,
                                       const std::vector<double> &speeds,
                                       const std::vector<bool> &active) {
  const size_t p = old_ratios.size();
  std::vector<double> old = normalise(old_ratios, active);
  double vsum = 0, unknown_mass = 0;
  for (size_t i = 0; i < p; ++i) {
    if (!active[i])
      continue;
    if (i < speeds.size() && speeds[i] > 0 && std::isfinite(speeds[i]))
      vsum += speeds[i];
    else
      unknown_mass += old[i];
  }
  if (!(vsum > 0))
    return old; // nobody measured: keep the old ratios
  std::vector<double> r(p, 0.0);
  for (size_t i = 0; i < p; ++i) {
    if (!active[i])
      continue;
    if (i < speeds.size() && speeds[i] > 0 && std::isfinite(speeds[i]))
      r[i] = (1.0 - unknown_mass) * speeds[i] / vsum; // Alg. 1 l.10-11
    else
      r[i] = old[i]; // no sample: keeps its previous share
  }
  return normalise(std::move(r), active);
}

// ---------------------------------------------------------------------------
// SyncChunkScheduler

void SyncChunkScheduler::begin(const SchedParams &params) {
  params_ = params;
  p_ = std::max(0, params.num_devices);
  W_ = std::max<int64_t>(0, params.iterations);
  ++executions_;
  // The previous execution's chunks become prev_rounds_ (fdets' re-execution
  // rule); the ones before them are spares for start_round.
  for (RoundRecord &r : prev_rounds_)
    spare_rounds_.push_back(std::move(r));
  prev_rounds_.clear();
  std::swap(prev_rounds_, rounds_);
  active_.assign(p_, true);
  initial_ratios(params_, initial_);
  const std::vector<double> &init = initial_;
  if (!have_ratios_ || static_cast<int>(ratios_.size()) != p_) {
    served_ever_.assign(size_t(p_), false);
    ratios_ = init;
    speeds_.assign(p_, 0.0);
    prev_rounds_.clear();
    have_ratios_ = true;
  } else {
    // A device dropped in the previous execution has ratio 0; give it its
    // initial share back so that it can be measured again.
    for (int i = 0; i < p_; ++i)
      if (!(ratios_[i] > 0) && init[i] > 0)
        ratios_[i] = init[i];
    normalise_in_place(ratios_, active_);
  }
  // Cleared in place: re-made, each device's deque allocated its map and a
  // node at every execution (lud's 511 on the CPU alone under static).
  pending_.resize(size_t(p_));
  outstanding_.resize(size_t(p_));
  for (std::deque<Range> &q : pending_)
    q.clear();
  for (std::vector<Range> &o : outstanding_)
    o.clear();
  round_iters_.assign(p_, 0);
  round_secs_.assign(p_, 0.0);
  assigned_ = 0;
  finished_ = false;
  int64_t first = on_begin();
  if (W_ == 0 || p_ == 0) {
    finished_ = true;
    return;
  }
  start_round(first);
}

void SyncChunkScheduler::start_round(int64_t size) {
  const int64_t remaining = W_ - assigned_;
  if (remaining <= 0 ||
      std::none_of(active_.begin(), active_.end(), [](bool b) { return b; })) {
    finished_ = true;
    return;
  }
  const bool first = rounds_.empty();
  if (first) { // every device not yet run gets an iteration of it (issue 15)
    unserved(needy_);
    size = std::max<int64_t>(size, eligible_devices(ratios_, needy_));
  }
  size = std::clamp<int64_t>(size, 1, remaining);
  RoundRecord rec;
  if (!spare_rounds_.empty()) { // (its vectors' storage)
    rec = std::move(spare_rounds_.back());
    spare_rounds_.pop_back();
  }
  rec.lb = assigned_;
  rec.size = size;
  rec.ratios = ratios_;
  if (first)
    split_sizes_each(size, ratios_, active_, needy_, rec.shares);
  else
    split_sizes(size, ratios_, active_, rec.shares); // Alg. 1 l.5
  rec.seconds = rec.coop_speed = 0;
  int64_t lb = assigned_;
  for (int d = 0; d < p_; ++d) {
    if (rec.shares[d] > 0)
      pending_[d].push_back({lb, lb + rec.shares[d]});
    lb += rec.shares[d];
  }
  assigned_ += size;
  rounds_.push_back(std::move(rec));
}

std::vector<bool> SyncChunkScheduler::unserved() const {
  std::vector<bool> out;
  unserved(out);
  return out;
}

void SyncChunkScheduler::unserved(std::vector<bool> &out) const {
  out.assign(size_t(p_), false);
  for (int d = 0; d < p_; ++d)
    out[size_t(d)] = active_[size_t(d)] &&
                     !(size_t(d) < served_ever_.size() && served_ever_[size_t(d)]);
}

bool SyncChunkScheduler::idle(int device) const {
  if (device < 0 || device >= p_ || rounds_.empty() || rounds_.size() > 1 ||
      rounds_[0].shares[device] > 0)
    return false;
  // No share of the first chunk: nothing later either when its ratio is 0
  // (no sample keeps it 0) or when the first chunk is all of W.
  return !(ratios_[device] > 0) || rounds_[0].size == W_;
}

bool SyncChunkScheduler::round_open() const {
  for (int d = 0; d < p_; ++d)
    if (!pending_[d].empty() || !outstanding_[d].empty())
      return true;
  return false;
}

Decision SyncChunkScheduler::next(int device) {
  if (device < 0 || device >= p_ || !active_[device])
    return Decision::done();
  if (!pending_[device].empty()) {
    Range r = pending_[device].front();
    pending_[device].pop_front();
    outstanding_[device].push_back(r);
    if (served_ever_.size() != size_t(p_))
      served_ever_.assign(size_t(p_), false);
    served_ever_[size_t(device)] = true;
    return Decision::run(r.lb, r.ub);
  }
  maybe_finish_round();
  if (!pending_[device].empty())
    return next(device);
  if (round_open())
    return Decision::wait(); // others have not reported this chunk yet
  return Decision::done();
}

void SyncChunkScheduler::complete(int device, Range range, double seconds) {
  if (device < 0 || device >= p_)
    return;
  auto &out = outstanding_[device];
  auto it = std::find(out.begin(), out.end(), range);
  if (it == out.end())
    return; // not a share of the open chunk (e.g. a re-run of a drop)
  out.erase(it);
  round_iters_[device] += range.size();          // W_curr.i
  round_secs_[device] += std::max(0.0, seconds); // T_curr.i
  maybe_finish_round();
}

void SyncChunkScheduler::drop(int device) {
  if (device < 0 || device >= p_ || !active_[device])
    return;
  active_[device] = false;
  outstanding_[device].clear(); // the runtime re-runs its unfinished chunk
  round_iters_[device] = 0;
  round_secs_[device] = 0;
  ratios_[device] = 0;
  ratios_ = normalise(ratios_, active_);
  std::deque<Range> orphan = std::move(pending_[device]);
  pending_[device].clear();
  if (std::none_of(active_.begin(), active_.end(), [](bool b) { return b; })) {
    finished_ = true;
    return;
  }
  // Redistribute its untaken share among the others by the current ratios.
  for (const Range &r : orphan) {
    std::vector<int64_t> s = split_sizes(r.size(), ratios_, active_);
    int64_t lb = r.lb;
    for (int d = 0; d < p_; ++d) {
      if (s[d] > 0)
        pending_[d].push_back({lb, lb + s[d]});
      lb += s[d];
    }
  }
  maybe_finish_round();
}

void SyncChunkScheduler::maybe_finish_round() {
  while (!finished_ && !rounds_.empty() && !round_open()) {
    RoundRecord &rec = rounds_.back();
    double T = 0;
    for (int d = 0; d < p_; ++d) {
      if (!active_[d] || round_iters_[d] <= 0)
        continue; // no sample: keeps its previous speed
      double t = std::max(round_secs_[d], 1e-12);
      speeds_[d] = static_cast<double>(round_iters_[d]) / t; // Alg. 1 l.8
      T = std::max(T, round_secs_[d]);                       // Alg. 1 l.13
    }
    rec.seconds = T;
    rec.coop_speed = T > 0 ? static_cast<double>(rec.size) / T : 0; // l.14
    if (update_ratios_each_round())
      ratios_ = ratios_from_speeds(ratios_, speeds_, active_); // l.10-11
    std::fill(round_iters_.begin(), round_iters_.end(), 0);
    std::fill(round_secs_.begin(), round_secs_.end(), 0.0);
    if (assigned_ >= W_) {
      finished_ = true;
      on_execution_done();
      break;
    }
    // (rec is read before start_round, whose push_back may move it.)
    start_round(on_round_done(rec));
  }
}

} // namespace hce::sched
