#include "cpu_device.hpp"

#include "variant_scope.hpp"

#include <omp.h>

namespace hce {

const char *kind_name(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::Cpu:
    return "cpu";
  case DeviceKind::Sim:
    return "sim";
  case DeviceKind::Cuda:
    return "cuda";
  case DeviceKind::Omp:
    return "omp";
  }
  return "?";
}

void CpuDevice::on_controller_start() {
  // The controller is its own root thread: this sets the team size of the
  // variant's `parallel for` without touching the user's ICVs.
  omp_set_num_threads(threads_);
  // Its OpenMP team is created at the first parallel region it runs: do it
  // now, so that the first chunk -- the probe eft fits the CPU's model to --
  // does not pay for creating the threads: a probe that did made the CPU
  // look many times slower than it is, and lud's auto on the H100 never
  // tried the CPU again.
#pragma omp parallel
  {
  }
}

void CpuDevice::use_team(bool alone) const {
  omp_set_num_threads(alone ? all_threads_ : threads_);
}

bool CpuDevice::compute(const ChunkContext &ctx, std::string &) {
  VariantScope scope;
  ctx.region->cpu(ctx.range.lb, ctx.range.ub, ctx.ptrs, ctx.region->args,
                  ctx.red);
  return true;
}

} // namespace hce
