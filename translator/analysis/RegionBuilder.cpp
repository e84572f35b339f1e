//===- RegionBuilder.cpp - From pragma + loop to a Region -----------------===//
#include "RegionBuilder.h"
#include "MapInference.h"
#include "ClauseExprCheck.h"
#include "MacroExpand.h"
#include "AffineCheck.h"
#include "ArrayShape.h"
#include "BodyAnalysis.h"
#include "LoopAnalysis.h"
#include "SourceText.h"

#include "clang/AST/OpenMPClause.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

using namespace clang;

namespace hce {

const ForStmt *regionLoop(const Stmt *Next) {
  if (const auto *F = dyn_cast_or_null<ForStmt>(Next))
    return F;
  if (const auto *Dir = dyn_cast_or_null<OMPLoopDirective>(Next))
    if (const CapturedStmt *CS = Dir->getInnermostCapturedStmt())
      return dyn_cast_or_null<ForStmt>(
          CS->getCapturedStmt()->IgnoreContainers());
  return nullptr;
}

namespace {

bool opFromSpelling(StringRef S, RedOp &Op) {
  static const std::pair<const char *, RedOp> Ops[] = {
      {"+", RedOp::Add},   {"*", RedOp::Mul},   {"min", RedOp::Min},
      {"max", RedOp::Max}, {"&", RedOp::BAnd},  {"|", RedOp::BOr},
      {"^", RedOp::BXor},  {"&&", RedOp::LAnd}, {"||", RedOp::LOr}};
  for (const auto &P : Ops)
    if (S == P.first) {
      Op = P.second;
      return true;
    }
  return false;
}

} // namespace

std::optional<Region> buildRegion(const RegionInput &In, ASTContext &Ctx,
                                  Diag &D) {
  const PragmaRecord &P = *In.Pragma;
  SourceManager &SM = Ctx.getSourceManager();
  Region R;
  R.Index = In.Index;
  R.Clauses = P.Clauses;
  R.IsCXX = Ctx.getLangOpts().CPlusPlus;
  PresumedLoc PL = SM.getPresumedLoc(P.HashLoc);
  R.FileName = PL.getFilename();
  R.PragmaLine = PL.getLine();
  if (R.Clauses.Name)
    R.DisplayName = *R.Clauses.Name;
  else
    R.DisplayName = "\"" + llvm::sys::path::filename(R.FileName).str() + ":" +
                    std::to_string(R.PragmaLine) + "\"";

  // --- the loop -----------------------------------------------------------
  // The loop, possibly under its OpenMP loop directive; the directive's
  // clauses were read by OmpPlacement (In.OmpReductions, In.OmpPrivates).
  const ForStmt *For = regionLoop(In.Next);
  const auto &OmpReductions = In.OmpReductions;
  if (!For) {
    D.error(P.DirectiveLoc,
            "'#pragma hce co_exec' must be followed by a 'for' loop");
    if (In.Next)
      D.note(In.Next->getBeginLoc(), "this statement is not a 'for' loop");
    return std::nullopt;
  }
  if (In.Func && In.Func->isDependentContext()) {
    D.error(P.DirectiveLoc, "co_exec loops in templates are not supported yet");
    return std::nullopt;
  }

  std::optional<CanonicalLoop> L = analyzeLoop(For, Ctx, D);
  if (!L)
    return std::nullopt;
  R.Loop = L->Info;
  const std::string &LoopVar = R.Loop.VarName;

  BodyFacts Facts = analyzeBody(For->getBody(), L->Var, Ctx, D);
  if (!Facts.Ok)
    return std::nullopt;

  bool Ok = true;
  auto Err = [&](SourceLocation Loc, const std::string &Msg) {
    D.error(Loc, Msg);
    Ok = false;
  };

  std::map<std::string, const NonLocalUse *> UseByName;
  for (const NonLocalUse &U : Facts.Uses)
    UseByName[U.Var->getName().str()] = &U;
  auto UseOf = [&](const std::string &N) -> const NonLocalUse * {
    auto It = UseByName.find(N);
    return It == UseByName.end() ? nullptr : It->second;
  };
  auto Nameable = [&](QualType T, const std::string &VarName,
                      SourceLocation Loc) {
    std::string Why;
    if (isNameableType(T, Ctx, Why))
      return true;
    Err(Loc, "cannot capture '" + VarName + "' in a co_exec loop: " + Why);
    return false;
  };

  std::set<std::string> Special; // reduction, private or mapped names

  // --- reductions ---------------------------------------------------------
  auto AddReduction = [&](const std::string &Name, RedOp Op,
                          const std::string &Spelling, SourceLocation Loc,
                          const std::optional<ReductionSection> &Sec) {
    for (const ReductionVar &E : R.Reductions)
      if (E.Name == Name) {
        Err(Loc, "'" + Name + "' appears in more than one reduction");
        return;
      }
    const NonLocalUse *U = UseOf(Name);
    if (!U) {
      D.warning(Loc, "reduction variable '" + Name +
                         "' is not used in the loop; ignored");
      return;
    }
    Special.insert(Name);
    QualType T = U->Var->getType();
    ReductionVar RV;
    RV.Name = Name;
    RV.Op = Op;
    RV.OpSpelling = Spelling;
    if (!T->isReferenceType() && isArrayReduction(T, Sec)) {
      SourceLocation Where;
      if (sectionUsesLoopVar(Sec, LoopVar, Where)) {
        Err(Where, "the section of the array reduction '" + Name +
                       "' must not depend on the loop variable '" + LoopVar + "'");
        return;
      }
      if (!describeArrayReduction(U->Var, Sec, Loc, R.Reductions.size(), In.PP, Ctx,
                                  D, RV, R.Extents)) {
        Ok = false;
        return;
      }
      checkAtomicUses(For->getBody(), U->Var, RV, Ctx);
      R.Reductions.push_back(RV);
      return;
    }
    std::string Enum = reductionTypeEnum(T, Ctx);
    if (Enum.empty() || T->isReferenceType()) {
      Err(Loc, "reduction variable '" + Name + "' has type '" +
                   T.getAsString(printingPolicy(Ctx)) +
                   "'; expected an integer, float or double");
      return;
    }
    if (T.isConstQualified()) {
      Err(Loc, "reduction variable '" + Name + "' is const");
      return;
    }
    Nameable(T, Name, Loc);
    RV.Decl = declString(T.getUnqualifiedType(), Name, Ctx);
    RV.PtrType =
        declString(Ctx.getPointerType(T.getUnqualifiedType()), "", Ctx);
    RV.TypeEnum = Enum;
    R.Reductions.push_back(RV);
  };
  for (const ReductionClause &RC : R.Clauses.Reductions)
    for (const ReductionItem &V : RC.Vars) {
      std::optional<ReductionSection> Sec;
      if (V.Section) {
        Sec.emplace();
        Sec->Lo = V.Section->Lo.Text;
        Sec->Len = V.Section->Len.Text;
        Sec->Loc = P.locAt(V.Section->Offset);
        Sec->LoLoc = V.Section->Lo.empty() ? Sec->Loc : P.locAt(V.Section->Lo.Offset);
        Sec->LenLoc = V.Section->Len.empty() ? Sec->Loc : P.locAt(V.Section->Len.Offset);
      }
      AddReduction(V.Name, RC.Op, RC.OpSpelling, P.locAt(V.Offset), Sec);
    }
  for (const RegionInput::OmpReduction &OR : OmpReductions) {
    std::string Name = OR.Var->getName().str();
    if (Special.count(Name))
      continue; // the hce clause wins
    RedOp Op;
    if (!opFromSpelling(OR.Spelling, Op)) {
      Err(OR.Var->getLocation(), "reduction operator '" + OR.Spelling +
                                     "' of '#pragma omp parallel for' is not "
                                     "supported in a co_exec loop");
      continue;
    }
    AddReduction(Name, Op, OR.Spelling, OR.Section ? OR.Section->Loc : P.DirectiveLoc,
                 OR.Section);
  }

  // --- privates -----------------------------------------------------------
  auto AddPrivate = [&](const std::string &Name, SourceLocation Loc) {
    if (Special.count(Name)) {
      for (const PrivateVar &PV : R.Privates)
        if (PV.Name == Name)
          return;
      Err(Loc, "'" + Name + "' cannot be both private and a reduction");
      return;
    }
    const NonLocalUse *U = UseOf(Name);
    if (!U)
      return; // nothing to privatise
    if (U->Var->getType()->isArrayType() ||
        U->Var->getType()->isReferenceType()) {
      Err(Loc, "private arrays and references are not supported");
      return;
    }
    PrivateVar PV;
    PV.Name = Name;
    Nameable(U->Var->getType(), Name, Loc);
    PV.Decl = declString(U->Var->getType().getUnqualifiedType(), Name, Ctx);
    R.Privates.push_back(PV);
    Special.insert(Name);
  };
  for (const NamedVar &V : R.Clauses.Privates)
    AddPrivate(V.Name, P.locAt(V.Offset));
  for (const VarDecl *VD : In.OmpPrivates)
    AddPrivate(VD->getName().str(), VD->getLocation());
  for (const VarDecl *VD : In.ThreadLocals) // written: one per iteration
    if (const NonLocalUse *U = UseOf(VD->getName().str());
        U && U->Var == VD && U->ScalarWrite.isValid() &&
        !VD->getType()->isArrayType())
      AddPrivate(VD->getName().str(), VD->getLocation());

  // Variables a footprint evaluated at the loop site may use: read, never
  // written in the loop, not private or a reduction.
  std::set<std::string> PerIterationNames;
  for (const PrivateVar &PV : R.Privates)
    PerIterationNames.insert(PV.Name);
  for (const ReductionVar &RV : R.Reductions)
    PerIterationNames.insert(RV.Name);
  SiteInvariantVar SiteInvariant = [&](const VarDecl *VD) {
    const NonLocalUse *U = UseOf(VD->getName().str());
    return U && U->Var == VD && U->ScalarWrite.isInvalid() &&
           !PerIterationNames.count(VD->getName().str()) &&
           !VD->getType()->isArrayType() && !VD->getType()->isPointerType();
  };
  const Stmt *LoopBody = For->getBody();
  // A map of a table of row pointers (HCE_MAP_ROWS): the loop may change
  // the rows' elements, not the table (each device has a table of its
  // own); a written row map gives each iteration rows of its own, since
  // the runtime cannot merge rows that iterations share.
  auto rowMapAllowed = [&](const MappedArray &M, const Section &Written,
                           const NonLocalUse *U, const std::string &NoFootprint,
                           SourceLocation Loc) {
    if (U) {
      RowTableWrite W = findRowTableWrite(LoopBody, U->Var, Ctx);
      if (W.Loc.isValid()) {
        Err(W.Loc, "a row pointer of '" + M.Name + "' is " + W.What +
                       " in the loop: the rows of an array of row pointers can be "
                       "written, not the table (each device has a table of its own)");
        return false;
      }
    }
    if ((M.Kind == MapKind::From || M.Kind == MapKind::ToFrom) && !M.PerIteration) {
      Err(Loc,
          "the written map '" +
              (Written.Name.empty() ? M.SectionText : sectionText(Written)) +
              "' of an array of row pointers is shared by all iterations: give "
              "each iteration rows of its own, e.g. map(" +
              (M.Kind == MapKind::From ? "from" : "tofrom") + ": " + M.Name + "[" +
              LoopVar + "][...])" +
              (U && U->ElementWritten ? ""
                                      : ", or map it 'to' if the loop only reads it"));
      if (!NoFootprint.empty())
        D.note(Loc, "no rows of their own can be derived from the loop: " + NoFootprint);
      return false;
    }
    return true;
  };

  // --- clause expressions, checked where the user wrote them ---------------
  for (const std::optional<ClauseExpr> *E : {&R.Clauses.Chunk, &R.Clauses.Alpha})
    if (*E && !checkClauseExpr(**E, LoopVar, P, In.Func, Ctx, D))
      Ok = false;
  for (const MapClause &MC : R.Clauses.Maps)
    for (const Section &S : MC.Sections)
      for (const SectionDim &Dm : S.Dims)
        for (const ClauseExpr *E : {&Dm.Lo, &Dm.Len})
          if (!E->empty() && !checkClauseExpr(*E, LoopVar, P, In.Func, Ctx, D))
            Ok = false;
  for (const ReductionClause &RC : R.Clauses.Reductions)
    for (const ReductionItem &V : RC.Vars)
      if (V.Section)
        for (const ClauseExpr *E : {&V.Section->Lo, &V.Section->Len})
          if (!E->empty() && !checkClauseExpr(*E, LoopVar, P, In.Func, Ctx, D))
            Ok = false;
  // A start written with a macro (`SQ(i)`): classified as it expands.
  for (const MapClause &MC : R.Clauses.Maps)
    for (const Section &S : MC.Sections)
      for (const SectionDim &Dm : S.Dims) {
        if (Dm.Lo.empty() || !In.PP ||
            classifyAffine(Dm.Lo.Text, LoopVar) != Affinity::Unknown)
          continue;
        std::optional<std::string> X = expandMacros(Dm.Lo.Text, *In.PP);
        std::string Why;
        if (X && classifyAffine(*X, LoopVar, &Why) == Affinity::NonAffine)
          Err(P.locAt(Dm.Lo.Offset),
              "the section start '" + Dm.Lo.Text + "' expands to '" + *X +
                  "', which is not affine in the loop variable '" + LoopVar +
                  "'" + (Why.empty() ? "" : " (" + Why + ")"));
      }
  if (!Ok)
    return std::nullopt;

  // --- maps ---------------------------------------------------------------
  // An array may be named by several maps (a row and a column footprint, a
  // `to` row and a `from` column): each becomes an hce_map of its own, the
  // runtime gives the device the union of their footprints behind one
  // pointer, and the variants bind the name once, from its first map.
  std::set<std::string> WrittenByAMap, Mapped;
  for (const MapClause &MC : R.Clauses.Maps)
    if (MC.Kind == MapKind::From || MC.Kind == MapKind::ToFrom)
      for (const Section &S : MC.Sections)
        WrittenByAMap.insert(S.Name);
  for (const MapClause &MC : R.Clauses.Maps) {
    for (const Section &S : MC.Sections) {
      SourceLocation Loc = P.locAt(S.Offset);
      if (S.Name == LoopVar) {
        Err(Loc, "cannot map the loop variable '" + LoopVar + "'");
        continue;
      }
      const bool Again = Mapped.count(S.Name) != 0;
      if (!Again && Special.count(S.Name)) {
        Err(Loc, "'" + S.Name +
                     "' is a reduction or private variable: it cannot also "
                     "be mapped");
        continue;
      }
      Mapped.insert(S.Name);
      Special.insert(S.Name); // no "not mapped" cascade if rejected below
      MappedArray M;
      M.Name = S.Name;
      M.Kind = MC.Kind;
      M.Always = MC.Always;
      const NonLocalUse *U = UseOf(S.Name);
      const VarDecl *VD = nullptr;
      if (U) {
        VD = U->Var;
        M.UsedInBody = true;
        if (U->PointerWrite.isValid())
          Err(U->PointerWrite, "the mapped pointer '" + S.Name +
                                   "' must not be modified in the loop");
        if (U->ElementWritten && MC.Kind == MapKind::To && !WrittenByAMap.count(S.Name))
          D.warning(Loc, "'" + S.Name +
                             "' is written in the loop but mapped "
                             "'to': its new values will not reach "
                             "the host");
      } else {
        VD = lookupVisibleVar(S.Name, P.HashLoc, In.Func, Ctx);
        if (!VD) {
          Err(Loc, "no variable named '" + S.Name + "' is visible here");
          continue;
        }
        if (!Again)
          D.warning(Loc, "'" + S.Name + "' is mapped but not used in the loop");
      }
      // Only the first map of a name binds it in the variants.
      M.UsedInBody = M.UsedInBody && !Again;
      // `map(tofrom: y[0:n])` with a body writing `y[i]`: as `y[i:1]`.
      Section Used = S;
      std::string NoFootprint;
      if (U && U->ElementWritten)
        Used = writtenFootprint(S, MC.Kind, VD, LoopBody, L->Var, SiteInvariant, P, Ctx,
                                D, In.Verbose, &NoFootprint);
      // Dimensions, footprint (flattened row-major) and the variant's
      // pointer type; VLA extents become captured scalars.
      if (!describeSection(Used, VD, LoopVar, static_cast<unsigned>(R.Maps.size()), P,
                           Ctx, D, M, M.UsedInBody ? &R.Extents : nullptr, In.PP,
                           In.Verbose)) {
        Ok = false;
        continue;
      }
      if (M.UsedInBody) {
        ArrayShape Shape;
        std::string Why;
        if (shapeOf(VD, Ctx, Shape, Why, /*AllowRowTable=*/true))
          Nameable(Shape.Elem, S.Name, Loc);
      }
      if (M.Rows && !rowMapAllowed(M, S, U, NoFootprint, Loc))
        continue;
      R.Maps.push_back(M);
      Special.insert(S.Name);
    }
  }

  // --- everything else the body uses --------------------------------------
  for (const NonLocalUse &U : Facts.Uses) {
    std::string Name = U.Var->getName().str();
    if (Special.count(Name))
      continue;
    QualType T = U.Var->getType();
    if ((T->isPointerType() && !T->isFunctionPointerType()) ||
        T->isArrayType()) {
      std::string WhyNot = "the pointer is modified in the loop";
      if (U.PointerWrite.isInvalid()) {
        std::optional<MappedArray> M =
            inferMap(U, LoopBody, L->Var, SiteInvariant,
                     static_cast<unsigned>(R.Maps.size()), P, Ctx, D,
                     R.Extents, In.PP, In.Verbose, WhyNot);
        if (M && M->Rows && !rowMapAllowed(*M, Section(), &U, "", U.FirstUse))
          continue;
        if (M) {
          R.Maps.push_back(std::move(*M));
          Special.insert(Name);
          continue;
        }
      }
      ArrayShape Shape;
      std::string ShapeWhy;
      const bool Rows =
          shapeOf(U.Var, Ctx, Shape, ShapeWhy, /*AllowRowTable=*/true) && Shape.RowTable;
      Err(U.FirstUse, "'" + Name +
                          "' is used in the co_exec loop but not mapped; add "
                          "it to a map clause, e.g. map(tofrom: " +
                          Name + (Rows ? "[" + LoopVar + "][0:n])" : "[lo:len])"));
      D.note(U.FirstUse, "no map can be inferred for '" + Name + "'" +
                             (Rows ? " (an array of row pointers)" : "") + ": " + WhyNot);
      continue;
    }
    if (U.ScalarWrite.isValid()) {
      Err(U.ScalarWrite,
          "racy write: '" + Name + "' is " +
              (U.ScalarWriteHow == "address taken"
                   ? std::string("shared by all iterations and its address "
                                 "is taken")
                   : "shared by all iterations and " + U.ScalarWriteHow +
                         " here") +
              "; declare it inside the loop or list it in reduction(...) or "
              "private(...)");
      continue;
    }
    if (T->isReferenceType()) {
      Err(U.FirstUse, "reference variable '" + Name +
                          "' cannot be captured by a co_exec loop");
      continue;
    }
    CapturedVar C;
    C.Name = Name;
    if (!Nameable(T, Name, U.FirstUse))
      continue;
    C.Decl = declString(T.getUnqualifiedType(), Name, Ctx);
    C.ConstDecl = declString(T.getUnqualifiedType().withConst(), Name, Ctx);
    R.Captures.push_back(C);
  }
  for (const EnumConstantDecl *EC : Facts.LocalEnumerators) {
    llvm::SmallString<32> Value;
    EC->getInitVal().toString(Value, 10);
    R.Enumerators.push_back({EC->getName().str(), Value.str().str()});
  }
  if (!Ok)
    return std::nullopt;

  // --- nowait / depend(...) -------------------------------------------------
  R.Nowait = R.Clauses.Nowait;
  for (const DependClause &DC : R.Clauses.Depends)
    for (const NamedVar &V : DC.Vars) {
      const VarDecl *VD = lookupVisibleVar(V.Name, P.HashLoc, In.Func, Ctx);
      if (!VD) {
        D.error(P.locAt(V.Offset), "no variable named '" + V.Name + "' is visible here");
        continue;
      }
      // Like OpenMP's depend on the base address: an array or a pointer
      // names the storage it designates, anything else its own address.
      QualType T = VD->getType().getNonReferenceType();
      DependItem Item;
      Item.Name = V.Name;
      Item.Kind = DC.Kind;
      Item.AddrExpr = T->isArrayType() || T->isPointerType()
                          ? "(const void *)(" + V.Name + ")"
                          : "(const void *)&(" + V.Name + ")";
      R.Depends.push_back(Item);
    }
  if (D.hasErrors())
    return std::nullopt;

  // --- texts and places ---------------------------------------------------
  const Stmt *Body = For->getBody();
  CharSourceRange BodyR = stmtFileRange(Body, Ctx);
  std::optional<std::string> BodyT =
      BodyR.isValid() ? rangeText(BodyR, Ctx) : std::nullopt;
  CharSourceRange ForR = stmtFileRange(For, Ctx);
  if (!BodyT || ForR.isInvalid()) {
    D.error(For->getBeginLoc(), "cannot take the source text of this loop "
                                "(does a macro expand to part of it?)");
    return std::nullopt;
  }
  R.BodyText = *BodyT;
  PresumedLoc BodyPL = SM.getPresumedLoc(BodyR.getBegin());
  R.BodyLine = BodyPL.getLine();
  R.BodyColumn = BodyPL.getColumn();

  SourceLocation End = ForR.getEnd();
  {
    bool Invalid = false;
    const char *C = SM.getCharacterData(End, &Invalid);
    unsigned Extra = 0;
    while (!Invalid &&
           (C[Extra] == ' ' || C[Extra] == '\t' || C[Extra] == '\r'))
      ++Extra;
    if (!Invalid && C[Extra] == '\n') {
      R.LineAfterSite = SM.getPresumedLoc(End).getLine() + 1;
      End = End.getLocWithOffset(Extra + 1);
    }
  }
  R.SiteRange = CharSourceRange::getCharRange(P.HashLoc, End);

  SourceLocation Ins = SM.getExpansionLoc(In.TopLevel->getBeginLoc());
  R.InsertLoc = Ins;
  PresumedLoc IPL = SM.getPresumedLoc(Ins);
  R.InsertLine = IPL.getLine();
  R.InsertAtLineStart = IPL.getColumn() == 1;
  return R;
}

} // namespace hce
