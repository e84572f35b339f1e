// What execute_region (region_exec.cpp) calls to feed and use the profile
// store: attach() before a region's scheduler begins (region name, device
// names, memory bounds), record_execution() after the chunk loop (each
// device's compute and transfer time, as the loop timed its stages,
// iterations and bytes, into the store).
#pragma once

#include "chunk_loop.hpp"
#include "data_env.hpp"
#include "hce/hce.h"
#include "runtime.hpp"

#include <string>
#include <vector>

namespace hce::profile {

// Iterations of `region` whose footprint fits in `capacity` bytes (the
// memory bound of Algorithm 1, in iterations); 0 when there is no bound
// (capacity 0, or no per-iteration data).  At least 1 when bounded.
int64_t iterations_fitting(const hce_region &region, double capacity);
// A device's memory capacity in bytes as the runtime limits it (sim `mem:`,
// HCE_CUDA_MEM_LIMIT of `settings` for cuda:N); 0 = no known limit.
double device_capacity(const Device &dev, const Settings &settings);

// The name the store keys a device's samples by: "cuda:0@NVIDIA H100 80GB
// HBM3/132sm", "cpu@<model>/16t"; the name alone for a device with no
// hardware() description.
const std::string &device_key(const Device &dev);

// Gives the region's scheduler its profile context (no-op for schedulers
// that do not use one).
void attach(Scheduler &s, const hce_region &region, const Runtime &rt,
            const std::vector<int> &devs);

// Seeds a Seedable scheduler (auto, eft) with a cost model per device from
// the profile store (what earlier runs of the program learnt beside the same
// devices, else what they measured on the device, interpolated at W and W/4):
// o + n * c seconds for n iterations.
// Devices without samples are left to the scheduler's probes.  Also the
// measured walls of co-execution and of each device alone (record_mode()).
void seed(Scheduler &s, const hce_region &region, const Runtime &rt,
          const std::vector<int> &devs);

// After the chunk loop: one sample per device that ran iterations
// (iterations, bytes to + from the device, compute seconds, the rest of its
// busy time as transfer seconds).  Nothing is recorded for an execution in
// which a device failed (its times are partial).
// After the chunk loop, for a scheduler that chooses between co-execution
// and each device alone (eft): the execution's wall time under the
// pseudo-device "=co:DEV+DEV..." or "=alone:DEV", which seed() hands back to
// the next run (Seedable::seed_mode), and each device's cost model as
// learnt beside the others, "=model:DEV+DEV.../DEV" (Seedable::learnt_model),
// which seed() prefers to the device's own samples.  `nth`: which execution
// of the region in this process this is (0: the first, which Store::record
// holds back; recorded_execution() says which are recorded, except that a
// mode the scheduler measured rarely -- an exploration -- is always kept).
// An execution on one device (HCE_DEVICES=cuda:0, any scheduler) records
// its wall `wall_s` (the whole execution's) as that device's "=alone:DEV": the arm is the
// same (a CPU alone has the whole team, a GPU alone the free cores for its copies), so a
// `gpu` run tells a later co-execution what the GPU alone costs without the latter having
// to try it.
void record_mode(const Scheduler &s, const hce_region &region, const Runtime &rt,
                 const std::vector<int> &devs, size_t failures, int64_t nth,
                 double wall_s);

void record_execution(const hce_region &region, const Runtime &rt,
                      const std::vector<ChunkWorker> &workers,
                      const std::vector<TransferCounts> &bytes, size_t failures,
                      int64_t nth);

} // namespace hce::profile
