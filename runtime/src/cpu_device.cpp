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
