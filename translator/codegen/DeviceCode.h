//===- DeviceCode.h - What a device companion file needs --------*- C++ -*-===//
//
// The CUDA (.cu) and OpenMP-offload companions are separate translation
// units: the body of a co_exec loop, copied there verbatim, needs the
// input's macros, includes and file-scope types, and every function it calls
// must exist on the device. This analysis, run once per input file, collects
//  - the main file's `#include`, `#define` and `#undef` directives (as the
//    preprocessor saw them, so `#if` is respected), in order;
//  - unless a header of the user's (not a system header) defines something
//    with external linkage (`int calls = 0;`, a non-inline function): then
//    no user header is included, since the companion would define it again
//    ("multiple definition" at link). The user headers' own system
//    includes and macros are replayed instead, and their declarations are
//    taken by need like the main file's (ExpandHeaders);
//  - per region: the file-scope types the loop needs (typedefs, structs,
//    enums declared in the main file, found through the body's expressions
//    and, transitively, through fields), the functions it calls that are
//    defined in the main file (copied to the device, recursively), the const
//    globals those functions read, and whether each kind of device variant
//    is possible at all. A call that cannot run on a device (no body in the
//    translation unit and not a known math function, variadic, through a
//    pointer, C++ methods/templates/lambdas for CUDA) makes the region
//    CPU-only for that kind, with a warning.
// Emitters turn this into text with companionPreamble().
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_DEVICECODE_H
#define HCE_TRANSLATOR_DEVICECODE_H

#include "Diagnostics.h"
#include "Region.h"
#include "RegionBuilder.h"

#include "clang/AST/ASTContext.h"
#include "clang/Lex/Preprocessor.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace hce {

enum class DeviceKind { Cuda, Omp };

/// One piece of file-scope text the companions may replay.
struct ContextItem {
  enum Kind { Directive, Type, ConstVar, FuncProto, FuncDef } K = Directive;
  clang::SourceLocation Loc;   ///< where it starts (ordering)
  clang::FileID File;          ///< the file it is in
  unsigned Offset = 0;         ///< where it starts in that file
  unsigned End = 0;            ///< where it ends (merging nested type declarations)
  unsigned Line = 0;           ///< for #line
  std::string FileName;        ///< for #line; empty: the main file
  std::string Text;            ///< without the trailing newline
  std::string NsOpen, NsClose; ///< C++ namespaces around it
  bool IsStatic = false;       ///< functions: already has internal linkage
};

/// What one region needs, per device kind.
struct RegionDeviceNeeds {
  bool CudaOk = true;
  bool OmpOk = true;
  std::set<unsigned> Items;    ///< indices into DeviceContext::items()
  std::string NsOpen, NsClose; ///< namespaces of the region's declaration
};

class DeviceContext {
public:
  DeviceContext(clang::ASTContext &Ctx, clang::Preprocessor &PP, Diag &D, bool WantCuda,
                bool WantOmp);

  /// Analyses region \p R (built from \p In); may warn.
  void analyzeRegion(const RegionInput &In, const Region &R);

  /// The needs of region \p Index (analysed before).
  const RegionDeviceNeeds &needs(unsigned Index) const;
  bool hasVariant(const Region &R, DeviceKind K) const;

  /// File-scope text for a companion of kind \p K holding \p Regions:
  /// directives, then the needed types, const globals and function copies of
  /// those regions, in source order. Function copies get `__device__`
  /// (CUDA) or `static` inside `#pragma omp declare target` (offload).
  std::string companionPreamble(DeviceKind K, const std::vector<const Region *> &Regions,
                                bool LineDirectives, const std::string &FileName) const;

  /// A suffix that makes the external names of this file's variants unique
  /// in a program of several translated files ("_3fa2b1c0").
  const std::string &linkSuffix() const { return LinkSuffix; }

  /// Whether user headers are replaced by what the regions need from them
  /// (some user header defines a variable or function with external
  /// linkage).
  bool expandsHeaders() const { return ExpandHeaders; }

private:
  struct Verdict {
    bool CudaOk = true, OmpOk = true;
    std::string CudaWhy, OmpWhy;
    clang::SourceLocation CudaLoc, OmpLoc;
    std::set<unsigned> Items;
  };
  clang::ASTContext &Ctx;
  clang::Preprocessor &PP;
  Diag &D;
  bool WantCuda, WantOmp;
  std::vector<ContextItem> Items;
  std::vector<unsigned> DirectiveItems;
  std::map<const void *, int> ItemOf; ///< decl -> item index, -1: none
  std::map<const clang::FunctionDecl *, Verdict> FuncVerdicts;
  std::map<unsigned, RegionDeviceNeeds> Needs;
  std::string LinkSuffix;
  bool ExpandHeaders = false;
  std::set<clang::FileID> UserHeaders; ///< reached from the main file

  friend class DeviceUseVisitor;
  void collectDirectives();
  Verdict analyzeStmt(const clang::Stmt *S, bool InFunctionCopy);
  const Verdict &functionVerdict(const clang::FunctionDecl *Def);
  void addTypeNeeds(clang::QualType T, std::set<unsigned> &Out,
                    std::set<const clang::Type *> &Seen);
  int itemForTypeDecl(const clang::Decl *D);
  int itemForConstVar(const clang::VarDecl *VD);
  std::pair<int, int> itemsForFunction(const clang::FunctionDecl *Def);
  std::string nsOpen(const clang::DeclContext *DC, std::string &Close) const;
  bool inMainFile(clang::SourceLocation L) const;
  /// Declarations at \p L are copied into companions (not included): the
  /// main file, and user headers when ExpandHeaders.
  bool copiedFrom(clang::SourceLocation L) const;
  void findUserHeaders();
  ContextItem itemAt(clang::SourceLocation B, unsigned EndOffset) const;
};

} // namespace hce

#endif
