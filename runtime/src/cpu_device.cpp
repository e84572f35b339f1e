#include "cpu_device.hpp"

#include "variant_scope.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <fstream>

namespace hce {

const char *kind_name(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::Cpu: return "cpu";
  case DeviceKind::Sim: return "sim";
  case DeviceKind::Cuda: return "cuda";
  case DeviceKind::Omp: return "omp";
  }
  return "?";
}

std::string cpu_hardware(int threads) {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown cpu";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size())
        model = line.substr(colon + 2);
      break;
    }
  return model + "/" + std::to_string(threads) + "t";
}

namespace {

// The user's team size on a thread that runs the CPU's chunks.
thread_local int saved_threads = 0;
// The user's blocktime on the calling thread while use_team() holds it at
// kBesideBlocktimeMs (beside working accelerators); kBlocktimeKept when it is
// the user's.
constexpr int kBlocktimeKept = -1;
// The blocktime of the team beside working accelerators, milliseconds (or
// the user's, if lower): its workers spin that long after a chunk, then
// sleep on the cores the accelerators' controllers, streams and copy
// threads need.  0 (sleep at once) made every chunk beside a GPU pay the
// team's wake-up, 50-100 us on the H100 for lud's 15-row chunks of ~1 us of
// work, and eft's model read that as the rows' cost.  1 ms against 0, cold
// auto, paired medians (H100 calls RO and RN, docs/benchmarks.md): cg 0.77x
// and 0.95x as long, fdtd2d 0.86x and 0.96x, lud 0.92x and 0.83x, bfs 0.97x
// and 0.92x, mcpi 0.99x and 1.09x, the others and warm runs within noise.
constexpr int kBesideBlocktimeMs = 1;
thread_local int saved_blocktime = kBlocktimeKept;
// The largest team this thread has forked (ensure_team).
thread_local int warmed_team = 0;
// The size of the last warm-up fork's team: the region's observable effect.
std::atomic<int> last_warm_up{0};
// put_team_to_sleep()'s forks, for tests.
std::atomic<int> sleep_forks{0};
// set_first_ask_grace()'s seconds until the first CPU prologue takes them.
std::atomic<double> first_ask_grace{0};

// An OpenMP team is created at the first parallel region its master runs
// (a larger one grows it): do it before the thread's first chunk -- the
// probe eft fits the CPU's model to -- so that the probe does not pay for
// creating the threads: a probe that did made the CPU look many times
// slower than it is, and lud's auto on the H100 never tried the CPU again.
//
// Not an empty region: LLVM's OpenMPOpt deletes a parallel region without
// side effects (-O1 and above), and with it the fork.  It did so in every
// optimised build until call DE found it: the process's first CPU chunk
// took 1.0-1.2 ms on the H100 (nbody.move; 0.04 ms from the second on).
void ensure_team(int team) {
  if (team <= warmed_team)
    return;
#pragma omp parallel num_threads(team)
  {
    if (omp_get_thread_num() == 0)
      last_warm_up.store(omp_get_num_threads(), std::memory_order_relaxed);
  }
  warmed_team = team;
}

// Blocktime 0 for the one fork that creates the team: libomp hands the ICV
// to the new workers, which sleep at its barrier instead of spinning for
// 200 ms.  Waking them costs the next fork ~0.2 ms against ~1 ms to create
// them (H100).
void fork_team_asleep(int team) {
  if (team <= warmed_team)
    return;
  const int blocktime = kmp_get_blocktime();
  kmp_set_blocktime(0);
  ensure_team(team);
  kmp_set_blocktime(blocktime);
}

} // namespace

bool create_callers_team_asleep(int threads) {
  if (omp_get_active_level() > 0 || VariantScope::active())
    return false;
  fork_team_asleep(threads);
  return true;
}

