//===- VariantEmitter.h - Interface of the per-device emitters --*- C++ -*-===//
//
// Each kind of variant (CPU/OpenMP, CUDA, OpenMP offload) is produced by one
// VariantEmitter; makeVariantEmitters lists those a translation uses, and
// the translator loops over that list. For every region it asks each
// emitter to plan (from the AST), then for the file-scope code of the host
// file and for the statements that install the variant into the hce_region
// at the loop site; at the end, for each emitter with a companion file
// (the .cu for CUDA, the offload source), for the file's header and each
// region's part of it.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_VARIANTEMITTER_H
#define HCE_TRANSLATOR_VARIANTEMITTER_H

#include "Diagnostics.h"
#include "Region.h"
#include "RegionBuilder.h"

#include "clang/AST/ASTContext.h"

#include <memory>
#include <string>
#include <vector>

namespace hce {

class DeviceContext;

/// The companion file an emitter writes.
enum class CompanionKind { None, Cuda, Offload };

class VariantEmitter {
public:
  virtual ~VariantEmitter() = default;
  /// Choices for region \p R (built from \p In) that need the AST, made
  /// before any code is asked for; may report remarks (In.Verbose).
  virtual void planRegion(const RegionInput &In, const Region &R, clang::ASTContext &Ctx,
                          Diag &D) {
    (void)In, (void)R, (void)Ctx, (void)D;
  }
  /// Headers the host output needs, placed once at its top (after
  /// hce/hce.h and stdint.h); empty if none.
  virtual std::string fileIncludes() const { return ""; }
  /// File-scope code for the host output, placed before the function that
  /// holds the loop.
  virtual std::string hostDecls(const Region &R) const = 0;
  /// Statements at the loop site that set the variant's member of
  /// `__hce_r` (the hce_region being filled).
  virtual std::string siteHook(const Region &R) const = 0;
  /// The companion file this emitter writes, if any.
  virtual CompanionKind companionKind() const { return CompanionKind::None; }
  /// Region \p R's part of the companion file; empty if it has none.
  virtual std::string companion(const Region &R) const {
    (void)R;
    return "";
  }
  /// The companion file's text before the regions' parts (includes, the
  /// types and functions they need), for the regions \p With that have one.
  virtual std::string companionHeader(const std::vector<const Region *> &With) const {
    (void)With;
    return "";
  }
};

/// The companion file of \p E: its header and the part of every region of
/// \p Regions that has one; empty when none has.
std::string companionFile(const VariantEmitter &E, const std::vector<Region> &Regions);

/// The emitters of one translation, in the order their code is placed: the
/// CPU variant, then the CUDA variant (\p Cuda) and the OpenMP-offload
/// variant (\p Offload), which take what a region needs on a device from
/// \p Dev.
std::vector<std::unique_ptr<VariantEmitter>> makeVariantEmitters(const DeviceContext &Dev,
                                                                 bool Cuda, bool Offload,
                                                                 bool LineDirectives);

} // namespace hce

#endif
