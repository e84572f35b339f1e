//===- CpuVariantEmitter.h - The OpenMP CPU variant -------------*- C++ -*-===//
//
// Emits `static void __hce_cpu_N(lb, ub, ptrs, args, red)`: the loop body as
// an OpenMP `parallel for` over normalised iterations [lb, ub).
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_CPUVARIANTEMITTER_H
#define HCE_TRANSLATOR_CPUVARIANTEMITTER_H

#include "VariantEmitter.h"

namespace hce {

class CpuVariantEmitter : public VariantEmitter {
public:
  explicit CpuVariantEmitter(bool LineDirectives)
      : LineDirectives(LineDirectives) {}
  std::string hostDecls(const Region &R) const override;
  std::string siteHook(const Region &R) const override;

private:
  bool LineDirectives;
};

} // namespace hce

#endif
