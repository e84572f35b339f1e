//===- OmpPlacement.h - A co_exec loop among the user's OpenMP --*- C++ -*-===//
//
// People annotate loops that already carry OpenMP, in any of these forms:
//
//   #pragma hce co_exec ...        #pragma omp parallel for ...
//   #pragma omp parallel for ...   #pragma hce co_exec ...
//   for (...)                      for (...)
//
//   #pragma omp parallel private(j) reduction(+: s)
//   {
//     ...
//     #pragma hce co_exec ...      (before or after the `omp for` line)
//     #pragma omp for
//     for (...)
//   }
//
// possibly with preprocessor conditionals between the lines (`#ifdef OPEN`
// ... `#endif`). Given a co_exec pragma and the first statement after it,
// this finds the loop, its OpenMP loop directive (`parallel for`, `for`,
// `simd` and their `simd` forms) and an enclosing `parallel` region, the
// clauses of both that apply to the loop, and what the site replaces:
//   - Loop: the pragmas and the loop;
//   - WholeParallel: the parallel region holds nothing but the loop: the
//     whole region (its team would only wait);
//   - Single: the loop inside a larger parallel region (or an orphaned
//     `omp for`): the site runs under `#pragma omp single` (`nowait` kept),
//     which, like the `omp for` it replaces, one thread of the team runs
//     while the others wait at its barrier.
// Every other line in the replaced text (conditionals, other directives,
// text of inactive #if branches, comments) is kept, in order, before the
// site, so the output preprocesses as the input did.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_OMPPLACEMENT_H
#define HCE_TRANSLATOR_OMPPLACEMENT_H

#include "Diagnostics.h"
#include "PragmaHandler.h"
#include "RegionBuilder.h"
#include "StmtCollector.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hce {

/// Main-file offset ranges [first, second) the preprocessor skipped
/// (inactive #if branches), in order.
using SkippedRanges = std::vector<std::pair<unsigned, unsigned>>;

enum class SiteForm { Loop, WholeParallel, Single };

struct OmpPlacement {
  /// RegionInput::Next, OmpReductions, OmpPrivates, ThreadLocals.
  RegionInput In;
  SiteForm Form = SiteForm::Loop;
  bool NoWait = false; ///< Single: the `omp for` had `nowait`
  /// What the site replaces (from the '#' of the first pragma), up to and
  /// including the newline after it when the statement ends its line.
  clang::CharSourceRange Range;
  unsigned LineAfterSite = 0; ///< first line after Range, 0 if none
  /// The lines of Range that stay: directives other than the replaced
  /// pragmas, inactive text, comments ("" if none).
  std::string Kept;
};

/// True when the text of \p Begin..End of the main file holds nothing but
/// whitespace, comments, preprocessor directive lines and inactive text.
bool onlyDirectivesBetween(unsigned Begin, unsigned End, const SkippedRanges &Skipped,
                           const clang::ASTContext &Ctx);

/// Places co_exec pragma \p P whose next statement is \p Next (from
/// \p Sites); reports errors (the loop cannot be found, unsupported OpenMP
/// directives or clauses) and returns nullopt.
std::optional<OmpPlacement> placeCoExec(const PragmaRecord &P, const StmtSite &Next,
                                        const std::vector<StmtSite> &Sites,
                                        const SkippedRanges &Skipped,
                                        clang::ASTContext &Ctx, Diag &D);

} // namespace hce

#endif
