//===- MapInit.h - The statements that fill one hce_map ---------*- C++ -*-===//
//
// A mapped section (MappedArray) becomes the fields of one `hce_map` in the
// generated code: at a co_exec site (SiteEmitter) and in the list of a
// `#pragma hce data` / `update` (DataDirectives). Both write them here.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_MAPINIT_H
#define HCE_TRANSLATOR_MAPINIT_H

#include "Region.h"

#include <string>

namespace hce {

/// Statements, one a line each starting with \p Indent, that set every field
/// of the hce_map \p Entry ("__hce_m[2]") for \p A: name, host, elem_size,
/// kind, scale and offset, len, blocks and stride (adjacent blocks merged
/// into one run at run time), extent, and a row-pointer map's row fields.
/// A per-iteration section (A.PerIteration) takes its scale and offset from
/// `__hce_lo0` and `__hce_lo1`, its start at the loop's first two
/// iterations, which the caller computes before; any other has scale 0.
std::string mapFieldInits(const MappedArray &A, const std::string &Entry,
                          const std::string &Indent);

} // namespace hce

#endif
