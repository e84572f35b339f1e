//===- TaskwaitDirective.h - #pragma hce taskwait ---------------*- C++ -*-===//
//
// `#pragma hce taskwait` becomes `hce_taskwait_or_exit();`. It must be a
// statement of a block inside a function (not the body of an `if`, a loop
// or a label, where one statement would become a different one), and not
// inside a co_exec loop.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_TASKWAITDIRECTIVE_H
#define HCE_TRANSLATOR_TASKWAITDIRECTIVE_H

#include "Diagnostics.h"
#include "PragmaHandler.h"
#include "Region.h"
#include "StmtCollector.h"

#include "clang/AST/ASTContext.h"
#include "clang/Rewrite/Core/Rewriter.h"

#include <vector>

namespace hce {

/// Checks every taskwait record of \p Records against the code (its
/// statements \p Stmts, from collectStmts) and the co_exec \p Regions (their
/// SiteRanges), and adds the rewrites to \p RW. Returns false after
/// reporting errors (or at a record the pragma handler found invalid).
bool translateTaskwaits(const std::vector<PragmaRecord> &Records,
                        const std::vector<StmtSite> &Stmts,
                        const std::vector<Region> &Regions, clang::ASTContext &Ctx,
                        Diag &D, clang::Rewriter &RW);

} // namespace hce

#endif
