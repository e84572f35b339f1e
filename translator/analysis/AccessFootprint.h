//===- AccessFootprint.h - Per-iteration footprint from the body -*- C++ -*-===//
//
// Derives, from the element accesses a loop body makes to one array, the
// per-iteration footprint of that array: the section iteration `i` touches.
// Used where a map does not say it (`map(tofrom: y[0:n])` with a body
// writing `y[i]` behaves as `map(tofrom: y[i:1])`) and where there is no map
// at all (an inferred map).
//
// Derived only when it is exact and safe: every use of the array is an
// element access `A[s0]...[sK-1]` of full rank (read, or written by an
// assignment or ++/--); in one dimension d every subscript is `c*i + b + k`
// with the same `c*i + b` (affine in the loop variable, evaluable at the
// loop site) and integer constants k; the other dimensions do not decide
// which iteration owns an element. When the array is written, the
// footprints of two iterations are disjoint (span of the k's <= |c|).
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_ACCESSFOOTPRINT_H
#define HCE_TRANSLATOR_ACCESSFOOTPRINT_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

#include <cstdint>
#include <functional>
#include <string>

namespace hce {

/// What the body does with one array.
struct ArrayAccessSummary {
  bool Read = false;
  bool Written = false;
  /// No access depends on the loop variable (all iterations touch the same
  /// elements, or the array is indexed by inner-loop variables only).
  bool Invariant = false;
  /// A per-iteration footprint was derived (the fields below are set).
  bool PerIteration = false;
  unsigned Dim = 0;   ///< the dimension that follows the loop variable
  std::string LoText; ///< its start; uses the loop variable
  int64_t Span = 1;   ///< elements of that dimension per iteration
  /// Every element of the footprint is assigned (plain '=') by every
  /// iteration before anything else and never read: map(from:) suffices.
  /// Only for rank-1 footprints.
  bool FullyWritten = false;
  /// Some use is not an element read or write (address taken, passed
  /// on, used without all its subscripts): what happens to it is unknown.
  bool Escapes = false;
  /// Why no footprint was derived (when !PerIteration && !Invariant).
  std::string Why;
};

/// True when a variable declared outside the body may appear in a footprint
/// expression evaluated at the loop site: it has the same value there as in
/// every iteration (not written in the loop, not private or a reduction).
using SiteInvariantVar = std::function<bool(const clang::VarDecl *)>;

/// Analyses the accesses of \p Body (the loop body, loop variable
/// \p LoopVar) to the array \p Array of \p Rank dimensions.
ArrayAccessSummary summarizeAccesses(const clang::Stmt *Body, const clang::VarDecl *Array,
                                     unsigned Rank, const clang::VarDecl *LoopVar,
                                     const SiteInvariantVar &Invariant,
                                     clang::ASTContext &Ctx);

/// A use of a table of row pointers (`float **rows`) that changes the
/// table, not the rows: `rows[k] = p`, `rows[k]++`, `&rows[k]`. Invalid
/// when there is none.
struct RowTableWrite {
  clang::SourceLocation Loc;
  std::string What; ///< "assigned", "modified", "its address taken"
};
RowTableWrite findRowTableWrite(const clang::Stmt *Body, const clang::VarDecl *Table,
                                clang::ASTContext &Ctx);

/// The elements of each row a loop body touches in a table of row pointers
/// `rows`, when every access `rows[r][c]` has a column `c` that is `j + k`,
/// with `j` the variable of an inner loop `for (j = a; j < b; j++)` (or
/// `<=`, `++j`, `j += 1`) of the body whose bounds are known at the loop
/// site and that nothing else writes, the same a and b for every access,
/// and k an integer constant; or every column an integer constant.
struct RowColumns {
  bool Ok = false;
  std::string LoText;  ///< first element of each row
  std::string LenText; ///< elements of each row
  std::string Why;     ///< when !Ok
};
RowColumns summarizeRowColumns(const clang::Stmt *Body, const clang::VarDecl *Table,
                               const clang::VarDecl *LoopVar,
                               const SiteInvariantVar &Invariant, clang::ASTContext &Ctx);

} // namespace hce

#endif
