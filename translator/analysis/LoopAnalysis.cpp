//===- LoopAnalysis.cpp - Canonical for-loop recognition ------------------===//
#include "LoopAnalysis.h"
#include "SourceText.h"
#include "TripCount.h"

#include "clang/AST/Expr.h"

using namespace clang;

namespace hce {

namespace {

const VarDecl *refVar(const Expr *E) {
  if (!E)
    return nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

const char *const IncrForms =
    "the loop increment must be one of i++, ++i, i--, --i, i += c, i -= c or "
    "i = i + c";

} // namespace

std::optional<CanonicalLoop> analyzeLoop(const ForStmt *F, ASTContext &Ctx,
                                         Diag &D) {
  CanonicalLoop L;
  const Expr *InitE = nullptr;

  // --- init ---------------------------------------------------------------
  const Stmt *Init = F->getInit();
  if (!Init) {
    D.error(F->getBeginLoc(), "a co_exec loop needs an initialisation of its "
                              "loop variable (for (int i = lb; ...))");
    return std::nullopt;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(Init)) {
    if (!DS->isSingleDecl()) {
      D.error(DS->getBeginLoc(), "a co_exec loop must declare exactly one "
                                 "loop variable");
      return std::nullopt;
    }
    const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!VD || !VD->getInit()) {
      D.error(DS->getBeginLoc(),
              "the loop variable must be initialised (for (int i = lb; ...))");
      return std::nullopt;
    }
    L.Var = VD;
    InitE = VD->getInit();
    L.Info.DeclaredInInit = true;
  } else if (const auto *BO = dyn_cast<BinaryOperator>(Init);
             BO && BO->getOpcode() == BO_Assign && refVar(BO->getLHS())) {
    L.Var = refVar(BO->getLHS());
    InitE = BO->getRHS();
    L.Info.DeclaredInInit = false;
  } else {
    D.error(Init->getBeginLoc(),
            "the loop initialisation must declare or assign the loop "
            "variable (for (int i = lb; ...) or for (i = lb; ...))");
    return std::nullopt;
  }
  const VarDecl *V = L.Var;
  QualType VT = V->getType();
  if (!VT->isIntegerType() || VT->isBooleanType() || VT->isEnumeralType()) {
    D.error(V->getLocation(), "the loop variable '" + V->getName().str() +
                                  "' must have an integer type");
    return std::nullopt;
  }
  if (VT.isVolatileQualified()) {
    D.error(V->getLocation(), "the loop variable must not be volatile");
    return std::nullopt;
  }
  L.Info.VarName = V->getName().str();
  L.Info.VarType = declString(VT.getUnqualifiedType(), "", Ctx);
  L.Info.VarDecl = declString(VT.getUnqualifiedType(), L.Info.VarName, Ctx);

  // --- condition ----------------------------------------------------------
  const Expr *Cond = F->getCond();
  const auto *CB =
      Cond ? dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts()) : nullptr;
  if (!CB || !CB->isComparisonOp() || CB->getOpcode() == BO_EQ ||
      CB->getOpcode() == BO_Cmp) {
    D.error(Cond ? Cond->getBeginLoc() : F->getBeginLoc(),
            "the loop condition must compare '" + L.Info.VarName +
                "' with <, <=, >, >= or !=");
    return std::nullopt;
  }
  BinaryOperatorKind Op = CB->getOpcode();
  const Expr *BoundE = nullptr;
  if (refVar(CB->getLHS()) == V) {
    BoundE = CB->getRHS();
  } else if (refVar(CB->getRHS()) == V) {
    BoundE = CB->getLHS();
    switch (Op) { // bound OP i  ==  i OP' bound
    case BO_LT:
      Op = BO_GT;
      break;
    case BO_LE:
      Op = BO_GE;
      break;
    case BO_GT:
      Op = BO_LT;
      break;
    case BO_GE:
      Op = BO_LE;
      break;
    default:
      break;
    }
  } else {
    D.error(CB->getBeginLoc(), "the loop condition must compare the loop "
                               "variable '" +
                                   L.Info.VarName + "' with a bound");
    return std::nullopt;
  }
  if (refersTo(BoundE, V)) {
    D.error(BoundE->getBeginLoc(),
            "the loop bound must not depend on the loop variable");
    return std::nullopt;
  }

