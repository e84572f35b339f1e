//===- OffloadVariantEmitter.h - The OpenMP-offload variant -----*- C++ -*-===//
//
// For each region that can run on an OpenMP target device, the offload
// companion (`*_offload.c` / `.cpp`, compiled by clang with
// `-fopenmp-targets=nvptx64`) gets
//   int __hce_omp_N<suffix>(lb, ub, ptrs, args, red, dev)
// which rebinds maps (device pointers from omp_target_alloc, possibly
// biased), scalars and reduction variables like the CPU variant, then runs
//   #pragma omp target teams distribute parallel for device(dev)
//       is_device_ptr(maps) firstprivate(scalars) map(tofrom: reductions)
//       reduction(op: reductions)
// over [lb, ub) with the body verbatim. Functions of the input that the body
// calls are copied into `#pragma omp declare target` as `static` functions.
// The host file declares it and installs `__hce_r.omp` under
// `#ifdef HCE_HAVE_OMP_VARIANTS`.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_OFFLOADVARIANTEMITTER_H
#define HCE_TRANSLATOR_OFFLOADVARIANTEMITTER_H

#include "DeviceCode.h"
#include "VariantEmitter.h"

#include <vector>

namespace hce {

class OffloadVariantEmitter : public VariantEmitter {
public:
  OffloadVariantEmitter(const DeviceContext &DC, bool LineDirectives)
      : DC(DC), LineDirectives(LineDirectives) {}
  std::string hostDecls(const Region &R) const override;
  std::string siteHook(const Region &R) const override;
  CompanionKind companionKind() const override { return CompanionKind::Offload; }
  std::string companion(const Region &R) const override;
  /// The offload companion's includes and what the variants need from the
  /// input.
  std::string companionHeader(const std::vector<const Region *> &With) const override;
  std::string functionName(const Region &R) const;

private:
  const DeviceContext &DC;
  bool LineDirectives;
};

} // namespace hce

#endif
