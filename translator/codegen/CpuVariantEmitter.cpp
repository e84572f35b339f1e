//===- CpuVariantEmitter.cpp - The OpenMP CPU variant ---------------------===//
#include "CpuVariantEmitter.h"
#include "CodeGenUtil.h"
#include "TripCount.h"

#include "clang/Basic/DiagnosticIDs.h"

namespace hce {

namespace {

/// Pieces of the flattened space per chunk: at most this many, each thread
/// of the team the same number of them ...
constexpr int MaxPieces = 4096;
/// ... and at least this many pairs each, where the chunk has enough for
/// every thread: a piece repeats the statements before the inner loop and
/// finds its first pair by a division.
constexpr int MinPiecePairs = 256;

void remark(Diag &D, clang::SourceLocation Loc, const std::string &Msg) {
  clang::DiagnosticsEngine &DE = D.engine();
  DE.Report(Loc, DE.getCustomDiagID(clang::DiagnosticsEngine::Remark, "%0")) << Msg;
}

/// Text placed at its source line (a #line directive and its column), or
/// indented by \p In when line directives are off.
std::string placedText(const PlacedText &T, const std::string &File, bool Lines,
                       const std::string &In) {
  std::string L = lineDirective(T.Line, File, Lines);
  return (L.empty() ? In : L + std::string(T.Column - 1, ' ')) + T.Text + "\n";
}

/// Statements computing `__hce_n1`, the trip count of level \p L as C runs
/// it (InnerLevel::PlainCount: compared in the variable's type), from
/// `__hce_j0` and `__hce_jb`, its first value and bound in that type. The
/// difference of two values of a type of at most 64 bits is exact in
/// uint64_t; a count beyond INT64_MAX (a row that never ends) is clamped.
std::string tripCount(const InnerLevel &L, const std::string &In) {
  std::string S;
  S += In + "const " + L.VarType + " __hce_j0 = (" + L.VarType + ")(" + L.InitText +
       ");\n";
  S += In + "const " + L.VarType + " __hce_jb = (" + L.VarType + ")(" + L.BoundText +
       ");\n";
  S += In + "int64_t __hce_n1 = 0; /* iterations of '" + L.VarName + "' per row */\n";
  bool Le = L.Cmp == "<=";
  S += In + "if (__hce_jb " + (Le ? ">=" : ">") + " __hce_j0) {\n";
  S += In + "  const uint64_t __hce_q = ((uint64_t)__hce_jb - (uint64_t)__hce_j0" +
       (Le ? "" : " - 1") + ") / " + std::to_string(L.Step) + ";\n";
  S +=
      In +
      "  __hce_n1 = __hce_q >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)__hce_q + 1;\n";
  S += In + "}\n";
  return S;
}

} // namespace

void CpuVariantEmitter::planRegion(const RegionInput &In, const Region &R,
                                   clang::ASTContext &Ctx, Diag &D) {
  InnerLoopPlan P = planInnerLoop(In, R, Ctx);
  std::string Why;
  if (!P.Spread)
    Why = P.Why;
  else if (P.StoresOnce) // (a barrier per row in the GPU's block; no such thing here)
    Why = "the statements before the inner loop read '" + P.StoresOnceArray +
          "', which they write";
  else if (!P.Suffix.empty()) // (thread 0 after the row's barrier on the GPU)
    Why = "statements follow the inner loop";
  else if (!P.RowReductions.empty())
    Why = "the inner loop accumulates into '" + P.RowReductions[0].Name +
          "', declared before it";
  else if (!P.Levels[0].Invariant)
    Why = "the bounds of '" + P.Levels[0].VarName + "' change with the outer iteration";
  else if (!P.Levels[0].PlainCount)
    Why = "'" + P.Levels[0].VarName +
          "' is compared in another type than its own (or is narrower than int)";
  else if (P.PrefixCalls)
    Why = "the statements before the inner loop call a function (each piece of a "
          "row would run them)";
  if (In.Verbose) {
    const clang::ForStmt *Loop = regionLoop(In.Next);
    clang::SourceLocation Loc = Loop ? Loop->getBeginLoc() : In.Pragma->HashLoc;
    remark(D, Loc,
           Why.empty()
               ? "the CPU variant runs the outer loop and '" + P.Levels[0].VarName +
                     "' as one parallel space (as collapse(2)): " + P.Why
               : "the CPU variant parallelises the outer loop only: " + Why);
  }
  if (Why.empty())
    Flat[R.Index] = std::move(P);
}

std::string CpuVariantEmitter::outerOnlyLoop(const Region &R) const {
  std::string S;
  // Loop variables declared before their loops: the user's C89 builds.
  S += "  int64_t __hce_k;\n";
  S += "#pragma omp parallel for" + reductionClauses(R) + "\n";
  S += "  for (__hce_k = __hce_lb; __hce_k < __hce_ub; ++__hce_k) {\n";
  for (const PrivateVar &P : R.Privates)
    S += "    " + P.Decl + ";\n";
  S += "    " + R.Loop.VarDecl + " = " + loopVarAt(R.Loop, "__hce_k") + ";\n";
  S += placedText({R.BodyText, R.BodyLine, R.BodyColumn}, R.FileName, LineDirectives,
                  "    ");
  S += "  }\n";
  return S;
}

std::string CpuVariantEmitter::flattenedLoop(const Region &R,
                                             const InnerLoopPlan &P) const {
  const InnerLevel &J = P.Levels[0];
  std::string S;
  S += "  /* The outer loop and '" + J.VarName + "' (line " + std::to_string(J.Line) +
       ") as one space of (row, column) pairs, cut into\n"
       "     equal contiguous pieces (docs/design.md, \"The CPU variant\"). */\n";
  S += tripCount(J, "  ");
  S += "  const int64_t __hce_rows = __hce_ub - __hce_lb;\n";
  S += "  int64_t __hce_tot = -1, __hce_np = __hce_rows; /* -1: one piece per row */\n";
  S += "#ifdef _OPENMP\n";
  S += "  const int64_t __hce_team = omp_get_max_threads() > 0 ? omp_get_max_threads() : "
       "1;\n";
  S += "#else\n";
  S += "  const int64_t __hce_team = 1;\n";
  S += "#endif\n";
  S += "  if (__hce_n1 > 0 && __hce_rows <= INT64_MAX / __hce_n1) {\n";
  S += "    __hce_tot = __hce_rows * __hce_n1;\n";
  S += "    /* as many pieces a thread, of " + std::to_string(MinPiecePairs) +
       " pairs or more where there are enough */\n";
  S += "    int64_t __hce_per = __hce_tot / " + std::to_string(MinPiecePairs) +
       " / __hce_team;\n";
  S += "    if (__hce_per > " + std::to_string(MaxPieces) + " / __hce_team)\n";
  S += "      __hce_per = " + std::to_string(MaxPieces) + " / __hce_team;\n";
  S += "    if (__hce_per < 1)\n      __hce_per = 1;\n";
  S += "    __hce_np = __hce_per * __hce_team < __hce_tot ? __hce_per * __hce_team : "
       "__hce_tot;\n";
  S += "  }\n";
  S += "  int64_t __hce_p;\n";
  S += "#pragma omp parallel for" + reductionClauses(R) + "\n";
  S += "  for (__hce_p = 0; __hce_p < __hce_np; ++__hce_p) {\n";
  S += "    int64_t __hce_r0 = __hce_p, __hce_c0 = 0, __hce_r1 = __hce_p, __hce_c1 = "
       "__hce_n1, __hce_r;\n";
  S += "    if (__hce_tot >= 0) { /* pairs [s, e) */\n";
  S += "      const int64_t __hce_q = __hce_tot / __hce_np, __hce_m = __hce_tot % "
       "__hce_np;\n";
  S += "      const int64_t __hce_s = __hce_p * __hce_q + (__hce_p < __hce_m ? __hce_p : "
       "__hce_m);\n";
  S += "      const int64_t __hce_e = __hce_s + __hce_q + (__hce_p < __hce_m ? 1 : 0);\n";
  S += "      __hce_r0 = __hce_s / __hce_n1;\n";
  S += "      __hce_c0 = __hce_s % __hce_n1;\n";
  S += "      __hce_r1 = __hce_e / __hce_n1;\n";
  S += "      __hce_c1 = __hce_e % __hce_n1;\n";
  S += "    }\n";
  S += "    for (__hce_r = __hce_r0; __hce_r <= __hce_r1; ++__hce_r) {\n";
  S += "      const int64_t __hce_cb = __hce_r == __hce_r0 ? __hce_c0 : 0;\n";
  S += "      const int64_t __hce_ce = __hce_r == __hce_r1 ? __hce_c1 : __hce_n1;\n";
  S += "      if (__hce_tot >= 0 && __hce_cb >= __hce_ce)\n";
  S += "        continue; /* a piece that ends where a row starts */\n";
  for (const PrivateVar &Pv : R.Privates)
    S += "      " + Pv.Decl + ";\n";
  S += "      " + R.Loop.VarDecl + " = " + loopVarAt(R.Loop, "(__hce_lb + __hce_r)") +
       ";\n";
  S += "      {\n";
  S += "        int64_t __hce_c;\n";
  for (const PlacedText &T : P.Prefix)
    S += placedText(T, R.FileName, LineDirectives, "        ");
  S += "        for (__hce_c = __hce_cb; __hce_c < __hce_ce; ++__hce_c) {\n";
  S += "          " + J.VarDecl + " = (" + J.VarType + ")((uint64_t)__hce_j0 + " +
       "(uint64_t)__hce_c * " + std::to_string(J.Step) + "u);\n";
  if (P.Levels.size() == 2) {
    const InnerLevel &K = P.Levels[1];
    std::string L = lineDirective(K.Line, R.FileName, LineDirectives);
    S += L.empty() ? "          " : L;
    S += "for (" + K.VarDecl + " = (" + K.VarType + ")(" + K.InitText + "); " +
         K.VarName + " " + K.Cmp + " (" + K.BoundText + "); " + K.VarName + " += (" +
         K.VarType + ")" + std::to_string(K.Step) + ")\n";
  }
  S += placedText(P.Body, R.FileName, LineDirectives, "          ");
  S += "        }\n";
  S += "      }\n";
  S += "    }\n";
  S += "  }\n";
  return S;
}

std::string CpuVariantEmitter::hostDecls(const Region &R) const {
  std::string S;
  S += "static void " + genName("cpu", R) +
       "(int64_t __hce_lb, int64_t __hce_ub, void *const *__hce_ptrs,\n"
       "    const void *__hce_args, void *__hce_red) {\n";
  S += variantPrologue(R, "  ");
  auto It = Flat.find(R.Index);
  S += It == Flat.end() ? outerOnlyLoop(R) : flattenedLoop(R, It->second);
  S += reductionWriteBack(R, "  ");
  S += "}\n";
  return S;
}

std::string CpuVariantEmitter::fileIncludes() const {
  return Flat.empty() ? "" : "#ifdef _OPENMP\n#include <omp.h>\n#endif\n";
}

std::string CpuVariantEmitter::siteHook(const Region &R) const {
  // cpu_flat tells the runtime that a chunk smaller than the team still
  // uses every thread (eft probes the CPU with one row, not a row a thread).
  return "__hce_r.cpu = " + genName("cpu", R) + ";\n" +
         (Flat.count(R.Index) ? "__hce_r.cpu_flat = 1;\n" : "");
}

} // namespace hce
