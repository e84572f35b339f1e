// The HCE_* variables that tune every region's execution and the devices,
// parsed into one typed object (libomptarget's Envar style) that rejects a
// bad value with one message instead of silently taking a default (HCE_CO=
// maybe, HCE_MIN_SHARE=x, HCE_CUDA_MEM_LIMIT=12x).  Device selection
// (HCE_DEVICES, HCE_SIM), output (HCE_STATS, HCE_TRACE), the profile
// (HCE_PROFILE) are read where they are used, once per runtime.
//
// Read once, when the runtime starts (Runtime::settings()), before it
// creates its devices: cuda:N takes HCE_CUDA_MEM_LIMIT, HCE_CUDA_PIN and
// HCE_CUDA_P2P from them (CudaDevice::create), omp:N HCE_OMP_MEM_LIMIT
// and HCE_OMP_POISON (OmpDevice::create), the task runtime HCE_TASK_MAP,
// HCE_TASK_PARTITION, HCE_TASK_THRESHOLD, HCE_TASK_SPEED and HCE_TASK_LOG,
// and the profile hook HCE_CUDA_MEM_LIMIT (a GPU's capacity).  A bad value fails every
// region with `hce: error: HCE_X='value': expected ...` (the devices are
// then made with the defaults).  Tests that change them between regions
// call Runtime::reload_settings(); the devices (and a task system already
// made) keep what they were made with until the runtime restarts, while the
// profile hook reads the reloaded HCE_CUDA_MEM_LIMIT.
#pragma once

