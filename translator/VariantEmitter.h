//===- VariantEmitter.h - Interface of the per-device emitters --*- C++ -*-===//
//
// Each kind of variant (CPU/OpenMP, CUDA, OpenMP offload) is produced by one
// VariantEmitter. The translator asks every enabled emitter for the
// file-scope code of the host file, for the statements that install the
// variant into the hce_region at the loop site, and for the text of its
// companion file (the .cu for CUDA).
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_VARIANTEMITTER_H
#define HCE_TRANSLATOR_VARIANTEMITTER_H

#include "Region.h"

#include <string>

namespace hce {

class VariantEmitter {
public:
  virtual ~VariantEmitter() = default;
  /// File-scope code for the host output, placed before the function that
  /// holds the loop.
  virtual std::string hostDecls(const Region &R) const = 0;
  /// Statements at the loop site that set the variant's member of
  /// `__hce_r` (the hce_region being filled).
  virtual std::string siteHook(const Region &R) const = 0;
  /// Code for this emitter's companion file; empty if it has none.
  virtual std::string companion(const Region &R) const {
    (void)R;
    return "";
  }
};

} // namespace hce

#endif
