//===- ClauseParser.h - Clauses of #pragma hce co_exec ----------*- C++ -*-===//
//
// A hand-written parser for the clause list of `#pragma hce co_exec`. It is a
// pure function of the clause text (no Clang or LLVM dependency): it can be
// unit-tested and fuzzed on its own. Expressions inside clauses are kept as
// source text, normalised by joinTokens(); offsets are byte offsets into the
// parsed text so that the caller can turn them into source locations.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_CLAUSEPARSER_H
#define HCE_TRANSLATOR_CLAUSEPARSER_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hce {

/// An expression kept as text.
struct ClauseExpr {
  std::string Text;
  size_t Offset = 0;
  bool empty() const { return Text.empty(); }
};

/// One dimension of an OpenMP array section: `[Lo:Len]`, `[Lo]`, `[:]`.
struct SectionDim {
  ClauseExpr Lo;         ///< empty: omitted (0)
  ClauseExpr Len;        ///< empty with HasColon: to the end of the dimension
  bool HasColon = false; ///< false: `[Lo]`, a single element
  size_t Offset = 0;     ///< of the '['
};

/// `name[...]...` in a map clause.
struct Section {
  std::string Name;
  size_t Offset = 0;
  std::vector<SectionDim> Dims; ///< empty: the whole array
};

/// Values match HCE_MAP_* in <hce/hce.h>.
enum class MapKind { Alloc = 0, To = 1, From = 2, ToFrom = 3 };

struct MapClause {
  MapKind Kind = MapKind::ToFrom;
  bool Always = false;
  std::vector<Section> Sections;
  size_t Offset = 0;
};

/// Values match HCE_RED_* in <hce/hce.h>.
enum class RedOp { Add, Mul, Min, Max, BAnd, BOr, BXor, LAnd, LOr };

struct NamedVar {
  std::string Name;
  size_t Offset = 0;
};

/// One item of a reduction clause: a scalar `x`, or an array reduction
/// `hist[lo:len]` (one dimension; `hist` alone on an array is the whole
/// array, decided later from its type).
struct ReductionItem : NamedVar {
  std::optional<SectionDim> Section;
};

struct ReductionClause {
  RedOp Op = RedOp::Add;
  std::string OpSpelling; ///< as OpenMP spells it: +, *, min, &&, ...
  std::vector<ReductionItem> Vars;
  size_t Offset = 0;
};

/// Values match HCE_DEP_* in <hce/hce.h>.
enum class DependKind { In = 1, Out = 2, InOut = 3 };

/// `depend(in|out|inout: var, ...)` of a nowait region.
struct DependClause {
  DependKind Kind = DependKind::In;
  std::vector<NamedVar> Vars;
  size_t Offset = 0;
};

struct RatioEntry {
  std::string Device; ///< canonical: "cpu", "cuda:1", ...
  std::string Value;  ///< number as written
  size_t Offset = 0;
};

struct ClauseSet {
  std::string Schedule; ///< empty: not given
  size_t ScheduleOffset = 0;
  std::vector<MapClause> Maps;
  std::vector<ReductionClause> Reductions;
  std::vector<NamedVar> Privates;
  std::optional<ClauseExpr> Chunk;
  std::optional<ClauseExpr> Alpha;
  std::vector<std::string> Devices; ///< canonical device names
  std::vector<RatioEntry> Ratios;
  std::string Co;                  ///< none | incremental | pipelined | empty
  std::optional<std::string> Name; ///< string literal, quotes included
  bool Nowait = false;             ///< `nowait`: submitted as a task
  size_t NowaitOffset = 0;
  std::vector<DependClause> Depends;

  /// "cpu,sim:0" or empty.
  std::string devicesString() const;
  /// "cpu=0.3,sim:0=0.7" or empty.
  std::string ratiosString() const;
};

struct ClauseError {
  size_t Offset = 0;
  std::string Message;
};

/// Parses the clauses that follow `co_exec` in `#pragma hce co_exec ...`.
/// Returns false and fills \p Err on the first error.
bool parseCoExecClauses(std::string_view Text, ClauseSet &Out,
                        ClauseError &Err);

/// Parses the clauses of `#pragma hce data`: map(...) clauses only (at
/// least one).
bool parseDataClauses(std::string_view Text, ClauseSet &Out, ClauseError &Err);

/// Parses the clauses of `#pragma hce update`: to(list) and from(list),
/// returned in Out.Maps as MapClauses of kind To and From (at least one).
bool parseUpdateClauses(std::string_view Text, ClauseSet &Out,
                        ClauseError &Err);

/// The value of a clause expression made of integer literals, + - * / %
/// << >>, parentheses and casts such as `(int64_t)` (macros expanded
/// before); nullopt when it is anything else or overflows 64 bits.
std::optional<int64_t> evalConstantClauseExpr(std::string_view Text);

/// The schedule names the runtime knows.
bool isKnownSchedule(std::string_view Name);

} // namespace hce

#endif