#include "data_env.hpp" // CoMode

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hce {

// "none"/"off", "incremental", "pipelined"; nullopt for anything else.
std::optional<CoMode> parse_co_mode(const std::string &text);

// How the CUDA backend makes user host memory pinned (HCE_CUDA_PIN;
// CudaDevice, docs/cuda-backend.md).
enum class PinPolicy {
  Region, // cudaHostRegister, cached until no CUDA device holds any memory
          // (the end of each region outside data regions): default, safe
          // when the program frees its arrays between regions
  Keep,   // cudaHostRegister, cached until shutdown: fastest for repeated
          // regions over the same arrays; arrays must outlive the runtime or
          // be unpinned (CudaDevice::unpin_host) before they are freed
  Stage,  // never register: every copy goes through the pinned staging buffer
  Off,    // plain cudaMemcpyAsync from pageable memory (synchronous): the
          // naive baseline, for measurements only
};
// "region", "keep", "stage", "off"; nullopt for anything else.
std::optional<PinPolicy> parse_pin_policy(const std::string &text);
const char *pin_policy_name(PinPolicy p);

// A byte count: a non-negative number (fractions allowed: 1.5g), optionally
// followed by k/K, m/M or g/G (powers of 1024) and then optionally by B or
// iB (4096, 4096B, 64k, 512MiB, 1.5GB); nullopt for anything else (12x,
// lots, -1, 0x10, inf, 4096iB) or a count that does not fit in size_t.
std::optional<size_t> parse_byte_size(const std::string &text);

// An execution that maps this much host memory or more has copies that host
// threads stage or register (chunk_loop.hpp team_to_create_beside,
// region_exec.cpp copy_threads_beside; hce-sim models the lending).
inline constexpr double kQuietHostBytes = 64.0 * 1024 * 1024;

// An accelerator's staging pool (CudaDevice::ensure_pool): made when the
// spans of pageable host memory a data region's preparation or one copy
// would use, each of kPoolMinBytes or more, come to kPoolMakeBytes (a
// one-shot region's total: kQuietHostBytes, CudaDevice::prepare_copies); a
// smaller span is copied without it.  hce-sim decides by the same numbers.
// 32 MiB since session 98: at 64, fdtd2d's first data-region preparation
// (63.98 MiB) and bfs's (48 MiB) registered their arrays, 2.4-2.5 ms per
// 32 MiB, where the pool costs ~2 ms once; staged, the GPU alone took 0.73x
// and 0.77x as long, cold auto 0.82x and 0.75x (H100, call V25, 8 paired
// rounds).  Registering costs ~0.076 ms/MiB, staging ~0.028 more than
// pinned copies over a data region's two crossings: even at ~42 MiB.
inline constexpr size_t kPoolMinBytes = size_t(4) << 20;
inline constexpr size_t kPoolMakeBytes = size_t(32) << 20;

// HCE_COPY_THREADS_BESIDE's default under auto and eft, per accelerator (at
// most half the CPU's threads in all): the staging pool's threads
// (CudaDevice::ensure_pool).
inline constexpr int kAutoCopyThreadsBeside = 8;

// The fastest staged copies of pageable memory measured, both directions
// together (bytes per second): 8 staging threads reached 30 GB/s on the
// H100 machine, the H200's GPU alone moves blackscholes' and matadd's
// arrays at 16-25 GB/s.  An accelerator lent copy threads moves an
// execution's mapped bytes no faster (SchedParams::rate_ceiling).
inline constexpr double kStagedCopyCeiling = 48e9;

// A data region's arrays beside a working CPU team (region_exec.cpp
// lends_in_data_region, which gives the reasons and the calls): copy threads
// are lent while the bytes the accelerators' preparations would register,
// `unpinned`, are kLendRegisterBytes or more and the site's lending so far
// (the walls of its lending executions, `lent_wall`, of which the team lost
// kLentTeamShare) cost less than registering them would at
// kRegisterSecondsPerByte.  `mapped`: the region's mapped bytes, an upper
// bound on `unpinned`.  hce-sim decides by the same rule.
inline constexpr double kLendRegisterBytes = 192.0 * (1 << 20);
inline constexpr double kRegisterSecondsPerByte = 80e-3 / double(1 << 30); // H200, HB
inline constexpr double kLentTeamShare = 0.5; // kAutoCopyThreadsBeside's half_cpu
inline bool data_region_lending_pays(double mapped, double unpinned, double lent_wall) {
  const double spent = lent_wall * kLentTeamShare;
  return mapped >= kLendRegisterBytes && unpinned >= kLendRegisterBytes &&
         spent < mapped * kRegisterSecondsPerByte &&
         spent < unpinned * kRegisterSecondsPerByte;
}

struct Settings {
  std::optional<std::string> schedule; // HCE_SCHEDULE: overrides schedule()
  std::optional<CoMode> co;            // HCE_CO: overrides co()
  std::optional<int64_t> chunk;        // HCE_CHUNK: overrides chunk()
  std::optional<double> alpha;         // HCE_ALPHA: overrides alpha()
  double min_share = 0.03;             // HCE_MIN_SHARE, in [0, 1)
  // HCE_COPY_THREADS_BESIDE, 0 to 64: host threads the CPU's team leaves to
  // each accelerator's copies while both work on a region outside data
  // regions that maps 64 MiB or more (the staging pool's, at 2 or more); 0:
  // none, the accelerator page-locks the rows it copies.  Unset: up to
  // kAutoCopyThreadsBeside under auto and eft, none under the papers'
  // schedulers (region_exec.cpp, calls RC and RD).
  std::optional<int> copy_threads_beside;

  // Devices and tasks: read when the runtime makes its devices and its task
  // system, not at each region.
  // HCE_CORES_PER_ACCELERATOR, 0 to 64: the cores the CPU's team leaves to
  // each accelerator while it works beside them (its controller, stream and
  // copy threads; runtime.cpp select_devices).  Unset: 1.  On the H100 the
  // team of 15 beside a working GPU had forks of ~1 ms where a chunk took
  // 6 us (call V13: no such stall with four more cores free).
  std::optional<int> cores_per_accelerator;
  // HCE_CORES_LEFT_FREE, 0 to 64: the cores the CPU's team leaves free while
  // it runs alone in a process whose device list names an accelerator (its
  // driver's and the runtime's threads, the machine's daemons; runtime.cpp
  // alone_team).  Unset: 0, the team takes every core.  On the H100 a team of
  // 16 on 16 cores ran lud's CPU alone 3-5x slowly in 2-5 of 16 runs, its
  // threads switched out thousands of times by a busy thread outside the
  // process; a team of 15 in none (calls V16-V18).
  std::optional<int> cores_left_free;
  std::optional<size_t> cuda_mem_limit;   // HCE_CUDA_MEM_LIMIT: bytes per GPU (0: none)
  std::optional<size_t> omp_mem_limit;    // HCE_OMP_MEM_LIMIT: bytes per omp:N (0: none)
  PinPolicy cuda_pin = PinPolicy::Region; // HCE_CUDA_PIN
  bool cuda_p2p = true;                   // HCE_CUDA_P2P: 0 or 1
  bool omp_poison = false;                // HCE_OMP_POISON: 0 or 1
  // HCE_HUGE_PAGES: 0 or 1, huge pages for the untouched parts of the arrays
  // a region writes (DataEnv::advise_written); read when the data layer is
  // made.
  bool huge_pages = true;
  // HCE_PREFAULT: host threads, 0 to 64, that fault in the untouched pages
  // of a region's output while accelerators work on it alone
  // (page_prefaulter.hpp, region_exec.cpp); 0: off.  Unset: half the cores
  // less two (kAutoPrefaultThreads).  Read when the data layer is made.
  std::optional<int> prefault_threads;
  std::string task_map = "ratio";         // HCE_TASK_MAP: a task mapper's name
  std::optional<int64_t> task_threshold;  // HCE_TASK_THRESHOLD: > 0, overrides thr
  // HCE_TASK_PARTITION: seconds > 0 above which a task may be co-executed,
  // 0 for off ("off" or "0"); unset: the mapper's default.
  std::optional<double> task_partition;
  // HCE_TASK_SPEED="cpu=1,cuda=8": relative speeds (> 0) by device name or
  // kind, before anything is measured.
  std::vector<std::pair<std::string, double>> task_speed;
  bool task_log = false; // HCE_TASK_LOG: 0 or 1

  // The settings from the environment; false + why (naming the variable, the
  // value and the accepted values) on a bad value, `out` then holding the
  // defaults.
  static bool from_env(Settings &out, std::string &why);
};

} // namespace hce
