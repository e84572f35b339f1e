//===- WriteCoverage.h - Does each iteration write its whole footprint? -*- C++ -*-===//
//
// A `map(from: ...)` section starts, on a device, from the current values of
// its footprint (an upload) unless the map carries HCE_MAP_WRITES_ALL: the
// promise that every iteration writes every element of its own footprint,
// so that nothing a device leaves alone comes home as garbage
// (docs/data-layer.md). This analysis finds the writes that back that
// promise; it is conservative (any doubt: no flag).
//
// The proof is in two halves:
//  - here, on the AST: the body assigns the array (plain `=`, full rank) at
//    an index affine in the loop variable and in the variables of the
//    counted `for` loops around the assignment, and that assignment runs in
//    every iteration for every value of those counters: it sits in the body
//    and in the bodies of those loops, not under an `if`, `?:`, `switch` or
//    another loop; the body has no `break`, `continue`, `goto` or `return`;
//    the counted loops are `for (T j = a; j < / <= b; j += c)`, c > 0, with
//    a and b made of literals, enumerators and captured scalars, compared in
//    T, and j not written in the body; the array is never read, nor used
//    other than as the target of those assignments; indices use no macro,
//    no call, no memory, and no unsigned arithmetic narrower than 64 bits
//    (which would wrap);
//  - at the loop site, in the generated code: the writes' element sets,
//    evaluated with the actual values (base, and per counter its stride and
//    trip count), must be exactly the map's footprint
//    (`__hce_writes_cover`); only then is the flag or-ed into the map's kind.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_WRITECOVERAGE_H
#define HCE_TRANSLATOR_WRITECOVERAGE_H

#include "Diagnostics.h"
#include "Region.h"
#include "RegionBuilder.h"

#include "clang/AST/ASTContext.h"

#include <string>

namespace hce {

/// For every `from` map of \p R that the body provably writes in full,
/// sets MappedArray::WritesAllCheck to the site code that sets the flag
/// when the writes cover the footprint. With \p Verbose, a remark per
/// `from` map says which writes back the flag, or why there is none.
void proveWriteCoverage(const RegionInput &In, Region &R, clang::ASTContext &Ctx, Diag &D,
                        bool Verbose);

/// File-scope code: `__hce_writes_cover` (once per file, guarded), when
/// some map of \p R has a check; "" otherwise.
std::string writesCoverDecl(const Region &R);

} // namespace hce

#endif
