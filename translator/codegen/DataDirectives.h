//===- DataDirectives.h - #pragma hce data / update -------------*- C++ -*-===//
//
// `#pragma hce data map(...)` before a statement (a block, a loop, or
// another hce pragma) becomes
//     { hce_map __hce_dmN[n]; ...; hce_data_begin(n, __hce_dmN);
//       <the statement> hce_data_end(); }
// with every jump out of (or into) the statement rejected, since it would
// skip hce_data_end (or hce_data_begin). `#pragma hce update to(...)
// from(...)` becomes a block calling hce_update(n, maps, 1) for the `to`
// list and hce_update(n, maps, 0) for the `from` list; an array may have
// several sections in one list (one hce_map each), not be in both. Sections
// are whole (scale 0): evaluated once, where the directive is.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_DATADIRECTIVES_H
#define HCE_TRANSLATOR_DATADIRECTIVES_H

#include "Diagnostics.h"
#include "PragmaHandler.h"
#include "Region.h"
#include "StmtCollector.h"

#include "clang/AST/ASTContext.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Rewrite/Core/Rewriter.h"

#include <vector>

namespace hce {

/// Checks every data/update record of \p Records against the code (its
/// statements \p Stmts, from collectStmts) and the co_exec \p Regions
/// (already rewritten into \p RW or about to be: their SiteRanges are
/// used), and adds the rewrites to \p RW. Returns false after reporting
/// errors.
bool translateDataDirectives(const std::vector<PragmaRecord> &Records,
                             const std::vector<StmtSite> &Stmts,
                             const std::vector<Region> &Regions, clang::ASTContext &Ctx,
                             const clang::Preprocessor &PP, Diag &D, clang::Rewriter &RW,
                             bool LineDirectives);

} // namespace hce

#endif
