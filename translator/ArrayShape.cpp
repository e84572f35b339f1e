//===- ArrayShape.cpp - Dimensions of a mapped variable -------------------===//
#include "ArrayShape.h"
#include "ClauseLexer.h"
#include "SourceText.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace hce {

namespace {

std::string normalised(const std::string &Text) {
  std::vector<ClauseToken> Toks = lexClauseText(Text);
  return joinTokens(Toks, 0, Toks.size());
}

/// Size-expression spellings of the array declarators of \p VD, outermost
/// first ("" for a pointer level or an unspecified size).
std::vector<std::string> spelledDims(const VarDecl *VD, ASTContext &Ctx) {
  std::vector<std::string> Out;
  const TypeSourceInfo *TSI = VD->getTypeSourceInfo();
  if (!TSI)
    return Out;
  TypeLoc TL = TSI->getTypeLoc();
  while (!TL.isNull()) {
    if (auto Q = TL.getAs<QualifiedTypeLoc>()) {
      TL = Q.getUnqualifiedLoc();
    } else if (auto P = TL.getAs<ParenTypeLoc>()) {
      TL = P.getInnerLoc();
    } else if (auto A = TL.getAs<AdjustedTypeLoc>()) {
      TL = A.getOriginalLoc();
    } else if (auto R = TL.getAs<ReferenceTypeLoc>()) {
      TL = R.getPointeeLoc();
    } else if (auto Pt = TL.getAs<PointerTypeLoc>()) {
      Out.push_back("");
      TL = Pt.getPointeeLoc();
    } else if (auto Ar = TL.getAs<ArrayTypeLoc>()) {
      std::string S;
      if (const Expr *E = Ar.getSizeExpr())
        if (std::optional<std::string> T = sourceText(E->getSourceRange(), Ctx))
          S = normalised(*T);
      Out.push_back(S);
      TL = Ar.getElementLoc();
    } else {
      break;
    }
  }
  return Out;
}

std::string subscripts(const std::string &Name, unsigned Level) {
  std::string S = "(" + Name + ")";
  for (unsigned I = 0; I < Level; ++I)
    S += "[0]";
  return S;
}

} // namespace

bool shapeOf(const VarDecl *VD, ASTContext &Ctx, ArrayShape &Shape,
             std::string &Why) {
  Shape = ArrayShape();
  const std::string Name = VD->getName().str();
  QualType T = VD->getType().getNonReferenceType();
  const QualType Whole = T;
  auto TypeStr = [&]() {
    return Whole.getAsString(printingPolicy(Ctx));
  };
  unsigned Level = 0;
  auto AddArrayDim = [&](const ArrayType *AT) -> bool {
    ArrayDim D;
    bool Var = false;
    if (const auto *CAT = dyn_cast<ConstantArrayType>(AT)) {
      D.Value = std::to_string(CAT->getSize().getZExtValue());
      D.Spellings.push_back(D.Value);
    } else if (isa<VariableArrayType>(AT)) {
      D.Value = "(int64_t)(sizeof(" + subscripts(Name, Level) + ") / sizeof(" +
                subscripts(Name, Level + 1) + "))";
      Var = true;
    } else if (isa<IncompleteArrayType>(AT) && Level == 0) {
      // extern double A[][N]: the first extent is unknown.
    } else {
      Why = "cannot map '" + Name + "' of type '" + TypeStr() +
            "': its dimensions are not known";
      return false;
    }
    Shape.Dims.push_back(D);
    Shape.IsVariable.push_back(Var);
    ++Level;
    return true;
  };
  if (T->isPointerType() && !T->isFunctionPointerType()) {
    Shape.Dims.push_back(ArrayDim());
    Shape.IsVariable.push_back(false);
    ++Level;
    T = T->getPointeeType();
  } else if (const ArrayType *AT = Ctx.getAsArrayType(T)) {
    if (!AddArrayDim(AT))
      return false;
    T = AT->getElementType();
  } else {
    Why = "cannot map '" + Name + "': it is not a pointer or an array";
    return false;
  }
  while (const ArrayType *AT = Ctx.getAsArrayType(T)) {
    if (!AddArrayDim(AT))
      return false;
    T = AT->getElementType();
  }
  if (T->isPointerType() || T->isVoidType() || T->isFunctionType() ||
      T->isReferenceType() || T->isIncompleteType()) {
    Why = "cannot map '" + Name + "' of type '" + TypeStr() +
          "': only arrays of data can be mapped (not of pointers, void or "
          "functions); allocate one contiguous array and map sections of it";
    return false;
  }
  Shape.Elem = T;
  // Spellings of the declared extents ("N" for double A[N][N]).
  std::vector<std::string> Sp = spelledDims(VD, Ctx);
  for (size_t D = 0; D < Shape.Dims.size() && D < Sp.size(); ++D)
    if (!Sp[D].empty() && Sp[D] != Shape.Dims[D].Value)
      Shape.Dims[D].Spellings.push_back(Sp[D]);
  return true;
}

