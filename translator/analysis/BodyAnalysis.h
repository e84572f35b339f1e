//===- BodyAnalysis.h - What a co_exec loop body uses -----------*- C++ -*-===//
//
// Walks the body of a co_exec loop and collects every variable declared
// outside it, how it is used (read, written directly, written through as an
// array), and reports constructs that cannot be co-executed: jumps out of
// the body (JumpCheck), writes to the loop variable, `this`.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_BODYANALYSIS_H
#define HCE_TRANSLATOR_BODYANALYSIS_H

#include "Diagnostics.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

#include <vector>

namespace hce {

struct NonLocalUse {
  const clang::VarDecl *Var = nullptr;
  clang::SourceLocation FirstUse;
  /// A write to the variable's own storage (x = ..., x++, s.f = ...,
  /// &x taken); invalid if none.
  clang::SourceLocation ScalarWrite;
  std::string ScalarWriteHow; ///< "written", "modified", "address taken"
  /// For pointers/arrays: an assignment to the pointer itself (A = ..., A++).
  clang::SourceLocation PointerWrite;
  /// For pointers/arrays: some element is written (A[i] = ...).
  bool ElementWritten = false;
};

struct BodyFacts {
  std::vector<NonLocalUse> Uses; ///< in order of first use
  /// Enumerators declared inside the enclosing function (invisible at file
  /// scope, where the variants live), in order of first use.
  std::vector<const clang::EnumConstantDecl *> LocalEnumerators;
  bool Ok = true; ///< no error reported
};

/// Analyses \p Body of a loop whose induction variable is \p LoopVar.
BodyFacts analyzeBody(const clang::Stmt *Body, const clang::VarDecl *LoopVar,
                      clang::ASTContext &Ctx, Diag &D);

} // namespace hce

#endif
