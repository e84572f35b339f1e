#include "runtime.hpp"

#include "clock.hpp"
#include "cpu_device.hpp"
#include "data_env.hpp"
#include "device_selection.hpp"
#include "log.hpp"
#include "omp/omp_device.hpp"
#include "profile/profile_store.hpp"
#include "sim_device.hpp"
#include "tasks/device_claims.hpp"
#include "thread_name.hpp"
#include "trace.hpp"
#include "variant_scope.hpp"
#if HCE_WITH_CUDA
#include "cuda/cuda_device.hpp"
#endif

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <map>

namespace hce {
namespace {

Runtime *instance = nullptr;
std::mutex instance_mutex;

std::string env_or(const char *name, const char *fallback) {
  const char *v = std::getenv(name);
  return v && *v ? v : fallback;
}

// The CPU's team while it runs alone: every thread of the user's team size,
// less HCE_CORES_LEFT_FREE beside an accelerator.  A team of one thread per
// core waits at each fork for any worker that a busy thread elsewhere on the
// machine has switched out (H100, calls V16-V18).  The same count where the
// team is made as CUDA starts (a GPU named, not yet found) and where the CPU
// device is made (an accelerator found), so that where a GPU is the team is
// not resized between them.
int alone_team(bool accelerator, const Settings &settings) {
  const int all = omp_get_max_threads();
  return std::max(1, all - (accelerator ? settings.cores_left_free.value_or(0) : 0));
}

} // namespace

#if HCE_WITH_CUDA
namespace {

// The GPUs that `specs` name, each started (CudaDevice::create) or why not.
class StartedGpus {
public:
  void add(int ordinal, std::unique_ptr<CudaDevice> dev, std::string why) {
    gpus_[ordinal] = {std::move(dev), std::move(why)};
  }
  bool has(int ordinal) const { return gpus_.count(ordinal) != 0; }
  std::unique_ptr<CudaDevice> take(int ordinal, std::string &why) {
    auto it = gpus_.find(ordinal);
    if (it == gpus_.end()) {
      why = "not started";
      return nullptr;
    }
    why = it->second.second;
    return std::move(it->second.first);
  }

private:
  std::map<int, std::pair<std::unique_ptr<CudaDevice>, std::string>> gpus_;
};

// CUDA's start -- the driver (cudaGetDeviceCount), then each named GPU's
// context and streams: ~0.2 s on the H200 machine, before any region -- on
// a helper thread, while this thread creates the team its CPU chunks will
// fork (create_callers_team_asleep), when the CPU takes part.  That
// creation (~1 ms; 2.6 ms on the H100 of call LB) was otherwise the CPU's
// prologue in its first execution: warm lud's auto, which runs the CPU
// alone, paid it where it now overlaps CUDA's start (hce-sim, profile PD:
// warm lud 13.7 -> 12.8 ms, the CPU alone's 12.7, which has no start to
// hide it in and still pays it), and cold mcpi's GPU, done with the loop,
// waited for it (call LB: 4.0 ms against the GPU alone's 1.3).
// In a program's first run (no profile names the CPU) eft's first
// execution learns from when the CPU starts: a CPU asking before the GPU's
// first chunk changed what it learnt (hce-sim, cold nbody 1.40x as long on
// the 11-30 and 12-01 H200 profiles, cold gemm and matadd up to 1.2-2.0x on
// older ones).  So there the time the creation took is the CPU's first ask's
// grace (set_first_ask_grace): the first CPU prologue waits for the
// accelerators' first ask at most that long, as long as it used to spend
// making the team, and not at all once they have asked or the loop is
// done.  The helper calls no OpenMP function: a thread that does becomes
// one of libomp's root threads (cpu_device.hpp, on_controller_start).
StartedGpus start_gpus(const std::vector<DeviceSpec> &specs, bool cpu_listed,
                       const Settings &settings) {
  const bool any_gpu = std::any_of(specs.begin(), specs.end(),
                                   [](const DeviceSpec &s) { return s.kind == "cuda"; });
  if (!any_gpu)
    return {};
  auto start = [&specs, &settings] {
    StartedGpus out;
    std::string why;
    const int gpus = cuda_device_count(why);
    for (const DeviceSpec &spec : specs) {
      if (spec.kind != "cuda")
        continue;
      const int first = spec.ordinal < 0 ? 0 : spec.ordinal;
      const int last = spec.ordinal < 0 ? gpus - 1 : std::min(spec.ordinal, gpus - 1);
      for (int n = first; n <= last; ++n)
        if (!out.has(n)) {
          std::string dev_why;
          auto dev = CudaDevice::create(n, dev_why, settings);
          out.add(n, std::move(dev), std::move(dev_why));
        }
    }
    return out;
  };
  if (!cpu_listed)
    return start();
  auto started = std::async(std::launch::async, start);
  const double t0 = now_seconds();
  const int threads = alone_team(true, settings);
  if (create_callers_team_asleep(threads)) {
    const double made = now_seconds();
    // (The CPU's profile key, as Device::set_hardware makes it.)
    if (!profile::global().mentions("cpu@" + cpu_hardware(threads)))
      set_first_ask_grace(made - t0);
    if (trace_enabled())
      trace_event("cpu", "team", "the CPU's team, created as CUDA starts", t0, made);
  }
  return started.get();
}

} // namespace
#endif

Runtime &Runtime::get() {
  std::lock_guard<std::mutex> lock(instance_mutex);
  if (!instance) {
    instance = new Runtime();
    std::atexit([] { Runtime::shutdown(); });
  }
  return *instance;
}

void Runtime::shutdown() {
  Runtime *rt = nullptr;
  {
    std::lock_guard<std::mutex> lock(instance_mutex);
    std::swap(rt, instance);
  }
  delete rt;
}

void Runtime::with_existing(const std::function<void(Runtime &)> &f) {
  std::lock_guard<std::mutex> lock(instance_mutex);
  if (instance)
    f(*instance);
}

Runtime::Runtime() {
  // The settings first: the devices take theirs from them (a bad value
  // leaves the defaults, and fails every region).
  std::string ignored; // kept in settings_error_
  reload_settings(ignored);
  profile::start_loading(); // while the devices start (CUDA's context)
  select_devices();
  data_ = std::make_unique<DataEnv>(devices_, settings_.huge_pages,
                                    settings_.prefault_threads.value_or(1) != 0);
  for (auto &dev : devices_) {
    Device *d = dev.get();
    auto start = [d](const std::string &name) {
      return [d, name] {
        name_this_thread(name);
        d->on_controller_start();
      };
    };
    controllers_.push_back(std::make_unique<Controller>(start("hce " + d->name())));
    // Accelerators get two more threads for their three-stream pipeline,
    // created once so that per-thread runtime state (OpenMP, CUDA) is set
    // up once.
    std::array<std::unique_ptr<Controller>, 2> streams;
    if (!d->uses_host_memory())
      for (size_t i = 0; i < streams.size(); ++i)
        streams[i] = std::make_unique<Controller>(
            start("hce " + d->name() + " s" + std::to_string(i + 1)));
    stream_threads_.push_back(std::move(streams));
  }
}

Runtime::~Runtime() {
  report_stats_from_env(named_stats());
  profile::shutdown_global(); // HCE_PROFILE: merge and write the profile
  trace_flush();
  stream_threads_.clear();
  controllers_.clear();
  data_.reset();
  devices_.clear();
}

bool Runtime::reload_settings(std::string &why) {
  settings_error_.clear();
  ++settings_generation_;
  if (Settings::from_env(settings_, why))
    return true;
  settings_error_ = why;
  return false;
}

void Runtime::select_devices() {
  std::string why;
  std::string text = env_or("HCE_DEVICES", "");
  std::vector<DeviceSpec> specs;
  if (text.empty()) {
    specs.push_back({"cpu", -1});
    specs.push_back({"cuda", -1}); // every GPU found, none is fine
  } else if (auto parsed = parse_device_list(text, why)) {
    specs = *parsed;
  } else {
    init_error_ = "HCE_DEVICES: " + why;
    specs.push_back({"cpu", -1});
  }

  // Accelerators first, so the CPU knows how many cores their controller
  // threads need.
  std::vector<std::unique_ptr<Device>> accel;
#if HCE_WITH_CUDA
  std::vector<CudaDevice *> cuda;
#endif
  const bool cpu_listed = std::any_of(
      specs.begin(), specs.end(), [](const DeviceSpec &s) { return s.kind == "cpu"; });
#if HCE_WITH_CUDA
  StartedGpus started = start_gpus(specs, cpu_listed, settings_);
#endif
  const std::string sim_text = env_or("HCE_SIM", "");
  for (const DeviceSpec &spec : specs) {
    if (spec.kind == "sim") {
      auto params = parse_sim_params(sim_text, spec.ordinal, why);
      if (!params) {
        init_error_ = why;
        continue;
      }
      accel.push_back(std::make_unique<SimDevice>(spec.ordinal, *params));
    } else if (spec.kind == "cuda") {
#if HCE_WITH_CUDA
      // cuda:N for GPU N, "cuda" for every GPU; no GPU (or a broken driver)
      // means one notice, never an error.
      std::string cuda_why;
      bool quiet = false;
      const int gpus = cuda_device_count(cuda_why, &quiet);
      if (gpus == 0) {
        if (!text.empty() || !quiet)
          notice_once("no-cuda", "no cuda devices (" + cuda_why + "); '" + spec.name() +
                                     "' is not used");
        continue;
      }
      if (spec.ordinal >= gpus) {
        notice_once("no-" + spec.name(),
                    "'" + spec.name() + "' does not exist (" + std::to_string(gpus) +
                        " CUDA device" + (gpus == 1 ? "" : "s") + " found); not used");
        continue;
      }
      const int first = spec.ordinal < 0 ? 0 : spec.ordinal;
      const int last = spec.ordinal < 0 ? gpus - 1 : spec.ordinal;
      for (int n = first; n <= last; ++n) {
        bool have = false;
        for (const auto &a : accel)
          have = have || (a->kind() == DeviceKind::Cuda && a->ordinal() == n);
        if (have)
          continue;
        std::string dev_why;
        if (auto dev = started.take(n, dev_why)) {
          cuda.push_back(dev.get());
          accel.push_back(std::move(dev));
        } else {
          notice_once("broken-cuda:" + std::to_string(n), "cuda:" + std::to_string(n) +
                                                              " cannot be used (" +
                                                              dev_why + "); not used");
        }
      }
#else
      if (!text.empty())
        notice_once("no-cuda", "no cuda devices in this build or machine; '" +
                                   spec.name() + "' is not used");
#endif
    } else if (spec.kind == "omp") {
      // omp:N for OpenMP device N, "omp" for every one.  libomptarget is
      // loaded only in programs linked with offload: without it (or without
      // an offload device) one notice, never an error.  Not part of the
      // default set: on a GPU machine omp:N and cuda:N may be the same GPU.
      std::string omp_why;
      const int n = omp_device_count(omp_why);
      if (n == 0) {
        notice_once("no-omp", "no omp devices (" + omp_why + "); '" + spec.name() +
                                  "' is not used");
        continue;
      }
      if (spec.ordinal >= n) {
        notice_once("no-" + spec.name(), "'" + spec.name() + "' does not exist (" +
                                             std::to_string(n) +
                                             " OpenMP offload device" +
                                             (n == 1 ? "" : "s") + " found); not used");
        continue;
      }
      const int first = spec.ordinal < 0 ? 0 : spec.ordinal;
      const int last = spec.ordinal < 0 ? n - 1 : spec.ordinal;
      for (int k = first; k <= last; ++k) {
        bool have = false;
        for (const auto &a : accel)
          have = have || (a->kind() == DeviceKind::Omp && a->ordinal() == k);
        if (have)
          continue;
        std::string dev_why;
        if (auto dev = OmpDevice::create(k, dev_why, settings_))
          accel.push_back(std::move(dev));
        else
          notice_once("broken-omp:" + std::to_string(k), "omp:" + std::to_string(k) +
                                                             " cannot be used (" +
                                                             dev_why + "); not used");
      }
    }
  }
#if HCE_WITH_CUDA
  CudaDevice::enable_peer_access(cuda);
#endif
  bool want_cpu = cpu_listed;
  if (!want_cpu && accel.empty()) {
    notice("none of the devices in HCE_DEVICES='" + text +
           "' is available; running on the CPU");
    want_cpu = true;
  }
  // The CPU device always exists (it is where failed chunks are re-run);
  // `cpu_selected_` says whether it takes part in co-execution.
  const int all_threads = alone_team(!accel.empty(), settings_);
  const int threads =
      std::max(1, std::min(all_threads, omp_get_max_threads() -
                                            settings_.cores_per_accelerator.value_or(1) *
                                                int(accel.size())));
  devices_.push_back(std::make_unique<CpuDevice>(threads, all_threads));
  cpu_selected_ = want_cpu;
  for (auto &a : accel)
    devices_.push_back(std::move(a));
}

SiteState &Runtime::site(const hce_region &region) {
  // A slot filled by an earlier runtime (before hce_finalize) is stale.
  if (region.site && *region.site) {
    auto *state = static_cast<SiteState *>(*region.site);
    for (const auto &s : sites_)
      if (s.get() == state)
        return *state;
  }
  std::string name = region.name ? region.name : "region";
  SiteState *state = nullptr;
  if (!region.site) {
    auto it = sites_by_name_.find(name);
    if (it != sites_by_name_.end())
      state = it->second;
  }
  if (!state) {
    sites_.push_back(std::make_unique<SiteState>());
    state = sites_.back().get();
    state->name = name;
    if (!region.site)
      sites_by_name_[name] = state;
  }
  if (region.site)
    *region.site = state;
  return *state;
}

namespace {

// A copy of the site's statistics, read with no execution of it running.
RegionStats quiet_copy(SiteState &s) {
  std::optional<tasks::DeviceClaim> hold;
  if (!inside_an_execution()) {
    hold.emplace(std::span<const int>{}, &s);
    s.refresh_choice(); // (its scheduler holds still only under the claim)
  }
  return s.stats;
}

} // namespace

std::vector<NamedStats> Runtime::named_stats() {
  std::vector<SiteState *> all;
  {
    std::lock_guard<std::mutex> lock(exec_mutex_); // the table (sites())
    for (const auto &s : sites_)
      all.push_back(s.get());
  }
  std::vector<NamedStats> named;
  for (SiteState *s : all)
    named.push_back({s->name, quiet_copy(*s)});
  return named;
}

std::optional<RegionStats> Runtime::site_stats(const void *site) {
  SiteState *found = nullptr;
  {
    std::lock_guard<std::mutex> lock(exec_mutex_);
    for (const auto &s : sites_)
      if (s.get() == site)
        found = s.get();
  }
  if (!found)
    return std::nullopt;
  return quiet_copy(*found);
}

std::vector<const SiteState *> Runtime::sites() const {
  std::lock_guard<std::mutex> lock(exec_mutex_);
  std::vector<const SiteState *> out;
  for (const auto &s : sites_)
    out.push_back(s.get());
  return out;
}

} // namespace hce
