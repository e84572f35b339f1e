// hguided: the heterogeneous guided scheduler of EngineCL.
//
// Nozal, Bosque, Beivide, "EngineCL: usability and performance in
// heterogeneous computing" and the HGuided optimisation paper
// (enginecl-hguided-coexecution.txt), §II-B.  Every idle device takes the
// next packet of
//
//     packet_size_i = max(m_i, floor( G_r * P_i / (k_i * n * sum_j P_j) ))
//
// iterations (§II-B formula; G_r = pending iterations, n = devices, P_i the
// computing power of device i, m_i its minimum packet).  Packets shrink as the
// work runs out, so all devices finish nearly together.
//
// Constants (docs/schedulers.md):
//  * k_i = 2 for every device -- "if a single k constant should be selected
//    for every device, k = 2 is the best option" (§V);
//  * m_i: "the more powerful the device, the greater the minimum package
//    size" and "the CPU ... should maintain m = 1": with c the initial chunk
//    (params.initial_chunk, default W/128), m = max(1, c/16) for the host and
//    max(1, c/4) for accelerators;
//  * P_i: EngineCL takes computing powers as parameters; we start from the
//    partition ratios (params.ratios, equal if none) and replace them by the
//    measured speed of each device (iterations/second over all its packets in
//    this execution, or the previous execution's before its first packet
//    here).  A device never measured keeps its ratio's share;
//  * probe: until a device has been measured its packet is at most c, so an
//    unknown (possibly very slow) device cannot take W/(2n) at the start;
//  * late devices (issue 15): a device that asks after the others took all
//    of W is reported by gave_nothing() (AskLog), never waited for.
#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

namespace hce::sched {
namespace {

constexpr double kHGuidedK = 2.0;

class HGuidedScheduler final : public Scheduler {
public:
  std::string_view name() const override { return "hguided"; }

  void begin(const SchedParams &params) override {
    params_ = params;
    p_ = std::max(0, params.num_devices);
    W_ = std::max<int64_t>(0, params.iterations);
    c_ = default_initial_chunk(params);
    if (static_cast<int>(carried_speed_.size()) != p_)
      carried_speed_.assign(p_, 0.0);
    // Speeds of the previous execution become this one's starting powers.
    for (int i = 0; i < static_cast<int>(iters_.size()) && i < p_; ++i)
      if (iters_[i] > 0)
        carried_speed_[i] = static_cast<double>(iters_[i]) / std::max(secs_[i], 1e-12);
    iters_.assign(p_, 0);
    secs_.assign(p_, 0.0);
    active_.assign(p_, true);
    inflight_.assign(p_, {});
    assigned_ = 0;
    asks_.begin(p_);
  }

  Decision next(int device) override {
    asks_.asked(device);
    if (device < 0 || device >= p_ || !active_[device] || assigned_ >= W_)
      return Decision::done();
    const int64_t g_r = W_ - assigned_; // G_r: pending iterations
    std::vector<double> P = powers();   // P_i / sum_j P_j
    int n = 0;
    for (bool a : active_)
      n += a ? 1 : 0;
    // §II-B: floor(G_r * P_i / (k * n * sum_j P_j))
    long double want =
        static_cast<long double>(g_r) * P[device] / (kHGuidedK * static_cast<double>(n));
    int64_t packet = static_cast<int64_t>(std::floor(want));
    packet = std::max(packet, min_packet(device)); // lower bound m_i
    if (!measured(device))
      packet = std::min(packet, c_); // probe packet
    packet = std::clamp<int64_t>(packet, 1, g_r);
    asks_.got(device);
    const int64_t lb = assigned_;
    assigned_ += packet; // G_r is updated with every package launch
    inflight_[device].push_back({lb, lb + packet});
    return Decision::run(lb, lb + packet);
  }

  void complete(int device, Range range, double seconds) override {
    if (device < 0 || device >= p_)
      return;
    auto &q = inflight_[device];
    auto it = std::find(q.begin(), q.end(), range);
    if (it == q.end())
      return;
    q.erase(it);
    iters_[device] += range.size();
    secs_[device] += std::max(seconds, 0.0);
  }

  void drop(int device) override {
    if (device < 0 || device >= p_)
      return;
    active_[device] = false;
    inflight_[device].clear();
  }

  std::vector<double> current_ratios() const override { return powers(); }
  bool gave_nothing(int device) const override { return asks_.gave_nothing(device); }

  // For tests: the minimum packet of a device.
  int64_t min_packet(int device) const {
    bool host =
        device < static_cast<int>(params_.is_host.size()) && params_.is_host[device];
    return std::max<int64_t>(1, host ? c_ / 16 : c_ / 4);
  }

private:
  bool measured(int i) const { return iters_[i] > 0 || carried_speed_[i] > 0; }
  std::vector<double> powers() const {
    std::vector<double> v(p_, 0.0);
    for (int i = 0; i < p_; ++i)
      v[i] = iters_[i] > 0 ? static_cast<double>(iters_[i]) / std::max(secs_[i], 1e-12)
                           : carried_speed_[i];
    return ratios_from_speeds(initial_ratios(params_), v, active_);
  }

  SchedParams params_;
  int p_ = 0;
  int64_t W_ = 0, c_ = 1, assigned_ = 0;
  std::vector<int64_t> iters_;
  std::vector<double> secs_, carried_speed_;
  std::vector<bool> active_;
  std::vector<std::deque<Range>> inflight_;
  AskLog asks_; // gave_nothing()
};

} // namespace

std::unique_ptr<Scheduler> make_hguided() { return std::make_unique<HGuidedScheduler>(); }

} // namespace hce::sched
