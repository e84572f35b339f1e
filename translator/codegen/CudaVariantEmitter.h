//===- CudaVariantEmitter.h - The CUDA variant ------------------*- C++ -*-===//
//
// For each region that can run on a GPU (DeviceContext decides), the `.cu`
// companion gets
//   - the args struct (same definition as in the host file: it is passed to
//     the kernel by value) and a struct of the map pointers;
//   - `__global__ __hce_kernel_N`, in one of two shapes (InnerLoopAnalysis
//     decides, a comment in the .cu says which and why):
//       1-D: a grid-stride loop, one thread per normalised iteration of
//            [lb, ub), the body verbatim;
//       rows: the body ends with an inner loop whose iterations are
//            independent: each outer iteration goes to one row of a block
//            (blockIdx.x * blockDim.y + threadIdx.y, grid-stride), the
//            statements before the inner loop run in every thread of the
//            row, and the inner loop's iterations are spread over
//            blockIdx.y * blockDim.x + threadIdx.x (a perfectly nested
//            second level: the first over blockIdx.y, the second over
//            threadIdx.x), so that neighbouring threads touch neighbouring
//            elements;
//     both rebind maps, scalars and reduction variables like the CPU
//     variant; reductions go through per-thread accumulators, a
//     shared-memory block reduction and one atomic per block into a device
//     scratch slot;
//   - `extern "C" int __hce_cuda_N<suffix>(lb, ub, ptrs, args, red, stream)`:
//     the launcher (256 threads a block, min(ceil(n/256), 65535) blocks for
//     1-D; for rows, bx x by = 256 threads with bx the inner trip count
//     rounded up to a power of two in [32, 256] when the launcher can
//     compute it, and a grid sized to fill the GPU) on
//     the given stream; with reductions it copies the scratch back,
//     synchronises the stream and folds the results into the host slots.
// The host file declares the launcher and installs it in `__hce_r.cuda`
// under `#ifdef HCE_HAVE_CUDA_VARIANTS`.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_CUDAVARIANTEMITTER_H
#define HCE_TRANSLATOR_CUDAVARIANTEMITTER_H

#include "DeviceCode.h"
#include "InnerLoopAnalysis.h"
#include "VariantEmitter.h"

#include <map>
#include <vector>

namespace hce {

class CudaVariantEmitter : public VariantEmitter {
public:
  CudaVariantEmitter(const DeviceContext &DC, bool LineDirectives)
      : DC(DC), LineDirectives(LineDirectives) {}
  std::string hostDecls(const Region &R) const override;
  std::string siteHook(const Region &R) const override;
  CompanionKind companionKind() const override { return CompanionKind::Cuda; }
  std::string companion(const Region &R) const override;
  /// The `.cu` file's includes and what the kernels need from the input.
  std::string companionHeader(const std::vector<const Region *> &With) const override;
  /// The launcher's external name.
  std::string launcherName(const Region &R) const;
  /// The wave function's external name (hce_region::cuda_wave).
  std::string waveName(const Region &R) const;
  /// Chooses the kernel shape of region \p R (built from \p In), from the
  /// AST; call before companion(). Regions never planned get the 1-D shape.
  void planRegion(const RegionInput &In, const Region &R, clang::ASTContext &Ctx,
                  Diag &D) override;

private:
  const DeviceContext &DC;
  bool LineDirectives;
  std::map<unsigned, InnerLoopPlan> Plans;
};

} // namespace hce

#endif
