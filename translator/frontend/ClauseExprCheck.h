//===- ClauseExprCheck.h - Expressions in clauses, checked early -*- C++ -*-===//
//
// Clause expressions (chunk, alpha, section bounds) are kept as text and
// pasted into the generated code; an error in one would surface there. This
// checks them where the user wrote them: no side effects (++, --,
// assignments), balanced brackets, and every name declared (a variable
// visible at the pragma, the loop variable, a macro, or a declaration of
// the file or of the enclosing function).
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_CLAUSEEXPRCHECK_H
#define HCE_TRANSLATOR_CLAUSEEXPRCHECK_H

#include "ClauseParser.h"
#include "Diagnostics.h"
#include "PragmaHandler.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <string>

namespace hce {

/// Reports the first problem of \p E (a clause expression of pragma \p P)
/// at its column and returns false. \p LoopVar may be used in it.
bool checkClauseExpr(const ClauseExpr &E, const std::string &LoopVar,
                     const PragmaRecord &P, const clang::FunctionDecl *Func,
                     clang::ASTContext &Ctx, Diag &D);

} // namespace hce

#endif
