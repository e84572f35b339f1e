//===- ArrayReduction.h - reduction(OP: hist[lo:len]) -----------*- C++ -*-===//
//
// An array reduction: every chunk gets private elements [lo, lo+len) preset
// to the operator's identity and the runtime combines them element by
// element (hce_reduction::count, docs/runtime-api.md). This checks the
// array, its element type and its section where the user wrote them, and
// decides whether its uses in the body can run on a GPU as atomic updates
// of one device copy.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_ARRAYREDUCTION_H
#define HCE_TRANSLATOR_ARRAYREDUCTION_H

#include "Diagnostics.h"
#include "Region.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Lex/Preprocessor.h"

#include <optional>
#include <string>
#include <vector>

namespace hce {

/// The section of an array reduction as written: `[Lo:Len]` (Lo empty: 0;
/// Len empty: to the end of the array).
struct ReductionSection {
  std::string Lo, Len;
  clang::SourceLocation LoLoc, LenLoc;
  clang::SourceLocation Loc; ///< the '['
};

/// HCE_TYPE_* for a reduction value of type \p T, or empty.
std::string reductionTypeEnum(clang::QualType T, const clang::ASTContext &Ctx);

/// True when \p T is what an array reduction reduces over (an array or a
/// pointer) or \p Sec names a section.
bool isArrayReduction(clang::QualType T, const std::optional<ReductionSection> &Sec);

/// Fills \p RV (already named, with its operator) for the array reduction
/// number \p Index of variable \p VD: types, and the start and length as
/// captured int64_t scalars appended to \p Extents. Reports located errors
/// (not an array, a section outside the array, an unknown length, an
/// element type that cannot be reduced) and returns false.
bool describeArrayReduction(const clang::VarDecl *VD,
                            const std::optional<ReductionSection> &Sec,
                            clang::SourceLocation NameLoc, size_t Index,
                            const clang::Preprocessor *PP, clang::ASTContext &Ctx,
                            Diag &D, ReductionVar &RV,
                            std::vector<CapturedVar> &Extents);

/// True (with \p Where) when the section's start or length uses the loop
/// variable: the section must be the same for every iteration.
bool sectionUsesLoopVar(const std::optional<ReductionSection> &Sec,
                        const std::string &LoopVar, clang::SourceLocation &Where);

/// Sets RV.AtomicWhy / AtomicLoc unless every use of \p VD in \p Body is an
/// update a GPU can do atomically on one shared copy: `a[e] op= v`,
/// `a[e]++` for +, and for operators where a repeated update is harmless
/// (min, max, &, |, &&, ||) also `a[e] = v` and reads of `a[e]`.
void checkAtomicUses(const clang::Stmt *Body, const clang::VarDecl *VD,
                     ReductionVar &RV, clang::ASTContext &Ctx);

} // namespace hce

#endif