  // --- increment ----------------------------------------------------------
  const Expr *Inc = F->getInc();
  const Expr *StepE = nullptr;
  int StepSign = 1; // step = StepSign * StepE, or +-1 when StepE is null
  const Expr *IncS = Inc ? Inc->IgnoreParenImpCasts() : nullptr;
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(IncS);
      UO && UO->isIncrementDecrementOp() && refVar(UO->getSubExpr()) == V) {
    StepSign = UO->isIncrementOp() ? 1 : -1;
  } else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(IncS);
             CA &&
             (CA->getOpcode() == BO_AddAssign ||
              CA->getOpcode() == BO_SubAssign) &&
             refVar(CA->getLHS()) == V) {
    StepE = CA->getRHS();
    StepSign = CA->getOpcode() == BO_AddAssign ? 1 : -1;
  } else if (const auto *AS = dyn_cast_or_null<BinaryOperator>(IncS);
             AS && AS->getOpcode() == BO_Assign && refVar(AS->getLHS()) == V) {
    const auto *R =
        dyn_cast<BinaryOperator>(AS->getRHS()->IgnoreParenImpCasts());
    if (R && R->getOpcode() == BO_Add && refVar(R->getLHS()) == V) {
      StepE = R->getRHS();
    } else if (R && R->getOpcode() == BO_Add && refVar(R->getRHS()) == V) {
      StepE = R->getLHS();
    } else if (R && R->getOpcode() == BO_Sub && refVar(R->getLHS()) == V) {
      StepE = R->getRHS();
      StepSign = -1;
    } else {
      D.error(Inc->getBeginLoc(), IncrForms);
      return std::nullopt;
    }
  } else {
    D.error(Inc ? Inc->getBeginLoc() : F->getBeginLoc(), IncrForms);
    return std::nullopt;
  }
  if (StepE && refersTo(StepE, V)) {
    D.error(StepE->getBeginLoc(),
            "the loop step must not depend on the loop variable");
    return std::nullopt;
  }

  // --- texts --------------------------------------------------------------
  auto Text = [&](const Expr *E) -> std::optional<std::string> {
    auto T = sourceText(E->getSourceRange(), Ctx);
    if (!T)
      D.error(E->getBeginLoc(), "cannot take the source text of this "
                                "expression (is it split across a macro?)");
    return T;
  };
  auto InitT = Text(InitE);
  auto BoundT = Text(BoundE);
  if (!InitT || !BoundT)
    return std::nullopt;
  L.Info.InitText = *InitT;
  L.Info.BoundText = *BoundT;
  if (StepE) {
    auto StepT = Text(StepE);
    if (!StepT)
      return std::nullopt;
    L.Info.StepText = StepSign > 0 ? "(" + *StepT + ")" : "-(" + *StepT + ")";
    Expr::EvalResult ER;
    if (StepE->EvaluateAsInt(ER, Ctx)) {
      llvm::APSInt S = ER.Val.getInt();
      if (S.getSignificantBits() <= 63)
        L.Info.StepConst = StepSign * S.getExtValue();
    }
  } else {
    L.Info.StepConst = StepSign;
    L.Info.StepText = StepSign > 0 ? "1" : "-1";
  }
  if (L.Info.StepConst)
    L.Info.StepText = std::to_string(*L.Info.StepConst);

  // --- direction ----------------------------------------------------------
  SourceLocation IncLoc = Inc->getBeginLoc();
  if (L.Info.StepConst && *L.Info.StepConst == 0) {
    D.error(IncLoc, "the loop step must not be zero");
    return std::nullopt;
  }
  switch (Op) {
  case BO_LT:
  case BO_LE:
    L.Info.Cmp = Op == BO_LT ? "<" : "<=";
    if (L.Info.StepConst && *L.Info.StepConst < 0) {
      D.error(IncLoc, "the loop counts down but its condition uses '" +
                          L.Info.Cmp + "'");
      return std::nullopt;
    }
    break;
  case BO_GT:
  case BO_GE:
    L.Info.Cmp = Op == BO_GT ? ">" : ">=";
    if (L.Info.StepConst && *L.Info.StepConst > 0) {
      D.error(IncLoc,
              "the loop counts up but its condition uses '" + L.Info.Cmp + "'");
      return std::nullopt;
    }
    break;
  case BO_NE:
    L.Info.NotEqual = true;
    if (!L.Info.StepConst ||
        (*L.Info.StepConst != 1 && *L.Info.StepConst != -1)) {
      D.error(IncLoc, "with '!=' in the condition the loop step must be 1 "
                      "or -1");
      return std::nullopt;
    }
    L.Info.Cmp = *L.Info.StepConst > 0 ? "<" : ">";
    break;
  default:
    D.error(CB->getOperatorLoc(), "the loop condition must use <, <=, >, >= "
                                  "or !=");
    return std::nullopt;
  }

  // --- the trip count, as C runs the loop (TripCount) ---------------------
  L.Info.VarBits = static_cast<unsigned>(Ctx.getTypeSize(VT));
  L.Info.VarSigned = VT->isSignedIntegerType();
  L.Info.IntBits = static_cast<unsigned>(Ctx.getTypeSize(Ctx.IntTy));
  QualType CT = BoundE->getType().getUnqualifiedType();
  if (!CT->isIntegerType() || Ctx.getTypeSize(CT) > 64 || L.Info.VarBits > 64) {
    D.error(BoundE->getBeginLoc(), "the loop bound must have an integer type of at most 64 bits");
    return std::nullopt;
  }
  L.Info.CmpType = declString(CT, "", Ctx);
  L.Info.CmpUnsigned = CT->isUnsignedIntegerType();
  L.Info.CmpIsVarType = Ctx.hasSameUnqualifiedType(CT, VT);
  auto Pattern = [](const llvm::APSInt &V) {
    return V.extend(64).getZExtValue(); // sign- or zero-extended
  };
  Expr::EvalResult BoundR, InitR;
  if (BoundE->EvaluateAsInt(BoundR, Ctx)) {
    uint64_t B = Pattern(BoundR.Val.getInt());
    if (std::optional<std::string> Why = conditionAlwaysTrue(L.Info, B)) {
      D.error(CB->getOperatorLoc(), *Why);
      return std::nullopt;
    }
    if (InitE->EvaluateAsInt(InitR, Ctx) && L.Info.StepConst) {
      std::string Why;
      if (!constantTripCount(L.Info, Pattern(InitR.Val.getInt()), B, *L.Info.StepConst, Why)) {
        D.error(CB->getOperatorLoc(), Why);
        return std::nullopt;
      }
    }
  }
  return L;
}

} // namespace hce
