// The host CPU as one device: all cores (less one per accelerator
// controller) run the CPU variant's `omp parallel for` on host memory.
#pragma once

#include "device.hpp"

namespace hce {

class CpuDevice final : public Device {
public:
  explicit CpuDevice(int threads) : Device(DeviceKind::Cpu, "cpu", 0), threads_(threads) {}
  int threads() const { return threads_; }
  bool can_run(const hce_region &region) const override {
    return region.cpu != nullptr;
  }
  void on_controller_start() override;
  bool compute(const ChunkContext &ctx, std::string &why) override;

private:
  int threads_;
};

} // namespace hce
