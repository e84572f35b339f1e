#include "profile/profile_hook.hpp"

#include "profile/profile_sched.hpp"
#include "sim_device.hpp"

#include <algorithm>
#include <cmath>

namespace hce::profile {
namespace {

std::string region_key(const hce_region &r) {
  return r.name && *r.name ? r.name : "region";
}

// The store's pseudo-devices of the mode walls: "=co:cpu+cuda:0" (one
// execution co-executed on that device set) and "=alone:cuda:0".  No device
// name starts with '='.
std::string co_key(const Runtime &rt, const std::vector<int> &devs) {
  std::string key = "=co:";
  for (size_t i = 0; i < devs.size(); ++i)
    key += (i ? "+" : "") + device_key(*rt.devices()[size_t(devs[i])]);
  return key;
}
std::string alone_key(const Runtime &rt, int dev) {
  return "=alone:" + device_key(*rt.devices()[size_t(dev)]);
}
// The cost model eft held for `device` at the end of an execution on the
// device set of `co` (co_key()): "=model:cpu+cuda:0/cpu".  Samples of a
// device measured alone (a `cpu` run with the whole team, a GPU run whose
// first execution placed all the data) are not what it costs beside the
// others.
std::string model_key(const std::string &co, const std::string &device) {
  return "=model:" + co.substr(4) + "/" + device;
}

} // namespace

const std::string &device_key(const Device &dev) { return dev.profile_key(); }

int64_t iterations_fitting(const hce_region &r, double capacity) {
  if (!(capacity > 0))
    return 0;
  // A window is one interval per array: w iterations of a map with
  // footprint [scale*k + offset + b*stride, +len) span
  // scale*(w-1) + (blocks-1)*stride + len elements.
  double fixed = 0, per_iter = 0;
  for (int m = 0; m < r.num_maps; ++m) {
    const hce_map &map = r.maps[m];
    const double e = double(map.elem_size);
    const double scale = std::fabs(double(map.scale));
    const double span =
        double(std::max<int64_t>(0, map.blocks - 1)) * std::fabs(double(map.stride)) +
        double(map.len);
    fixed += e * (span - scale);
    per_iter += e * scale;
  }
  if (per_iter <= 0)
    return 0;
  double w = std::floor((capacity - fixed) / per_iter);
  if (w > 9e18)
    return 0;
  return std::max<int64_t>(1, int64_t(w));
}

double device_capacity(const Device &dev, const Settings &settings) {
  if (auto *sim = dynamic_cast<const SimDevice *>(&dev))
    return sim->params().capacity;
  if (dev.kind() == DeviceKind::Cuda)
    return double(settings.cuda_mem_limit.value_or(0));
  return 0;
}

void attach(Scheduler &s, const hce_region &r, const Runtime &rt,
            const std::vector<int> &devs) {
  ProfileAware *aware = s.profile_aware();
  if (!aware)
    return;
  ProfileContext ctx;
  ctx.region = region_key(r);
  for (int d : devs) {
    const Device &dev = *rt.devices()[size_t(d)];
    ctx.devices.push_back(device_key(dev));
    ctx.max_iterations.push_back(
        dev.uses_host_memory()
            ? 0
            : iterations_fitting(r, device_capacity(dev, rt.settings())));
  }
  aware->set_profile_context(ctx);
}

void seed(Scheduler &s, const hce_region &r, const Runtime &rt,
          const std::vector<int> &devs) {
  Seedable *seedable = s.seedable();
  if (!seedable || !recording() || r.iterations < 4)
    return;
  const Store &store = global();
  const std::string region = region_key(r);
  const int64_t w1 = r.iterations, w2 = r.iterations / 4;
  // Every key built once (a warm site's first execution reads ~9).
  const std::string co = devs.size() >= 2 ? co_key(rt, devs) : "";
  for (size_t i = 0; i < devs.size(); ++i) {
    const std::string &dev = device_key(*rt.devices()[size_t(devs[i])]);
    // The model learnt beside these devices first, the device's own
    // samples otherwise (a device set never co-executed before).
    std::string key = co.empty() ? dev : model_key(co, dev);
    auto e1 = store.estimate(region, key, w1);
    if (!e1 && !co.empty()) {
      key = dev;
      e1 = store.estimate(region, key, w1);
    }
    auto e2 = store.estimate(region, key, w2);
    if (!e1 || !e2 || e1->total_s() <= 0)
      continue;
    double c = (e1->total_s() - e2->total_s()) / double(w1 - w2);
    double o = e1->total_s() - c * double(w1);
    if (c <= 0 || o < 0) { // noise: the line through the origin
      c = e1->total_s() / double(w1);
      o = 0;
    }
    seedable->seed(int(i), o, c);
  }
  if (devs.size() < 2)
    return;
  if (auto mode = store.estimate(region, co, w1))
    seedable->seed_mode(-1, mode->exec_s, mode->measurements);
  for (size_t i = 0; i < devs.size(); ++i)
    if (auto alone = store.estimate(region, alone_key(rt, devs[i]), w1))
      seedable->seed_mode(int(i), alone->exec_s, alone->measurements);
}

void record_mode(const Scheduler &s, const hce_region &r, const Runtime &rt,
                 const std::vector<int> &devs, size_t failures, int64_t nth,
                 double wall_s) {
  if (failures > 0 || !recording())
    return;
  const bool sampled = recorded_execution(nth);
  const bool first = nth == 0;
  if (devs.size() == 1) {
    if (sampled && wall_s > 0 && r.iterations > 0) {
      Sample alone;
      alone.iterations = r.iterations;
      alone.exec_s = wall_s;
      global().record(region_key(r), alone_key(rt, devs[0]), alone, first);
    }
    return;
  }
  const Seedable *seedable = s.seedable();
  if (!seedable || devs.size() < 2)
    return;
  // A mode measured rarely (an exploration) is kept whatever the execution:
  // sampled like the others, it was lost 15 times in 16, and each run paid
  // for it again.
  if (!sampled && !seedable->measured_rarely())
    return;
  // The models, as two points of their line (W and W/4), so that seed()
  // reads back o and c; the store averages them over the executions.
  const int64_t w1 = std::max<int64_t>(4, r.iterations), w2 = w1 / 4;
  const std::string region = region_key(r), co = co_key(rt, devs);
  for (size_t i = 0; sampled && i < devs.size(); ++i) {
    double o = 0, c = 0;
    if (!seedable->learnt_model(int(i), o, c))
      continue;
    const std::string key = model_key(co, device_key(*rt.devices()[size_t(devs[i])]));
    for (int64_t w : {w1, w2}) {
      Sample m;
      m.iterations = w;
      m.exec_s = o + c * double(w);
      global().record(region, key, m, first);
    }
  }
  int device = -1;
  Sample sample;
  if (!seedable->measured_mode(device, sample.exec_s) || device >= int(devs.size()))
    return;
  sample.iterations = r.iterations;
  global().record(region, device < 0 ? co : alone_key(rt, devs[size_t(device)]), sample,
                  first);
}

void record_execution(const hce_region &r, const Runtime &rt,
                      const std::vector<ChunkWorker> &workers,
                      const std::vector<TransferCounts> &bytes, size_t failures,
                      int64_t nth) {
  if (failures > 0 || !recorded_execution(nth))
    return;
  const bool first = nth == 0;
  Store &store = global();
  const std::string region = region_key(r);
  // An accelerator left out of this later execution keeps the sample of its
  // first one, if that is all it ran (Store::keep_held_of_left_out).  Not a
  // host's: its first execution carries the team's creation (lud's first
  // CPU row, 10^4 times its steady cost on the H100).  Before the others'
  // samples, whose recording drops what is held.
  for (size_t i = 0; !first && i < workers.size(); ++i)
    if (const Device &dev = *rt.devices()[size_t(workers[i].device)];
        workers[i].iterations <= 0 && !dev.uses_host_memory())
      store.keep_held_of_left_out(region, device_key(dev));
  for (size_t i = 0; i < workers.size(); ++i) {
    const ChunkWorker &w = workers[i];
    if (w.iterations <= 0)
      continue;
    Sample s;
    s.iterations = w.iterations;
    s.bytes =
        i < bytes.size() ? double(bytes[i].to_device) + double(bytes[i].from_device) : 0;
    s.exec_s = w.compute_busy; // the chunk loop times every stage
    s.xfer_s = std::max(0.0, w.busy - s.exec_s);
    store.record(region, device_key(*rt.devices()[size_t(w.device)]), s, first);
  }
}

} // namespace hce::profile
