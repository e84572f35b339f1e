//===- SectionLayout.h - Array sections flattened into hce_map --*- C++ -*-===//
//
// Turns an OpenMP array section of a (possibly multi-dimensional) array into
// the fields of an hce_map: the section covers, in elements of the array
// flattened row-major, the intervals
//     [offset + b*stride, offset + b*stride + len)   for b in [0, blocks)
// where offset may use the loop variable (the per-iteration footprint).
// Pure function of texts (no Clang): fuzzable and unit-testable.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_SECTIONLAYOUT_H
#define HCE_TRANSLATOR_SECTIONLAYOUT_H

#include "ClauseParser.h"

#include <string>
#include <string_view>
#include <vector>

namespace hce {

/// One dimension of the mapped array, outermost first.
struct ArrayDim {
  /// Expression for the extent at the loop site ("64", "(int64_t)(sizeof
  /// ((A)[0]) / sizeof((A)[0][0]))"); empty when unknown (the first dimension
  /// of a pointer or of an incomplete array).
  std::string Value;
  /// Texts that denote the whole extent in a section length ("64", "N").
  std::vector<std::string> Spellings;
};

struct SectionLayoutResult {
  std::string OffsetText; ///< first element; uses the loop var if PerIteration
  std::string LenText;    ///< elements per block
  std::string BlocksText = "1";
  std::string StrideText = "0";
  bool PerIteration = false;
  /// Dimensions taken in part that were widened to whole ones so that one
  /// level of blocks describes the section (a superset of it).
  std::vector<size_t> Widened;
};

/// Lays out section \p S of an array whose dimensions are \p Dims (at least
/// one). \p LoopVar is the loop variable (empty: none, as in data regions).
/// On error fills \p Err (Offset is a byte offset of the clause text) and
/// returns false.
bool layoutSection(const Section &S, const std::vector<ArrayDim> &Dims,
                   std::string_view LoopVar, SectionLayoutResult &Out, ClauseError &Err);

} // namespace hce

#endif
