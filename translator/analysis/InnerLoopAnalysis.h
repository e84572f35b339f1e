//===- InnerLoopAnalysis.h - Can a GPU thread block share a row? -*- C++ -*-===//
//
// The CUDA variant runs one outer (co_exec) iteration per GPU thread unless
// the loop body is, or ends with, an inner canonical `for` loop whose
// iterations are independent. Then the kernel gives each outer iteration to
// a row of a thread block and spreads the inner loop over threadIdx.x (and
// blockIdx.y), so that neighbouring threads touch neighbouring elements.
//
// Independence is decided conservatively, from the AST:
//  - asserted by the user: `collapse(n >= 2)` on an OpenMP loop directive on
//    the co_exec loop, or `#pragma omp simd` / `for` / `parallel for` (and
//    their `simd` combinations) on the inner loop, without safelen,
//    reduction, lastprivate, linear or ordered clauses; or
//  - proved: every element the inner loop nest writes is a mapped array
//    indexed by a polynomial, linear in the loop variables, that is
//    injective in the (flattened) iteration space of the nest (mixed-radix
//    check with symbolic extents), reads of a written array use exactly the
//    written index, no scalar declared outside the inner loop is written
//    other than a region reduction variable in reduction form, no call takes
//    a pointer or reference, no `break`/`goto`.
// Statements before the inner loop (the "prefix") are executed by every
// thread of the row; they may declare locals and write array elements that
// nothing else in the body reads and that the inner loop provably does not
// write (a range check), and must not write outside scalars or call
// variadic functions.
// A prefix that reads an array it stores to (LU's `l = A[i][k] / p;
// A[i][k] = l;`) is spread too when each such store is a statement of its
// own, `a[e] = x;` or `a[e] op= x;`, at the prefix's top level: the kernel
// then gives a row one block and runs the stores once, by its thread 0,
// between two barriers (InnerLoopPlan::StoresOnce).  The CPU variant keeps
// such a loop to its outer level.
// A prefix local that the inner loop only accumulates into (`v op= e`, op
// one of + - *, `v` read nowhere else in the nest) is a row reduction: every
// thread of the row accumulates its share from the operator's identity, the
// block combines the shares, and thread 0 folds them into the prefix's
// value (InnerLoopPlan::RowReductions).  That reassociates the sum, which C
// does not allow for floating point: a floating row reduction needs the
// user's leave, a `reduction` clause naming it on an OpenMP directive on
// the inner loop (as for a CPU compiler's vectorisation).
// Statements after the inner loop (the "suffix") run once per row, by
// thread 0, after a barrier: the row's inner iterations and reductions are
// done, and its prefix locals are thread 0's own.  Both give a row one
// block, as a prefix's stores do; the CPU variant keeps such a loop to its
// outer level.
// A perfectly nested second level whose bounds do not depend on the first
// one is also spread (first level over blockIdx.y, second over threadIdx.x).
//
// The result is plain text, like Region: the CUDA emitter never sees the AST.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_INNERLOOPANALYSIS_H
#define HCE_TRANSLATOR_INNERLOOPANALYSIS_H

#include "Region.h"
#include "RegionBuilder.h"

#include "clang/AST/ASTContext.h"

#include <string>
#include <vector>

namespace hce {

/// One level of the inner nest spread over threads:
/// `for (VarDecl = Init; Var Cmp Bound; Var += Step)`, Step > 0.
struct InnerLevel {
  std::string VarName;
  std::string VarType; ///< printed type ("int")
  std::string VarDecl; ///< "int j"
  std::string InitText;
  std::string BoundText;
  std::string Cmp; ///< "<" or "<="
  int64_t Step = 1;
  unsigned Line = 0; ///< of the `for`
  /// The comparison is made in the variable's own type (at least as wide
  /// as int): the trip count is ceil((bound - init + (<=)) / step) computed
  /// on values of that type, as C runs the loop (the CPU variant's
  /// flattening relies on it).
  bool PlainCount = false;
  /// Init and bound use only literals, enumerators and captured scalars:
  /// they are the same for every outer iteration (a rectangular nest).
  bool Invariant = false;
};

/// A statement of the prefix, verbatim.
struct PlacedText {
  std::string Text;
  unsigned Line = 0;
  unsigned Column = 1;
  /// A prefix statement run once per row, by one thread between barriers
  /// (InnerLoopPlan::StoresOnce).
  bool Once = false;
};

/// A prefix local the inner loop accumulates into (see the file comment).
struct RowReduction {
  std::string Name;
  std::string Type; ///< printed type ("double")
  RedOp Op = RedOp::Add;
};

struct InnerLoopPlan {
  /// True: emit the row-per-block kernel.
  bool Spread = false;
  /// Why (not): one line, for a comment in the generated .cu.
  std::string Why;
  std::vector<PlacedText> Prefix;
  std::vector<InnerLevel> Levels; ///< 1 or 2, outermost first
  PlacedText Body;                ///< body of the innermost level
  /// The launcher can compute the levels' trip counts from the captured
  /// scalars alone (to size the block and the grid).
  bool HostExtents = false;
  /// The prefix calls a function (running it once per piece of a row, as
  /// the CPU variant's flattening would, could repeat a side effect).
  bool PrefixCalls = false;
  /// The prefix reads StoresOnceArray, which it stores to: a row is one
  /// block (no blockIdx.y), and its Once statements run in thread 0
  /// between __syncthreads() (every thread's reads before, after them).
  bool StoresOnce = false;
  std::string StoresOnceArray;
  /// Row reductions and the statements after the inner loop, run by
  /// thread 0 once the row's block has combined its shares.
  std::vector<RowReduction> RowReductions;
  std::vector<PlacedText> Suffix;

  /// A row is exactly one block (the launcher's __hce_by and __hce_gy 1):
  /// the kernel has barriers or block-wide combining per row.
  bool oneBlockPerRow() const {
    return StoresOnce || !RowReductions.empty() || !Suffix.empty();
  }
};

/// Decides the kernel shape for region \p R built from \p In.
InnerLoopPlan planInnerLoop(const RegionInput &In, const Region &R,
                            clang::ASTContext &Ctx);

} // namespace hce

#endif
