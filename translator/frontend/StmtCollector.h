//===- StmtCollector.h - The statements of the main file --------*- C++ -*-===//
//
// One pass over the translation unit finds every statement (expressions
// included) of the main file, in pre-order, with the top-level declaration
// and the function that hold it. The `#pragma hce` handlers pair each pragma
// with the statement after it and find the block around it from this list:
// co_exec and taskwait (TranslateAction), data and update (DataDirectives).
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_STMTCOLLECTOR_H
#define HCE_TRANSLATOR_STMTCOLLECTOR_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

#include <vector>

namespace hce {

/// A statement of the main file.
struct StmtSite {
  unsigned Offset; ///< file offset of the statement's first character
  const clang::Stmt *S;
  const clang::Decl *Top;          ///< the top-level declaration holding it
  const clang::FunctionDecl *Func; ///< the innermost function holding it, or null
  /// File offset just past the statement (with its ';'; an OpenMP directive
  /// with the statement it applies to); 0 until withEnds() sets it.
  unsigned End = 0;
};

/// Every statement of the main file inside a declaration, in pre-order (an
/// outer statement before those inside it).
std::vector<StmtSite> collectStmts(clang::ASTContext &Ctx);

/// The statements of \p Sites inside a function whose whole text is in the
/// main file, with End set.
std::vector<StmtSite> withEnds(const std::vector<StmtSite> &Sites,
                               clang::ASTContext &Ctx);

/// The first statement of \p Sites starting at or after \p Offset (the
/// outermost of those starting there); null if none.
const StmtSite *firstStmtFrom(const std::vector<StmtSite> &Sites, unsigned Offset);

/// The innermost statement of \p Sites (with End set) whose text holds
/// \p Offset; null if none.
const StmtSite *innermostStmtAt(const std::vector<StmtSite> &Sites, unsigned Offset);

} // namespace hce

#endif
