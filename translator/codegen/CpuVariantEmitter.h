//===- CpuVariantEmitter.h - The OpenMP CPU variant -------------*- C++ -*-===//
//
// Emits `static void __hce_cpu_N(lb, ub, ptrs, args, red)`: the loop body
// under OpenMP over normalised iterations [lb, ub).
//
// A chunk may have fewer outer iterations than the team has threads (a
// scheduler's probe of a few rows). When the body is, or ends with, an inner
// loop whose iterations are independent (InnerLoopAnalysis) and whose bounds
// are the same for every outer iteration, the variant flattens the outer
// loop and that inner loop into one space of (row, column) pairs, as
// `collapse(2)` would, and gives the team equal contiguous pieces of it:
// every thread works on a chunk of one row; each thread gets as many pieces
// as the others, of 256 pairs or more where the chunk has that many (a
// piece runs the statements before the inner loop again: thousands of
// one-column pieces of one row all wrote its first element, 0.3 ms for a
// row of jacobi2d on 15 threads). Unlike `collapse(2)` it finds a
// piece's first row and column by one division per piece, not per
// iteration, so a memory-bound loop runs as fast as the outer-only form.
// Otherwise the outer loop alone is `parallel for`.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_CPUVARIANTEMITTER_H
#define HCE_TRANSLATOR_CPUVARIANTEMITTER_H

#include "Diagnostics.h"
#include "InnerLoopAnalysis.h"
#include "RegionBuilder.h"
#include "VariantEmitter.h"

#include <map>
#include <string>

namespace hce {

class CpuVariantEmitter : public VariantEmitter {
public:
  explicit CpuVariantEmitter(bool LineDirectives) : LineDirectives(LineDirectives) {}
  /// Decides whether region \p R's nest is flattened; with In.Verbose says
  /// so (or why not) as a remark at the loop.
  void planRegion(const RegionInput &In, const Region &R, clang::ASTContext &Ctx,
                  Diag &D) override;
  /// <omp.h> (under _OPENMP) when a region is flattened: its pieces are
  /// counted from the team's size.
  std::string fileIncludes() const override;
  std::string hostDecls(const Region &R) const override;
  std::string siteHook(const Region &R) const override;

private:
  bool LineDirectives;
  /// Regions whose nest is flattened: the plan (Levels[0] is flattened).
  std::map<unsigned, InnerLoopPlan> Flat;

  std::string outerOnlyLoop(const Region &R) const;
  std::string flattenedLoop(const Region &R, const InnerLoopPlan &P) const;
};

} // namespace hce

#endif
