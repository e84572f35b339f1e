//===- MapInference.cpp - Maps the clauses leave to the translator --------===//
#include "MapInference.h"
#include "AffineCheck.h"
#include "ArrayShape.h"
#include "SectionLayout.h"
#include "SourceText.h"

using namespace clang;

namespace hce {

namespace {

/// -v output: a remark (a note is dropped by Clang unless it follows a
/// warning or an error).
void remark(Diag &D, SourceLocation Loc, const std::string &Msg) {
  DiagnosticsEngine &DE = D.engine();
  DE.Report(Loc, DE.getCustomDiagID(DiagnosticsEngine::Remark, "%0")) << Msg;
}

/// "map(tofrom: y[i:1])": a map clause as written, for messages.
std::string mapText(MapKind K, const Section &S) {
  static const char *const Kinds[] = {"alloc", "to", "from", "tofrom"};
  return std::string("map(") + Kinds[static_cast<int>(K)] + ": " + sectionText(S) + ")";
}

bool sectionUsesVar(const Section &S, const std::string &Var) {
  for (const SectionDim &D : S.Dims)
    if (mentionsIdentifier(D.Lo.Text, Var) || mentionsIdentifier(D.Len.Text, Var))
      return true;
  return false;
}

/// \p S with dimension \p F.Dim replaced by the per-iteration footprint
/// `[F.LoText : F.Span]`; the dimensions before it keep their section (all
/// of the dimension where \p S does not give one).
Section footprintSection(const Section &S, const ArrayAccessSummary &F) {
  Section Out = S;
  SectionDim Whole;
  Whole.HasColon = true;
  Whole.Offset = S.Offset;
  while (Out.Dims.size() <= F.Dim)
    Out.Dims.push_back(Whole);
  SectionDim &D = Out.Dims[F.Dim];
  D.Lo.Text = F.LoText;
  D.Lo.Offset = S.Offset;
  D.Len.Text = std::to_string(F.Span);
  D.Len.Offset = S.Offset;
  D.HasColon = true;
  return Out;
}

} // namespace

std::optional<MappedArray>
inferMap(const NonLocalUse &U, const Stmt *Body, const VarDecl *LoopVar,
         const SiteInvariantVar &SiteInvariant, unsigned MapIndex, const PragmaRecord &P,
         ASTContext &Ctx, Diag &D, std::vector<CapturedVar> &Extents, bool Verbose,
         std::string &WhyNot) {
  const VarDecl *VD = U.Var;
  ArrayShape Shape;
  if (!shapeOf(VD, Ctx, Shape, WhyNot))
    return std::nullopt;
  const std::string Var = LoopVar->getName().str();
  ArrayAccessSummary F = summarizeAccesses(
      Body, VD, static_cast<unsigned>(Shape.Dims.size()), LoopVar, SiteInvariant, Ctx);
  Section S;
  S.Name = VD->getName().str();
  SectionLayoutResult Layout;
  ClauseError LayoutErr;
  bool Ok = false;
  if (F.PerIteration) {
    S = footprintSection(S, F);
    Ok = layoutSection(S, Shape.Dims, Var, Layout, LayoutErr);
  }
  if (!Ok) { // the whole array, if its extent is known
    S.Dims.clear();
    Ok = layoutSection(S, Shape.Dims, Var, Layout, LayoutErr);
    F.FullyWritten = false;
  }
  if (!Ok) {
    WhyNot = (F.PerIteration ? LayoutErr.Message
              : F.Invariant  ? "no access to '" + S.Name + "' depends on '" + Var + "'"
                             : F.Why) +
             ", and the extent of '" + S.Name +
             "' is not known, so it cannot be mapped whole";
    return std::nullopt;
  }
  MapKind Kind = F.Escapes || (F.Written && !F.FullyWritten) ? MapKind::ToFrom
                 : F.Written                                 ? MapKind::From
                                                             : MapKind::To;
  MappedArray M;
  M.Name = S.Name;
  M.Kind = Kind;
  M.UsedInBody = true;
  if (!describeSection(S, VD, Var, MapIndex, P, Ctx, D, M, &Extents))
    return std::nullopt;
  std::string Why2;
  if (!isNameableType(Shape.Elem, Ctx, Why2))
    return std::nullopt;
  if (Verbose)
    remark(D, U.FirstUse,
           "'" + S.Name + "' has no map: inferred " + mapText(Kind, S) +
               (S.Dims.empty() && !F.Invariant && !F.Why.empty()
                    ? " (no per-iteration footprint: " + F.Why + ")"
                    : ""));
  return M;
}

Section writtenFootprint(const Section &S, MapKind Kind, const VarDecl *VD,
                         const Stmt *Body, const VarDecl *LoopVar,
                         const SiteInvariantVar &SiteInvariant, const PragmaRecord &P,
                         ASTContext &Ctx, Diag &D, bool Verbose) {
  const std::string Var = LoopVar->getName().str();
  ArrayShape Shape;
  std::string ShapeWhy;
  if (!VD || (Kind != MapKind::From && Kind != MapKind::ToFrom) ||
      sectionUsesVar(S, Var) || !shapeOf(VD, Ctx, Shape, ShapeWhy))
    return S;
  SourceLocation Loc = P.locAt(S.Offset);
  ArrayAccessSummary F = summarizeAccesses(
      Body, VD, static_cast<unsigned>(Shape.Dims.size()), LoopVar, SiteInvariant, Ctx);
  SectionLayoutResult Layout;
  ClauseError LayoutErr;
  Section Derived = footprintSection(S, F);
  if (F.PerIteration && layoutSection(Derived, Shape.Dims, Var, Layout, LayoutErr)) {
    if (Verbose)
      remark(D, Loc,
             "'" + S.Name + "' is written one footprint per iteration: " +
                 mapText(Kind, S) + " is taken as " + mapText(Kind, Derived));
    return Derived;
  }
  if (Verbose)
    remark(D, Loc,
           mapText(Kind, S) +
               " stays a whole-array written map, not a per-iteration "
               "footprint: " +
               (F.PerIteration ? LayoutErr.Message
                : F.Invariant  ? "no write to '" + S.Name + "' depends on '" + Var + "'"
                               : F.Why));
  return S;
}

} // namespace hce