const VarDecl *lookupVisibleVar(StringRef Name, SourceLocation Loc,
                                const FunctionDecl *Func, ASTContext &Ctx) {
  SourceManager &SM = Ctx.getSourceManager();
  Loc = SM.getExpansionLoc(Loc);
  auto Before = [&](SourceLocation L) {
    L = SM.getExpansionLoc(L);
    return L.isValid() && SM.isBeforeInTranslationUnit(L, Loc);
  };
  if (Func && Func->hasBody()) {
    struct Finder : RecursiveASTVisitor<Finder> {
      StringRef Name;
      std::vector<const VarDecl *> Found;
      bool VisitVarDecl(VarDecl *VD) {
        if (VD->getName() == Name && !isa<ParmVarDecl>(VD))
          Found.push_back(VD);
        return true;
      }
    } F;
    F.Name = Name;
    F.TraverseStmt(Func->getBody());
    const VarDecl *Best = nullptr;
    for (const VarDecl *VD : F.Found) {
      if (!Before(VD->getLocation()))
        continue;
      // Its scope: the statement holding its declaration must contain Loc.
      bool InScope = false;
      DynTypedNodeList Parents = Ctx.getParents(*VD);
      if (!Parents.empty())
        if (const auto *DS = Parents[0].get<DeclStmt>()) {
          DynTypedNodeList PP = Ctx.getParents(*DS);
          if (!PP.empty())
            if (const auto *Scope = PP[0].get<Stmt>()) {
              SourceLocation B = SM.getExpansionLoc(Scope->getBeginLoc());
              SourceLocation E = SM.getExpansionLoc(Scope->getEndLoc());
              InScope = !SM.isBeforeInTranslationUnit(Loc, B) &&
                        !SM.isBeforeInTranslationUnit(E, Loc);
            }
        }
      if (InScope && (!Best || SM.isBeforeInTranslationUnit(
                                   Best->getLocation(), VD->getLocation())))
        Best = VD;
    }
    if (Best)
      return Best;
    for (const ParmVarDecl *PV : Func->parameters())
      if (PV->getName() == Name)
        return PV;
  }
  const VarDecl *Best = nullptr;
  std::vector<const DeclContext *> Work{Ctx.getTranslationUnitDecl()};
  while (!Work.empty()) {
    const DeclContext *DC = Work.back();
    Work.pop_back();
    for (const Decl *D : DC->decls()) {
      if (const auto *VD = dyn_cast<VarDecl>(D)) {
        if (VD->getName() == Name && Before(VD->getLocation()))
          Best = VD;
      } else if (isa<LinkageSpecDecl>(D) || isa<NamespaceDecl>(D)) {
        Work.push_back(cast<DeclContext>(D));
      }
    }
  }
  return Best;
}

std::string sectionText(const Section &S) {
  std::string T = S.Name;
  for (const SectionDim &D : S.Dims) {
    T += "[" + D.Lo.Text;
    if (D.HasColon)
      T += ":" + D.Len.Text;
    T += "]";
  }
  for (size_t P; (P = T.find("*/")) != std::string::npos;)
    T.replace(P, 2, "* /");
  return T;
}

bool describeSection(const Section &S, const VarDecl *VD,
                     const std::string &LoopVar, unsigned MapIndex,
                     const PragmaRecord &P, ASTContext &Ctx, Diag &D,
                     MappedArray &M, std::vector<CapturedVar> *Extents) {
  ArrayShape Shape;
  if (VD) {
    std::string Why;
    if (!shapeOf(VD, Ctx, Shape, Why)) {
      D.error(P.locAt(S.Offset), Why);
      return false;
    }
  } else {
    Shape.Dims.push_back(ArrayDim());
    Shape.IsVariable.push_back(false);
  }
  SectionLayoutResult L;
  ClauseError Err;
  if (!layoutSection(S, Shape.Dims, LoopVar, L, Err)) {
    D.error(P.locAt(Err.Offset), Err.Message);
    return false;
  }
  M.LoText = L.OffsetText;
  M.LenText = L.LenText;
  M.BlocksText = L.BlocksText;
  M.StrideText = L.StrideText;
  M.PerIteration = L.PerIteration;
  M.Rank = static_cast<unsigned>(Shape.Dims.size());
  if (M.Rank > 1)
    M.SectionText = sectionText(S);
  M.ExtentText.clear();
  for (const ArrayDim &Dm : Shape.Dims) {
    if (Dm.Value.empty()) { // a pointer, or an incomplete array
      M.ExtentText.clear();
      break;
    }
    M.ExtentText += (M.ExtentText.empty() ? "" : " * ") + ("(int64_t)(" + Dm.Value + ")");
  }
  if (!VD || !Extents)
    return true;

  if (M.Rank == 1) {
    M.PtrDecl = declString(Ctx.getPointerType(Shape.Elem), S.Name, Ctx);
    M.PtrType = declString(Ctx.getPointerType(Shape.Elem), "", Ctx);
    return true;
  }
  std::string Suffix;
  for (unsigned Dm = 1; Dm < M.Rank; ++Dm) {
    std::string E = Shape.Dims[Dm].Value;
    if (Shape.IsVariable[Dm]) {
      CapturedVar C;
      C.Name = "__hce_ext_" + std::to_string(MapIndex) + "_" +
               std::to_string(Dm);
      C.Decl = "int64_t " + C.Name;
      C.ConstDecl = "const int64_t " + C.Name;
      C.Value = E;
      Extents->push_back(C);
      E = C.Name;
    }
    M.InnerExtents.push_back(E);
    Suffix += "[" + E + "]";
  }
  M.PtrDecl = declString(Shape.Elem, "(*" + S.Name + ")" + Suffix, Ctx);
  M.PtrType = declString(Shape.Elem, "(*)" + Suffix, Ctx);
  return true;
}

} // namespace hce
