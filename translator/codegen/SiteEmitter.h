//===- SiteEmitter.h - The code that replaces a co_exec loop ----*- C++ -*-===//
//
// Emits the block that replaces `#pragma hce co_exec` and its loop: it fills
// the args struct, computes the trip count and the affine footprint of every
// mapped section, describes the reductions, fills an hce_region and calls
// hce_co_exec_or_exit.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_SITEEMITTER_H
#define HCE_TRANSLATOR_SITEEMITTER_H

#include "Region.h"
#include "VariantEmitter.h"

#include <string>
#include <vector>

namespace hce {

/// The replacement text for the region's site. \p Indent is the indentation
/// of the pragma line; \p Emitters contribute their site hooks.
std::string emitSite(const Region &R, const std::string &Indent,
                     const std::vector<const VariantEmitter *> &Emitters,
                     bool LineDirectives);

} // namespace hce

#endif
