// The C entry points of <hce/hce.h>.
#include "hce/hce.h"

#include "data_env.hpp"
#include "iteration_count.hpp"
#include "launch_scratch.hpp"
#include "log.hpp"
#include "reduction.hpp"
#include "region_exec.hpp"
#include "runtime.hpp"
#include "tasks/task_runtime.hpp"
#include "variant_scope.hpp"

#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace hce;

extern "C" {

// A synchronous region, a data directive or the end of the runtime first
// waits for the nowait regions still running (docs/task-graph.md).
static int drain_tasks() {
  if (!tasks::pending())
    return 0;
  std::string why;
  if (tasks::taskwait(why) != 0) {
    error("taskwait: " + why);
    return 1;
  }
  return 0;
}

// A co_exec loop reached from the body of another one (a function called
// in the loop body): the outer region holds the devices, so the inner one
// runs here, on the calling thread and device, over the data the caller
// passed (issue 11.6).
static bool nested_call() { return inside_an_execution(); }

static int run_nested(const hce_region &r) {
  const std::string name = r.name && *r.name ? r.name : "<unnamed region>";
  if (std::string why = iteration_count_error(r.iterations); !why.empty()) {
    error("region " + name + ": " + why);
    return 1;
  }
  if (!r.cpu || r.num_maps < 0 || (r.num_maps > 0 && !r.maps) || r.num_reductions < 0 ||
      (r.num_reductions > 0 && !r.reductions)) {
    error("region " + name + ": malformed region");
    return 1;
  }
  for (int i = 0; i < r.num_reductions; ++i) {
    std::string why;
    if (!reduction_valid(r.reductions[i], why)) {
      error("region " + name + ": " + why);
      return 1;
    }
  }
  notice_once("nested/" + name,
              "region " + name +
                  " is reached from inside another co-executed region; it "
                  "runs there, on the calling device");
  std::vector<void *> ptrs(size_t(r.num_maps));
  for (int m = 0; m < r.num_maps; ++m)
    ptrs[size_t(m)] = r.maps[m].host;
  std::vector<unsigned char> red = reduction_slots(r);
  DataEnv &data = Runtime::get().data();
  if (std::string why; !data.inline_begin(r, why)) {
    error("region " + name + ": " + why);
    return 1;
  }
  {
    VariantScope scope; // deeper levels run inline too
    r.cpu(0, r.iterations, ptrs.data(), r.args, red.data());
  }
  data.inline_end(r);
  reduction_fold_into_vars(r, red.data());
  return 0;
}

int hce_co_exec_nowait(const hce_region *region, int num_deps, const hce_depend *deps) {
  if (!region) {
    error("hce_co_exec_nowait: null region");
    return 1;
  }
  if (nested_call())
    return run_nested(*region); // synchronously: the caller holds the devices
  if (has_array_reduction(*region)) {
    error("region " + std::string(region->name ? region->name : "<unnamed region>") +
          ": array reductions are not supported in nowait regions yet; drop nowait");
    return 1;
  }
  std::string why;
  if (tasks::submit(*region, num_deps, deps, why) != 0) {
    error(why);
    return 1;
  }
  return 0;
}

void hce_co_exec_nowait_or_exit(const hce_region *region, int num_deps,
                                const hce_depend *deps) {
  if (hce_co_exec_nowait(region, num_deps, deps) != 0)
    std::exit(1);
}

int hce_taskwait(void) {
  std::string why;
  if (tasks::taskwait(why) != 0) {
    error("taskwait: " + why);
    return 1;
  }
  return 0;
}

void hce_taskwait_or_exit(void) {
  if (hce_taskwait() != 0)
    std::exit(1);
}

int hce_co_exec(const hce_region *region) {
  if (!region) {
    error("hce_co_exec: null region");
    return 1;
  }
  if (nested_call())
    return run_nested(*region);
  if (drain_tasks() != 0)
    return 1;
  std::string why;
  ++regions_executing();
  int rc = execute_region(*region, why);
  --regions_executing();
  if (rc != 0)
    error(why);
  return rc;
}

void hce_co_exec_or_exit(const hce_region *region) {
  if (hce_co_exec(region) != 0)
    std::exit(1);
}

int hce_data_begin(int num_maps, const hce_map *maps) {
  if (drain_tasks() != 0)
    return 1;
  std::string why;
  if (num_maps < 0 || (num_maps > 0 && !maps)) {
    error("hce_data_begin: malformed map list");
    return 1;
  }
  if (!Runtime::get().data().data_begin(num_maps, maps, why)) {
    error("data region: " + why);
    return 1;
  }
  return 0;
}

int hce_data_end(void) {
  if (drain_tasks() != 0)
    return 1;
  std::string why;
  if (!Runtime::get().data().data_end(why)) {
    error("end of data region: " + why);
    return 1;
  }
  return 0;
}

int hce_update(int num_maps, const hce_map *maps, int to_devices) {
  if (drain_tasks() != 0)
    return 1;
  std::string why;
  if (num_maps < 0 || (num_maps > 0 && !maps)) {
    error("hce_update: malformed map list");
    return 1;
  }
  if (!Runtime::get().data().update(num_maps, maps, to_devices != 0, why)) {
    error("update: " + why);
    return 1;
  }
  return 0;
}

// What generated code calls for #pragma hce data / update: a failed
// transfer stops the program (the error was printed) instead of letting it
// go on with stale data.
void hce_data_begin_or_exit(int num_maps, const hce_map *maps) {
  if (hce_data_begin(num_maps, maps) != 0)
    std::exit(1);
}

void hce_data_end_or_exit(void) {
  if (hce_data_end() != 0)
    std::exit(1);
}

void hce_update_or_exit(int num_maps, const hce_map *maps, int to_devices) {
  if (hce_update(num_maps, maps, to_devices) != 0)
    std::exit(1);
}

int hce_num_devices(void) {
  Runtime &rt = Runtime::get();
  return int(rt.devices().size()) - (rt.cpu_selected() ? 0 : 1);
}

const char *hce_device_name(int i) {
  Runtime &rt = Runtime::get();
  int first = rt.cpu_selected() ? 0 : 1;
  if (i < 0 || first + i >= int(rt.devices().size()))
    return nullptr;
  return rt.devices()[size_t(first + i)]->name().c_str();
}

int64_t hce_last_iterations(void *const *site, const char *device) {
  if (!site || !*site || !device)
    return 0;
  // (A handle from before hce_finalize names no site now.)
  const std::optional<RegionStats> stats = Runtime::get().site_stats(*site);
  if (!stats)
    return 0;
  auto it = stats->devices.find(device);
  return it == stats->devices.end() ? 0 : it->second.last_iterations;
}

void *hce_cuda_scratch(void *stream, size_t bytes) {
  hce::LaunchScratch *s = hce::LaunchScratchScope::current();
  return s ? s->scratch(stream, bytes) : nullptr;
}

void *hce_cuda_host_scratch(void *stream, size_t bytes, void **device) {
  *device = nullptr;
  hce::LaunchScratch *s = hce::LaunchScratchScope::current();
  return s ? s->host_scratch(stream, bytes, device) : nullptr;
}

void hce_print_stats(void) {
  std::fputs(stats_table(Runtime::get().named_stats()).c_str(), stderr);
}

void hce_finalize(void) {
  tasks::shutdown();
  Runtime::shutdown();
}

} // extern "C"
