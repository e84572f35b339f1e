//===- LoopAnalysis.h - Canonical for-loop recognition ----------*- C++ -*-===//
//
// Recognises OpenMP's canonical loop form
//   for (T i = init; i OP bound; incr)   OP in < <= > >= !=
// with incr one of i++, ++i, i--, --i, i += c, i -= c, i = i + c, i = c + i,
// i = i - c, and extracts what is needed to compute the normalised trip count
// W and to map normalised k in [0, W) back to i = init + k*step.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_LOOPANALYSIS_H
#define HCE_TRANSLATOR_LOOPANALYSIS_H

#include "Diagnostics.h"
#include "Region.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

namespace hce {

struct CanonicalLoop {
  LoopInfo Info;
  const clang::VarDecl *Var = nullptr;
};

/// Analyses \p F; reports an error through \p D and returns nullopt when the
/// loop is not canonical.
std::optional<CanonicalLoop> analyzeLoop(const clang::ForStmt *F,
                                         clang::ASTContext &Ctx, Diag &D);

} // namespace hce

#endif
