//===- Region.h - An analysed co_exec region --------------------*- C++ -*-===//
//
// Everything the emitters need to know about one `#pragma hce co_exec` loop,
// as plain text and numbers: the emitters never look at the AST.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_REGION_H
#define HCE_TRANSLATOR_REGION_H

#include "ClauseParser.h"

#include "clang/Basic/SourceLocation.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hce {

/// The canonical loop `for (T i = Init; i Cmp Bound; i += Step)`.
struct LoopInfo {
  std::string VarName;
  std::string VarType;        ///< printed type of the induction variable
  std::string VarDecl;        ///< "int i"
  bool DeclaredInInit = true; ///< false: `for (i = ...)` assigns an outer var
  std::string InitText;
  std::string BoundText;
  std::string StepText; ///< signed step as an expression
  std::optional<int64_t> StepConst;
  /// Normalised comparison: "<", "<=", ">", ">=" ("!=" becomes < or >).
  std::string Cmp;
  /// The loop's own comparison was `!=` (it may wrap around, see TripCount).
  bool NotEqual = false;
  /// The variable's type: width in bits, signedness.
  unsigned VarBits = 32;
  bool VarSigned = true;
  /// The type the comparison converts both sides to ("int" for an unsigned
  /// char variable, "unsigned long" for `int i < size_t n`), and whether it
  /// is the variable's own type.
  std::string CmpType;
  bool CmpIsVarType = true;
  bool CmpUnsigned = false;
  /// `int` is this wide: narrower signed types convert back modulo 2^bits.
  unsigned IntBits = 32;
};

/// A scalar read by the body, captured by value in the args struct.
struct CapturedVar {
  std::string Name;
  std::string Decl;      ///< "int N": member of the args struct
  std::string ConstDecl; ///< "const int N": its rebinding in a variant
  /// The value stored at the site; empty: the variable \c Name itself
  /// (extents of variable-length arrays are captured under made-up names).
  std::string Value;
};

/// A variable private to each iteration (private(...) clauses).
struct PrivateVar {
  std::string Name;
  std::string Decl; ///< "int j"
};

/// One mapped array. A multi-dimensional array (`double A[M][N]`, a VLA
/// parameter `double A[n][m]`, `double (*A)[N]`) is described flattened
/// row-major; its variant pointer keeps the array type
/// (`double (*A)[N]`, `double (*A)[__hce_ext_0_1]`).
struct MappedArray {
  std::string Name;
  std::string PtrDecl;     ///< "double *A"; empty if unused in body
  std::string PtrType;     ///< "double *"
  bool UsedInBody = false; ///< the variant rebinds it
  MapKind Kind = MapKind::ToFrom;
  bool Always = false;
  /// Section start and length as expressions. LoText uses the loop variable
  /// when PerIteration.
  std::string LoText;
  std::string LenText;
  bool PerIteration = false;
  /// Equally spaced blocks (a section partial in an inner dimension):
  /// `BlocksText` intervals of `LenText` elements, `StrideText` apart.
  std::string BlocksText = "1";
  std::string StrideText = "0";
  /// Number of dimensions (1 for pointers and 1-D arrays).
  unsigned Rank = 1;
  /// Extents of dimensions 1..Rank-1 as the variants name them: a number,
  /// or the name of an entry of Region::Extents (VLA extents).
  std::vector<std::string> InnerExtents;
  /// The section as written ("A[i-1:3][0:N]"), for comments.
  std::string SectionText;
  /// Elements of the whole array as an expression at the site when its type
  /// says (a declared array, VLAs included); empty for pointers.  The
  /// runtime clamps footprints to it and rejects sections outside it.
  std::string ExtentText;
  /// An array of row pointers (`float **rows`, each row allocated apart;
  /// `map(to: rows[i][c0:n])`): HCE_MAP_ROWS. The layout fields above count
  /// rows (the section of the table); every row moves its elements
  /// [RowOffsetText, RowOffsetText + RowLenText). The variants bind the
  /// name as a table of row pointers (PtrDecl "float **rows").
  bool Rows = false;
  std::string RowOffsetText;
  std::string RowLenText;
  /// Site code (unindented lines, run after the map's fields are set) that
  /// ors HCE_MAP_WRITES_ALL into its kind when the writes WriteCoverage
  /// found cover the footprint; empty when there is no such proof.
  std::string WritesAllCheck;
};

struct ReductionVar {
  std::string Name;
  std::string Decl;    ///< "double sum"
  std::string PtrType; ///< "double *"
  RedOp Op = RedOp::Add;
  std::string OpSpelling; ///< OpenMP spelling for the omp reduction clause
  std::string TypeEnum;   ///< HCE_TYPE_* (of the elements of an array)
  /// An array reduction `hist[lo:len]`: Decl is "int *hist", PtrType
  /// "int *"; the start and the length are int64_t members of the args
  /// struct named LoArg and LenArg (entries of Region::Extents).
  bool IsArray = false;
  std::string LoArg, LenArg;
  /// `(int64_t)N` when the array's extent is known (bounds checked at the
  /// site), else empty.
  std::string ExtentText;
  /// Empty when every use of the array in the body can run as an atomic
  /// update of one device copy (CUDA); else why not, and where.
  std::string AtomicWhy;
  clang::SourceLocation AtomicLoc;
  /// The length when it is a constant: OpenMP offload reduces array
  /// sections of constant length only (clang: "requires a variable length
  /// array" otherwise).
  std::optional<int64_t> LenConst;
  clang::SourceLocation Loc; ///< where the reduction is named
};

/// One item of a depend(...) clause: the address the runtime compares.
struct DependItem {
  std::string Name;
  DependKind Kind = DependKind::In;
  std::string AddrExpr; ///< `(const void *)A` for arrays and pointers, else `&x`
};

/// An enumerator of a function-local enum, re-declared in the variants.
struct LocalEnumerator {
  std::string Name;
  std::string Value;
};

struct Region {
  unsigned Index = 0;
  std::string FileName;    ///< as given on the command line (#line)
  std::string DisplayName; ///< C string literal for hce_region.name
  unsigned PragmaLine = 0;
  ClauseSet Clauses;
  LoopInfo Loop;
  std::vector<CapturedVar> Captures;
  /// Runtime extents of variable-length mapped arrays: int64_t members of the
  /// args struct (Value holds the expression evaluated at the site), bound
  /// in the variants before the mapped pointers that use them.
  std::vector<CapturedVar> Extents;
  std::vector<LocalEnumerator> Enumerators;
  std::vector<PrivateVar> Privates;
  std::vector<MappedArray> Maps;
  std::vector<ReductionVar> Reductions;
  /// `nowait`: submitted with hce_co_exec_nowait, with these dependences.
  bool Nowait = false;
  std::vector<DependItem> Depends;
  std::string BodyText; ///< verbatim source of the loop body
  unsigned BodyLine = 0;
  unsigned BodyColumn = 1;
  bool IsCXX = false;

  /// Where the site block goes: from the pragma's '#' to the end of the loop.
  clang::CharSourceRange SiteRange;
  /// Line of the first line after the loop (for #line), 0 if the loop does
  /// not end its line.
  unsigned LineAfterSite = 0;
  /// Where file-scope code goes: before the top-level declaration that holds
  /// the loop.
  clang::SourceLocation InsertLoc;
  unsigned InsertLine = 0;
  bool InsertAtLineStart = false;
};

} // namespace hce

#endif
