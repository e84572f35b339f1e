// The process-wide runtime: the selected devices with their controller
// threads, what each source region has learnt so far, and the statistics.
// Created on first use, torn down at exit.
#pragma once

#include "controller.hpp"
#include "device.hpp"
#include "page_prefaulter.hpp"
#include "sched/scheduler.hpp"
#include "settings.hpp"
#include "site_plan.hpp"
#include "slow_devices.hpp"
#include "stats.hpp"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace hce {

class DataEnv;
struct ExecutionRun; // region_exec.cpp
struct ExecutionRunDeleter {
  void operator()(ExecutionRun *run) const;
};

// What the runtime keeps for one source region between executions.
struct SiteState {
  std::string name;
  // What does not change between executions (site_plan.hpp).
  SitePlan plan;
  std::string schedule;     // scheduler name in use
  std::vector<int> devices; // the devices it was made for (Runtime::devices)
  std::unique_ptr<Scheduler> scheduler;
  RegionStats stats;
  // HCE_MIN_SHARE: the devices' measured rates, and those left out.
  SlowDevices slow;
  // The walls of its executions in a data region that lent copy threads
  // beside the CPU's team (region_exec.cpp lends_in_data_region).
  double lent_wall = 0;
  // The storage of an execution's run (the devices' workers and work, the
  // chunk loop's result), kept between executions so that one allocates
  // none of it anew (region_exec.cpp).  Used only by the execution that
  // claims the site.
  std::unique_ptr<ExecutionRun, ExecutionRunDeleter> run_storage;
  // stats.choice, the scheduler's account of its last execution, is
  // formatted when it is read (named_stats(), the trace) and at executions
  // 1, 2, 4, 8 ... (fold_stats, for the signal path): formatting it every
  // execution cost a resident region about a microsecond.
  void refresh_choice() {
    if (scheduler)
      stats.choice = scheduler->explain();
  }
};

class Runtime {
public:
  // The runtime, initialised on first call.  Never null.
  static Runtime &get();
  // Shuts down (joins controllers, releases device memory). Idempotent.
  static void shutdown();
  // Runs f on the runtime if one exists (creating none), holding it alive:
  // for what must not start a runtime (stats written on a signal).
  static void with_existing(const std::function<void(Runtime &)> &f);

  // Error from initialisation (bad HCE_DEVICES, a bad HCE_* setting),
  // empty when fine: every region fails with it.
  const std::string &init_error() const {
    return init_error_.empty() ? settings_error_ : init_error_;
  }
  // The HCE_* tuning variables (settings.hpp), read once, when the runtime
  // starts: not at each execution.
  const Settings &settings() const { return settings_; }
  // Changes with every reload_settings(): a site's cached plan names the
  // settings it was made with.
  uint64_t settings_generation() const { return settings_generation_; }
  // Reads the HCE_* tuning variables again, for tests and tools that change
  // them between regions (no region may be executing).  false + why on a
  // bad value, which then fails every region until a reload succeeds.
  bool reload_settings(std::string &why);
  const std::vector<std::unique_ptr<Device>> &devices() const { return devices_; }
  // Device 0 is always the CPU; it takes part in co-execution only when
  // selected, but failed chunks are always re-run there.
  bool cpu_selected() const { return cpu_selected_; }
  Controller &controller(int device) { return *controllers_[device]; }
  // The compute (0) and download (1) stream threads of an accelerator's
  // pipeline; its controller thread is the upload stream.
  Controller &stream_thread(int device, int stream) {
    return *stream_threads_[size_t(device)][size_t(stream)];
  }
  DataEnv &data() { return *data_; }
  // Faults in a region's untouched output pages while accelerators work on
  // it alone (region_exec.cpp): one job at a time.
  PagePrefaulter &prefaulter() { return prefaulter_; }

  // The site of `region`, made at its first execution: the caller holds
  // exec_mutex() (the site table).
  SiteState &site(const hce_region &region);
  // Every site so far.  Takes exec_mutex() for the table, which an
  // execution on another thread may be growing (hce_last_iterations read it
  // while one appended, a use after free under ThreadSanitizer); a site
  // itself lives as long as the runtime.
  std::vector<const SiteState *> sites() const;
  // Every site's statistics for a report, their choices brought up to
  // date: copies, each read with its site claimed as an execution claims
  // it (tasks/device_claims.hpp), so that no execution changes them
  // meanwhile -- except from inside an execution (inside_an_execution),
  // whose own claim it could be: there as they are, choices unrefreshed.
  std::vector<NamedStats> named_stats();
  // The same for one site; nullopt if `site` is none of this runtime's (a
  // handle from before hce_finalize).
  std::optional<RegionStats> site_stats(const void *site);
  std::mutex &exec_mutex() { return exec_mutex_; }

  ~Runtime();

private:
  Runtime();
  void select_devices();

  std::string init_error_;
  Settings settings_;
  std::string settings_error_;
  uint64_t settings_generation_ = 1;
  bool cpu_selected_ = true;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::vector<std::array<std::unique_ptr<Controller>, 2>> stream_threads_;
  std::unique_ptr<DataEnv> data_;
  PagePrefaulter prefaulter_;
  std::vector<std::unique_ptr<SiteState>> sites_;    // in order of first use
  std::map<std::string, SiteState *> sites_by_name_; // regions with no site slot
  mutable std::mutex exec_mutex_; // the site table; an execution's device choice
};

} // namespace hce
