// The host CPU as one device: all cores (less HCE_CORES_PER_ACCELERATOR, 1
// by default, per accelerator working beside it) run the CPU variant's
// `omp parallel for` on host memory.
#pragma once

#include "device.hpp"

#include <algorithm>
#include <atomic>
#include <string>

namespace hce {

// "<model name of /proc/cpuinfo>/<threads>t": the CPU's hardware() (its
// time depends on the team size as much as on the model).
std::string cpu_hardware(int threads);

// The team size of the last fork use_team() made to create a thread's team
// (0: none yet), for tests.
int last_team_warm_up();
// How many times put_team_to_sleep() forked, for tests.
int team_sleep_forks();

// On the calling thread as the runtime starts, while CUDA starts on a helper
// thread (Runtime::select_devices): the team of `threads` that this thread's
// CPU chunks will fork, created with its workers asleep, so that the CPU's
// first chunk only wakes them.  False, doing nothing, inside an active
// parallel region or a variant (this thread would not be the team's master).
bool create_callers_team_asleep(int threads);

// A program's first run (no profile names the CPU) whose team was made as
// CUDA started: the seconds making it took, which its first prologue would
// otherwise have spent before the CPU's first ask.  The first CPU prologue
// of the process takes it (once; 0 after, or when none was set) and waits
// up to that long for the accelerators' first ask (ChunkWorker::
// first_ask_wait, region_exec.cpp attach_device_hooks).  At most
// kFirstAskGraceMax: made beside CUDA's start the making took 3.3-13.5 ms on
// the H100 (call MB), where a prologue made it in ~1-2.6 ms and hce-sim's
// grace is its `cpu_team` (0.99 ms); a grace that long kept the CPU waiting
// out the GPU's whole preparation -- cold kmeans' 8 ms of pinning, matadd's
// 3 ms staging pool, where the CPU alone is the best device -- and cold
// matadd, kmeans, gemm and mcpi took 1.03-1.06x as long as without it.
inline constexpr double kFirstAskGraceMax = 1e-3;
void set_first_ask_grace(double seconds);
double take_first_ask_grace();

class CpuDevice final : public Device {
public:
  // `threads` when accelerators run beside it, `all_threads` when none does.
  CpuDevice(int threads, int all_threads)
      : Device(DeviceKind::Cpu, "cpu", 0), threads_(threads),
        all_threads_(std::max(threads, all_threads)) {
    set_hardware(cpu_hardware(all_threads_));
  }
  int threads() const { return threads_; }
  // The team when no accelerator runs beside it: every core.
  int all_threads() const { return all_threads_; }
  // On the thread that runs the CPU's chunks (the caller or the controller),
  // before an execution's first chunk: the team of the variant's `parallel
  // for` (every worker of the CPU has this prologue).  When the scheduler
  // gives the accelerators nothing, their controllers sleep and the cores
  // they keep free are the CPU's too.
  void use_team(bool alone) const;
  // Threads of the team beside accelerators left to their copies in this
  // execution (region_exec.cpp share_copy_threads): use_team() forks that
  // many fewer.
  void reserve_for_copies(int threads) const { reserved_.store(threads); }
  // Whether this thread could run the CPU's chunks (enter_caller) and has
  // not yet created the team it would use alone.
  bool team_wanted_here() const;
  // On the calling thread (between enter_caller and leave_caller), while an
  // accelerator runs alone on its controller: creates the team the CPU uses
  // alone, its workers asleep straight after (no blocktime spin beside the
  // accelerator's copies), so that a later CPU chunk only wakes them.
  void create_team_asleep() const;
  // On the thread that ran the CPU's chunks, once it has no more in this
  // execution while accelerators still work: its team's workers asleep
  // (one fork, ~0.2 ms), their cores free for the accelerators' copies;
  // no fork when its blocktime is 0 (they sleep already: a user's).
  void put_team_to_sleep() const;
  bool can_run(const hce_region &region) const override { return region.cpu != nullptr; }
  // A chunk of fewer rows than threads runs on fewer threads, unless the
  // variant spreads each row over the whole team (cpu_flat).
  int64_t lanes(const hce_region &region) const override {
    return region.cpu_flat ? 1 : threads_;
  }
  // (No on_controller_start: a thread that calls libomp becomes one of its
  // root threads, and the CPU's controller counted beside the caller's
  // team of every core made libomp think the machine oversubscribed
  // (more threads than cores), so that every team's workers, the user's
  // own too, slept after each fork.  The controller's team size is set by
  // use_team() when it runs the CPU's chunks.)
  // The calling thread runs the CPU's chunks as the master of its own
  // OpenMP team, outside any active parallel region and variant (a nested
  // `parallel for` would run on one thread); use_team() sizes the team.  The
  // user's team-size ICV is restored afterwards.
  bool enter_caller() override;
  void leave_caller() override;
  bool compute(const ChunkContext &ctx, std::string &why) override;

private:
  int threads_;
  int all_threads_;
  mutable std::atomic<int> reserved_{0};
};

} // namespace hce
