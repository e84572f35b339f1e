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

/// The section of table of row pointers \p VD the body uses: its rows
/// following the loop variable (`rows[i]`), or the whole table where it is
/// only read and its extent is known; the elements of each row from the
/// inner loop that walks them. Nullopt with \p WhyNot otherwise.
std::optional<Section> inferRowSection(const VarDecl *VD, const ArrayShape &Shape,
                                       const ArrayAccessSummary &F, const Stmt *Body,
                                       const VarDecl *LoopVar,
                                       const SiteInvariantVar &SiteInvariant,
                                       ASTContext &Ctx, std::string &WhyNot) {
  const std::string Name = VD->getName().str(), Var = LoopVar->getName().str();
  // The columns first: a use other than rows[r][c] is said best there.
  RowColumns Cols = summarizeRowColumns(Body, VD, LoopVar, SiteInvariant, Ctx);
  if (!Cols.Ok) {
    WhyNot = Cols.Why;
    return std::nullopt;
  }
  Section S;
  S.Name = Name;
  if (F.PerIteration && F.Dim == 0) {
    S = footprintSection(S, F);
  } else if (!F.Written && !Shape.Dims[0].Value.empty()) {
    SectionDim Whole;
    Whole.HasColon = true;
    S.Dims.push_back(Whole);
  } else {
    WhyNot = "its rows do not follow '" + Var + "': " +
             (F.PerIteration ? "the loop variable selects the column"
              : F.Invariant  ? "no access depends on '" + Var + "'"
                             : F.Why);
    return std::nullopt;
  }
  SectionDim Col;
  Col.HasColon = true;
  Col.Lo.Text = Cols.LoText;
  Col.Len.Text = Cols.LenText;
  S.Dims.push_back(Col);
  return S;
}

} // namespace

std::optional<MappedArray>
inferMap(const NonLocalUse &U, const Stmt *Body, const VarDecl *LoopVar,
         const SiteInvariantVar &SiteInvariant, unsigned MapIndex, const PragmaRecord &P,
         ASTContext &Ctx, Diag &D, std::vector<CapturedVar> &Extents,
         const Preprocessor *PP, bool Verbose, std::string &WhyNot) {
  const VarDecl *VD = U.Var;
  ArrayShape Shape;
  if (!shapeOf(VD, Ctx, Shape, WhyNot, /*AllowRowTable=*/true))
    return std::nullopt;
  const std::string Var = LoopVar->getName().str();
  if (Shape.RowTable) {
    ArrayAccessSummary F = summarizeAccesses(Body, VD, 2, LoopVar, SiteInvariant, Ctx);
    std::optional<Section> S =
        inferRowSection(VD, Shape, F, Body, LoopVar, SiteInvariant, Ctx, WhyNot);
    if (!S)
      return std::nullopt;
    MappedArray M;
    M.Name = S->Name;
    M.Kind = F.Written || F.Escapes ? MapKind::ToFrom : MapKind::To;
    M.UsedInBody = true;
    if (!describeSection(*S, VD, Var, MapIndex, P, Ctx, D, M, &Extents, PP))
      return std::nullopt;
    std::string Why2;
    if (!isNameableType(Shape.Elem, Ctx, Why2))
      return std::nullopt;
    if (Verbose)
      remark(D, U.FirstUse,
             "'" + S->Name + "' has no map: inferred " + mapText(M.Kind, *S));
    return M;
  }
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
  if (!describeSection(S, VD, Var, MapIndex, P, Ctx, D, M, &Extents, PP))
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
                         ASTContext &Ctx, Diag &D, bool Verbose, std::string *WhyNot) {
  const std::string Var = LoopVar->getName().str();
  ArrayShape Shape;
  std::string ShapeWhy;
  if (!VD || (Kind != MapKind::From && Kind != MapKind::ToFrom) ||
      sectionUsesVar(S, Var) ||
      !shapeOf(VD, Ctx, Shape, ShapeWhy, /*AllowRowTable=*/true))
    return S;
  SourceLocation Loc = P.locAt(S.Offset);
  // A table of row pointers: rows[r][c], the rows laid out as a 1-D section.
  const unsigned Rank =
      static_cast<unsigned>(Shape.Dims.size()) + (Shape.RowTable ? 1 : 0);
  ArrayAccessSummary F = summarizeAccesses(Body, VD, Rank, LoopVar, SiteInvariant, Ctx);
  SectionLayoutResult Layout;
  ClauseError LayoutErr;
  Section Derived = footprintSection(S, F);
  Section Laid = Derived;
  if (Shape.RowTable && Laid.Dims.size() > 1)
    Laid.Dims.resize(1);
  if (F.PerIteration && (!Shape.RowTable || F.Dim == 0) &&
      layoutSection(Laid, Shape.Dims, Var, Layout, LayoutErr)) {
    if (Verbose)
      remark(D, Loc,
             "'" + S.Name + "' is written one footprint per iteration: " +
                 mapText(Kind, S) + " is taken as " + mapText(Kind, Derived));
    return Derived;
  }
  std::string Why =
      Shape.RowTable && F.PerIteration && F.Dim != 0
          ? "the loop variable '" + Var + "' selects the column, not the row"
      : F.PerIteration ? LayoutErr.Message
      : F.Invariant    ? "no write to '" + S.Name + "' depends on '" + Var + "'"
                       : F.Why;
  if (WhyNot)
    *WhyNot = Why;
  if (Verbose)
    remark(D, Loc,
           mapText(Kind, S) +
               " stays a whole-array written map, not a per-iteration "
               "footprint: " +
               Why);
  return S;
}

} // namespace hce
