//===- CudaVariantEmitter.h - The CUDA variant ------------------*- C++ -*-===//
//
// For each region that can run on a GPU (DeviceContext decides), the `.cu`
// companion gets
//   - the args struct (same definition as in the host file: it is passed to
//     the kernel by value) and a struct of the map pointers;
//   - `__global__ __hce_kernel_N`: a grid-stride loop over normalised
//     iterations [lb, ub) that rebinds maps, scalars and reduction variables
//     like the CPU variant and runs the body verbatim; reductions go through
//     per-thread accumulators, a shared-memory block reduction and one atomic
//     per block into a device scratch slot;
//   - `extern "C" int __hce_cuda_N<suffix>(lb, ub, ptrs, args, red, stream)`:
//     the launcher (256 threads a block, min(ceil(n/256), 65535) blocks) on
//     the given stream; with reductions it copies the scratch back,
//     synchronises the stream and folds the results into the host slots.
// The host file declares the launcher and installs it in `__hce_r.cuda`
// under `#ifdef HCE_HAVE_CUDA_VARIANTS`.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_CUDAVARIANTEMITTER_H
#define HCE_TRANSLATOR_CUDAVARIANTEMITTER_H

#include "DeviceCode.h"
#include "VariantEmitter.h"

#include <vector>

namespace hce {

class CudaVariantEmitter : public VariantEmitter {
public:
  CudaVariantEmitter(const DeviceContext &DC, bool LineDirectives)
      : DC(DC), LineDirectives(LineDirectives) {}
  std::string hostDecls(const Region &R) const override;
  std::string siteHook(const Region &R) const override;
  std::string companion(const Region &R) const override;
  /// The whole `.cu` file; empty when no region has a CUDA variant.
  std::string companionFile(const std::vector<Region> &Regions) const;
  /// The launcher's external name.
  std::string launcherName(const Region &R) const;

private:
  const DeviceContext &DC;
  bool LineDirectives;
};

} // namespace hce

#endif