bool CpuDevice::enter_caller() {
  // On the H100 a hand-off to the CPU's controller and back cost 3-25 us per
  // execution, the whole runtime overhead of lud's short executions (the
  // calling thread, one more than the cores, had to be woken).
  if (omp_get_active_level() > 0 || VariantScope::active())
    return false;
  // The team size is use_team()'s, in the worker's prologue.  Not set here
  // as well: libomp releases hot-team threads as soon as the size drops
  // (__kmp_set_num_threads), so setting the co-execution size and then the
  // whole machine's woke a released thread at every fork -- lud's CPU-alone
  // chunks computed 2x slower with any accelerator in HCE_DEVICES (H100).
  saved_threads = omp_get_max_threads();
  saved_blocktime = kBlocktimeKept;
  return true;
}

void CpuDevice::leave_caller() {
  if (omp_get_max_threads() != saved_threads)
    omp_set_num_threads(saved_threads);
  if (saved_blocktime != kBlocktimeKept) {
    kmp_set_blocktime(saved_blocktime);
    saved_blocktime = kBlocktimeKept;
  }
}

int last_team_warm_up() { return last_warm_up.load(std::memory_order_relaxed); }

void set_first_ask_grace(double seconds) {
  first_ask_grace.store(std::clamp(seconds, 0.0, kFirstAskGraceMax),
                        std::memory_order_relaxed);
}

double take_first_ask_grace() {
  if (first_ask_grace.load(std::memory_order_relaxed) == 0)
    return 0; // the usual case: no exchange (lud's 511 executions)
  return first_ask_grace.exchange(0, std::memory_order_relaxed);
}

int team_sleep_forks() { return sleep_forks.load(std::memory_order_relaxed); }

void CpuDevice::use_team(bool alone) const {
  const int team = alone ? all_threads_ : std::max(1, threads_ - reserved_.load());
  if (omp_get_max_threads() != team)
    omp_set_num_threads(team);
  // Beside working accelerators the team's workers spin kBesideBlocktimeMs
  // after a chunk, not the user's blocktime (200 ms by default), on the
  // cores the accelerators' controllers, streams and copy threads run on.
  // Alone, the user's blocktime: lud's 511 short executions fork a team
  // that is still spinning, not one to wake.
  if (!alone && saved_blocktime == kBlocktimeKept &&
      kmp_get_blocktime() > kBesideBlocktimeMs) {
    saved_blocktime = kmp_get_blocktime();
    kmp_set_blocktime(kBesideBlocktimeMs);
  } else if (alone && saved_blocktime != kBlocktimeKept) {
    kmp_set_blocktime(saved_blocktime);
    saved_blocktime = kBlocktimeKept;
  }
  ensure_team(team);
}

bool CpuDevice::team_wanted_here() const {
  return all_threads_ > warmed_team && omp_get_active_level() == 0 &&
         !VariantScope::active();
}

void CpuDevice::create_team_asleep() const {
  if (omp_get_max_threads() != all_threads_)
    omp_set_num_threads(all_threads_); // use_team(alone)'s size
  fork_team_asleep(all_threads_);
}

void CpuDevice::put_team_to_sleep() const {
  // Blocktime 0 for one fork of the team as it is: its workers take the
  // ICV with the region and sleep at its end rather than spin for 200 ms.
  // At 0 already (beside working accelerators: use_team) they slept when
  // the last chunk ended, and a fork would only wake them.
  const int blocktime = kmp_get_blocktime();
  if (blocktime == 0)
    return;
  sleep_forks.fetch_add(1, std::memory_order_relaxed);
  kmp_set_blocktime(0);
  std::atomic<int> forked{0};
#pragma omp parallel
  forked.fetch_add(1, std::memory_order_relaxed); // a side effect: not deleted
  kmp_set_blocktime(blocktime);
}

bool CpuDevice::compute(const ChunkContext &ctx, std::string &) {
  VariantScope scope;
  ctx.region->cpu(ctx.range.lb, ctx.range.ub, ctx.ptrs, ctx.region->args, ctx.red);
  return true;
}

} // namespace hce
