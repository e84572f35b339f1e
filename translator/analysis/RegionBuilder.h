//===- RegionBuilder.h - From pragma + loop to a Region ---------*- C++ -*-===//
//
// Combines a parsed `#pragma hce co_exec`, the statement that follows it and
// the analyses of the loop and its body into a Region, checking the clauses
// against the code (every array used is mapped, no racy writes, affine
// footprints, reduction types).
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_REGIONBUILDER_H
#define HCE_TRANSLATOR_REGIONBUILDER_H

#include "Diagnostics.h"
#include "PragmaHandler.h"
#include "ArrayReduction.h"
#include "Region.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "clang/Lex/Preprocessor.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hce {

struct RegionInput {
  const PragmaRecord *Pragma = nullptr;
  const clang::Stmt *Next = nullptr;     ///< first statement after the pragma
  const clang::Decl *TopLevel = nullptr; ///< file-scope decl holding it
  const clang::FunctionDecl *Func = nullptr; ///< function holding it
  unsigned Index = 0;
  /// -v: say, as notes, which footprints were derived or inferred.
  bool Verbose = false;
  /// The preprocessor, for macros in clause expressions (may be null).
  const clang::Preprocessor *PP = nullptr;
  /// OpenMP clauses that apply to the loop (its loop directive's and an
  /// enclosing parallel region's; see OmpPlacement): reductions with their
  /// OpenMP operator spelling, and private variables.
  struct OmpReduction {
    std::string Spelling;
    const clang::VarDecl *Var = nullptr;
    std::optional<ReductionSection> Section; ///< `hist[lo:len]`
  };
  std::vector<OmpReduction> OmpReductions;
  std::vector<const clang::VarDecl *> OmpPrivates;
  /// Variables declared inside an enclosing parallel region (one per thread
  /// there): private to each iteration when the loop writes them.
  std::vector<const clang::VarDecl *> ThreadLocals;
};

/// Builds the Region, or reports errors and returns nullopt.
std::optional<Region> buildRegion(const RegionInput &In, clang::ASTContext &Ctx,
                                  Diag &D);

/// The loop statement a region covers (to detect nesting), or null.
const clang::ForStmt *regionLoop(const clang::Stmt *Next);

} // namespace hce

#endif
