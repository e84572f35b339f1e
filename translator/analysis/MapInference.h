//===- MapInference.h - Maps the clauses leave to the translator -*- C++ -*-===//
//
// Two places where the translator works out a footprint from the loop body
// (AccessFootprint) instead of taking the clause text as it is:
//  - a written map whose section does not use the loop variable
//    (`map(tofrom: y[0:n])`, the usual OpenMP spelling) while the body
//    writes one footprint per iteration (`y[i]`): it becomes that footprint
//    (`y[i:1]`); otherwise it stays a whole-array written map;
//  - an array the body uses that no clause maps: an inferred map.
// With -v each decision is reported as a note.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_MAPINFERENCE_H
#define HCE_TRANSLATOR_MAPINFERENCE_H

#include "AccessFootprint.h"
#include "BodyAnalysis.h"
#include "ClauseParser.h"
#include "Diagnostics.h"
#include "PragmaHandler.h"
#include "Region.h"

#include "clang/Lex/Preprocessor.h"

#include <optional>
#include <vector>

namespace hce {

/// The section to lay out for map \p S (kind \p Kind) of \p VD, which the
/// loop body writes: \p S itself, or its per-iteration footprint derived
/// from \p Body when \p S does not use the loop variable \p LoopVar. When
/// it stays \p S, \p WhyNot (if given) says why no footprint was derived.
/// A table of row pointers (`rows[0:m][0:n]`) keeps its row section: only
/// the rows become per-iteration (`rows[i:1][0:n]`).
Section writtenFootprint(const Section &S, MapKind Kind, const clang::VarDecl *VD,
                         const clang::Stmt *Body, const clang::VarDecl *LoopVar,
                         const SiteInvariantVar &SiteInvariant, const PragmaRecord &P,
                         clang::ASTContext &Ctx, Diag &D, bool Verbose,
                         std::string *WhyNot = nullptr);

/// A map for array \p U that no clause maps: the per-iteration footprint of
/// its accesses, or the whole array where they do not follow the loop
/// variable and its extent is known. Read only: `to`; written: `tofrom`,
/// or `from` where each iteration assigns all of its footprint and reads
/// none of it. A table of row pointers (`float **rows`) gets a row map
/// (`rows[i:1][a:b-a]`, the columns from the inner loop that walks them). Nullopt
/// (nothing reported, \p WhyNot says why) when it cannot be described. \p MapIndex names
/// VLA extents, appended to \p Extents; \p PP expands macros in lengths
/// (describeSection).
std::optional<MappedArray>
inferMap(const NonLocalUse &U, const clang::Stmt *Body, const clang::VarDecl *LoopVar,
         const SiteInvariantVar &SiteInvariant, unsigned MapIndex, const PragmaRecord &P,
         clang::ASTContext &Ctx, Diag &D, std::vector<CapturedVar> &Extents,
         const clang::Preprocessor *PP, bool Verbose, std::string &WhyNot);

} // namespace hce

#endif
