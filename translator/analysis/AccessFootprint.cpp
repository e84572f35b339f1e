//===- AccessFootprint.cpp - Per-iteration footprint from the body --------===//
#include "AccessFootprint.h"
#include "ClauseLexer.h"
#include "SourceText.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

using namespace clang;

namespace hce {

namespace {

/// Deeper expressions are not analysed (no footprint): keeps the recursive
/// walks below bounded on adversarial input.
constexpr unsigned MaxDepth = 200;

enum class Use { Read, Write, ReadWrite, Escape };

struct Access {
  const Expr *Node = nullptr;
  std::vector<const Expr *> Subscripts; ///< outermost dimension first
  Use How = Use::Escape;
  /// A plain `A[...] = e;` that is a statement of the body's top level.
  bool TopLevelAssign = false;
};

/// Every use of one array in the body.
class AccessCollector : public RecursiveASTVisitor<AccessCollector> {
public:
  AccessCollector(const VarDecl *Array, const Stmt *Body, ASTContext &Ctx)
      : Array(Array), Body(Body), Ctx(Ctx) {}

  std::vector<Access> Accesses;
  unsigned Refs = 0;    ///< DeclRefExprs naming the array
  unsigned Counted = 0; ///< of those, the roots of element accesses
  bool OuterContinue = false;
  bool Goto = false;

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl() == Array)
      ++Refs;
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    if (Inner.count(E))
      return true;
    std::vector<const Expr *> Subs;
    const Expr *Cur = E;
    while (const auto *AS = dyn_cast<ArraySubscriptExpr>(Cur)) {
      Subs.push_back(AS->getIdx());
      if (AS != E)
        Inner.insert(AS);
      Cur = AS->getBase()->IgnoreParenImpCasts();
    }
    const auto *Root = dyn_cast<DeclRefExpr>(Cur);
    if (!Root || Root->getDecl() != Array)
      return true;
    ++Counted;
    Access A;
    A.Node = E;
    A.Subscripts.assign(Subs.rbegin(), Subs.rend());
    classify(A);
    Accesses.push_back(A);
    return true;
  }
  bool VisitContinueStmt(ContinueStmt *) {
    if (LoopDepth == 0)
      OuterContinue = true;
    return true;
  }
  bool VisitGotoStmt(GotoStmt *) {
    Goto = true;
    return true;
  }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *) {
    Goto = true;
    return true;
  }
  bool TraverseForStmt(ForStmt *S) {
    return nested([&] { return RecursiveASTVisitor::TraverseForStmt(S); });
  }
  bool TraverseWhileStmt(WhileStmt *S) {
    return nested([&] { return RecursiveASTVisitor::TraverseWhileStmt(S); });
  }
  bool TraverseDoStmt(DoStmt *S) {
    return nested([&] { return RecursiveASTVisitor::TraverseDoStmt(S); });
  }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    return nested([&] { return RecursiveASTVisitor::TraverseCXXForRangeStmt(S); });
  }

private:
  const VarDecl *Array;
  const Stmt *Body;
  ASTContext &Ctx;
  std::set<const ArraySubscriptExpr *> Inner;
  int LoopDepth = 0;

  template <typename F> bool nested(F Fn) {
    ++LoopDepth;
    bool R = Fn();
    --LoopDepth;
    return R;
  }

  const Stmt *parentOf(const Stmt *S) {
    DynTypedNodeList P = Ctx.getParents(*S);
    return P.empty() ? nullptr : P[0].get<Stmt>();
  }

  /// How the element is used: read (an rvalue), written by an assignment,
  /// read and written (compound assignment, ++/--), or anything else (its
  /// address taken, bound to a reference, passed as a row): an escape.
  void classify(Access &A) {
    const Expr *Cur = A.Node;
    bool Direct = true;
    for (;;) {
      const Stmt *P = parentOf(Cur);
      if (const auto *PE = dyn_cast_or_null<ParenExpr>(P)) {
        Cur = PE;
        continue;
      }
      if (const auto *ME = dyn_cast_or_null<MemberExpr>(P);
          ME && !ME->isArrow() && ME->getBase() == Cur) {
        Cur = ME;
        Direct = false;
        continue;
      }
      if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P)) {
        if (IC->getCastKind() == CK_LValueToRValue) {
          A.How = Use::Read;
          return;
        }
        if (IC->getCastKind() == CK_ArrayToPointerDecay)
          if (const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(parentOf(IC));
              AS && AS->getBase() == IC) {
            Cur = AS; // an array member of the element: A[i].v[2]
            Direct = false;
            continue;
          }
        A.How = Use::Escape;
        return;
      }
      if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
          BO && BO->isAssignmentOp() && BO->getLHS() == Cur) {
        A.How = BO->getOpcode() == BO_Assign ? Use::Write : Use::ReadWrite;
        if (BO->getOpcode() == BO_Assign && Direct) {
          const Stmt *Stmt = parentOf(BO);
          A.TopLevelAssign = BO == Body || Stmt == Body;
        }
        return;
      }
      if (const auto *UO = dyn_cast_or_null<UnaryOperator>(P);
          UO && UO->isIncrementDecrementOp()) {
        A.How = Use::ReadWrite;
        return;
      }
      A.How = Use::Escape;
      return;
    }
  }
};

/// A subscript as `Core + Offset` with Core affine in the loop variable.
struct Linear {
  std::optional<int64_t> Coef; ///< coefficient of the loop variable if known
};

class AffineForm {
public:
  AffineForm(const VarDecl *LoopVar, const SiteInvariantVar &Invariant, ASTContext &Ctx)
      : LoopVar(LoopVar), Invariant(Invariant), Ctx(Ctx) {}

  /// True when \p E can be evaluated at the loop site to the value it has
  /// in every iteration: literals, enumerators, site-invariant variables,
  /// and operators without side effects over them.
  bool invariant(const Expr *E, unsigned Depth = 0) const {
    if (!E || Depth > MaxDepth)
      return false;
    E = E->IgnoreParens();
    if (isa<IntegerLiteral>(E) || isa<CharacterLiteral>(E) || isa<FloatingLiteral>(E))
      return true;
    if (const auto *DR = dyn_cast<DeclRefExpr>(E)) {
      if (isa<EnumConstantDecl>(DR->getDecl()))
        return true;
      const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
      return VD && VD != LoopVar && Invariant(VD);
    }
    if (const auto *C = dyn_cast<CastExpr>(E))
      return (isa<ImplicitCastExpr>(C) || isa<CStyleCastExpr>(C)) &&
             invariant(C->getSubExpr(), Depth + 1);
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      return (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus ||
              U->getOpcode() == UO_Not || U->getOpcode() == UO_LNot) &&
             invariant(U->getSubExpr(), Depth + 1);
    if (const auto *B = dyn_cast<BinaryOperator>(E))
      return !B->isAssignmentOp() && B->getOpcode() != BO_Comma &&
             invariant(B->getLHS(), Depth + 1) && invariant(B->getRHS(), Depth + 1);
    if (const auto *C = dyn_cast<ConditionalOperator>(E))
      return invariant(C->getCond(), Depth + 1) &&
             invariant(C->getTrueExpr(), Depth + 1) &&
             invariant(C->getFalseExpr(), Depth + 1);
    if (const auto *S = dyn_cast<UnaryExprOrTypeTraitExpr>(E))
      return S->isArgumentType();
    return false;
  }

  /// \p E as an affine function of the loop variable (it must use it), or
  /// nullopt.
  std::optional<Linear> affine(const Expr *E, unsigned Depth = 0) const {
    if (!E || Depth > MaxDepth)
      return std::nullopt;
    E = E->IgnoreParens();
    if (const auto *DR = dyn_cast<DeclRefExpr>(E))
      if (DR->getDecl() == LoopVar)
        return Linear{1};
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      // Only widening integer conversions keep the function affine.
      if (!isa<ImplicitCastExpr>(C) && !isa<CStyleCastExpr>(C))
        return std::nullopt;
      QualType To = C->getType(), From = C->getSubExpr()->getType();
      if (C->getCastKind() == CK_LValueToRValue || C->getCastKind() == CK_NoOp)
        return affine(C->getSubExpr(), Depth + 1);
      if (!To->isIntegerType() || !From->isIntegerType() ||
          Ctx.getTypeSize(To) < Ctx.getTypeSize(From))
        return std::nullopt;
      return affine(C->getSubExpr(), Depth + 1);
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() == UO_Plus)
        return affine(U->getSubExpr(), Depth + 1);
      if (U->getOpcode() == UO_Minus) {
        std::optional<Linear> L = affine(U->getSubExpr(), Depth + 1);
        if (L && L->Coef)
          L->Coef = -*L->Coef;
        return L;
      }
      return std::nullopt;
    }
    const auto *B = dyn_cast<BinaryOperator>(E);
    if (!B)
      return std::nullopt;
    const Expr *LHS = B->getLHS(), *RHS = B->getRHS();
    bool LUses = refersTo(LHS, LoopVar), RUses = refersTo(RHS, LoopVar);
    switch (B->getOpcode()) {
    case BO_Add:
    case BO_Sub: {
      if (LUses && RUses) {
        std::optional<Linear> L = affine(LHS, Depth + 1);
        std::optional<Linear> R = affine(RHS, Depth + 1);
        if (!L || !R)
          return std::nullopt;
        Linear Out;
        if (L->Coef && R->Coef)
          Out.Coef = B->getOpcode() == BO_Add ? *L->Coef + *R->Coef : *L->Coef - *R->Coef;
        return Out;
      }
      const Expr *V = LUses ? LHS : RHS, *K = LUses ? RHS : LHS;
      if (!invariant(K, Depth + 1))
        return std::nullopt;
      std::optional<Linear> L = affine(V, Depth + 1);
      if (L && L->Coef && !LUses && B->getOpcode() == BO_Sub)
        L->Coef = -*L->Coef; // K - V
      return L;
    }
    case BO_Mul: {
      if (LUses == RUses)
        return std::nullopt;
      const Expr *V = LUses ? LHS : RHS, *K = LUses ? RHS : LHS;
      if (!invariant(K, Depth + 1))
        return std::nullopt;
      std::optional<Linear> L = affine(V, Depth + 1);
      if (!L)
        return std::nullopt;
      std::optional<llvm::APSInt> KV = K->getIntegerConstantExpr(Ctx);
      if (L->Coef && KV && KV->getSignificantBits() <= 32)
        L->Coef = *L->Coef * KV->getExtValue();
      else
        L->Coef.reset();
      return L;
    }
    default: return std::nullopt;
    }
  }

private:
  const VarDecl *LoopVar;
  const SiteInvariantVar &Invariant;
  ASTContext &Ctx;
};

std::string normalised(const std::string &Text) {
  std::vector<ClauseToken> Toks = lexClauseText(Text);
  return joinTokens(Toks, 0, Toks.size());
}

/// Splits `core + k` / `core - k` / `k + core` (k an integer constant,
/// the operator written in the file, not by a macro) into core and k.
const Expr *peelOffset(const Expr *E, int64_t &Offset, ASTContext &Ctx) {
  Offset = 0;
  for (unsigned Depth = 0; Depth < MaxDepth; ++Depth) {
    const Expr *S = E->IgnoreParenImpCasts();
    const auto *B = dyn_cast<BinaryOperator>(S);
    if (!B || (B->getOpcode() != BO_Add && B->getOpcode() != BO_Sub) ||
        B->getOperatorLoc().isMacroID())
      return E;
    std::optional<llvm::APSInt> R = B->getRHS()->getIntegerConstantExpr(Ctx);
    std::optional<llvm::APSInt> L = B->getOpcode() == BO_Add
                                        ? B->getLHS()->getIntegerConstantExpr(Ctx)
                                        : std::nullopt;
    const Expr *Core = R ? B->getLHS() : L ? B->getRHS() : nullptr;
    const llvm::APSInt *K = R ? &*R : L ? &*L : nullptr;
    if (!Core || K->getSignificantBits() > 32 || Core->getBeginLoc().isMacroID() ||
        Core->getEndLoc().isMacroID())
      return E;
    int64_t V = K->getExtValue();
    Offset += B->getOpcode() == BO_Sub ? -V : V;
    E = Core;
  }
  return E;
}

} // namespace

ArrayAccessSummary summarizeAccesses(const Stmt *Body, const VarDecl *Array,
                                     unsigned Rank, const VarDecl *LoopVar,
                                     const SiteInvariantVar &Invariant, ASTContext &Ctx) {
  ArrayAccessSummary S;
  AccessCollector C(Array, Body, Ctx);
  C.TraverseStmt(const_cast<Stmt *>(Body));
  const std::string Name = Array->getName().str();
  const std::string Var = LoopVar->getName().str();
  auto Fail = [&](std::string Why) {
    S.Why = std::move(Why);
    return S;
  };
  bool AnyLoop = false;
  for (const Access &A : C.Accesses) {
    S.Read |= A.How == Use::Read || A.How == Use::ReadWrite;
    S.Written |= A.How == Use::Write || A.How == Use::ReadWrite;
    for (const Expr *Sub : A.Subscripts)
      AnyLoop |= refersTo(Sub, LoopVar);
  }
  S.Escapes = C.Refs != C.Counted;
  for (const Access &A : C.Accesses)
    S.Escapes |= A.How == Use::Escape || A.Subscripts.size() != Rank;
  if (C.Refs != C.Counted)
    return Fail("'" + Name + "' is used other than by subscripts");
  for (const Access &A : C.Accesses) {
    if (A.How == Use::Escape)
      return Fail("the address of an element of '" + Name + "' is taken or passed on");
    if (A.Subscripts.size() != Rank)
      return Fail("'" + Name + "' is used with " + std::to_string(A.Subscripts.size()) +
                  " subscripts, not " + std::to_string(Rank));
  }
  if (!AnyLoop) {
    S.Invariant = true;
    return S;
  }

  // The dimension that follows the loop variable: the first one that uses
  // it anywhere; every access must use it there.
  unsigned Dim = Rank;
  for (const Access &A : C.Accesses)
    for (unsigned D = 0; D < Rank && D < Dim; ++D)
      if (refersTo(A.Subscripts[D], LoopVar))
        Dim = D;
  AffineForm Form(LoopVar, Invariant, Ctx);
  std::string Core;
  std::optional<int64_t> Coef;
  int64_t Lo = 0, Hi = 0;
  std::set<int64_t> Assigned;
  for (size_t K = 0; K < C.Accesses.size(); ++K) {
    const Access &A = C.Accesses[K];
    const Expr *Sub = A.Subscripts[Dim];
    std::string SubText =
        normalised(sourceText(Sub->getSourceRange(), Ctx).value_or("?"));
    std::string At = Name;
    for (unsigned D = 0; D < Rank; ++D)
      At += D == Dim ? "[" + SubText + "]" : "[...]";
    if (!refersTo(Sub, LoopVar))
      return Fail("'" + At + "' does not follow the loop variable '" + Var + "'");
    int64_t Off = 0;
    const Expr *CoreE = peelOffset(Sub, Off, Ctx);
    std::optional<Linear> L = Form.affine(CoreE);
    std::optional<std::string> CoreText =
        L ? sourceText(CoreE->getSourceRange(), Ctx) : std::nullopt;
    if (!L || !CoreText)
      return Fail("the subscript of '" + At + "' is not affine in '" + Var +
                  "' with values known before the loop");
    std::string T = normalised(*CoreText);
    if (K == 0) {
      Core = T;
      Coef = L->Coef;
      Lo = Hi = Off;
    } else if (T != Core) {
      return Fail("'" + Name + "' is accessed at '" + Core + "' and at '" + T + "'");
    } else {
      Lo = std::min(Lo, Off);
      Hi = std::max(Hi, Off);
    }
    if (A.TopLevelAssign)
      Assigned.insert(Off);
  }
  int64_t Span = Hi - Lo + 1;
  if (S.Written && Span > 1 && (!Coef || (*Coef < Span && -*Coef < Span)))
    return Fail("the elements of '" + Name +
                "' one iteration accesses may overlap those of the next");
  if (Coef && *Coef == 0)
    return Fail("the subscript of '" + Name + "' does not change with '" + Var + "'");
  S.PerIteration = true;
  S.Dim = Dim;
  S.Span = Span;
  std::string Term = lexClauseText(Core).size() == 1 ? Core : "(" + Core + ")";
  S.LoText = Lo == 0  ? Core
             : Lo > 0 ? Term + " + " + std::to_string(Lo)
                      : Term + " - " + std::to_string(-Lo);
  S.FullyWritten = Rank == 1 && S.Written && !S.Read && !C.OuterContinue && !C.Goto &&
                   static_cast<int64_t>(Assigned.size()) == Span;
  return S;
}

RowTableWrite findRowTableWrite(const Stmt *Body, const VarDecl *Table, ASTContext &Ctx) {
  AccessCollector C(Table, Body, Ctx);
  C.TraverseStmt(const_cast<Stmt *>(Body));
  RowTableWrite W;
  for (const Access &A : C.Accesses) {
    if (A.Subscripts.size() != 1 || A.How == Use::Read)
      continue;
    W.Loc = A.Node->getExprLoc();
    W.What = A.How == Use::Write       ? "assigned"
             : A.How == Use::ReadWrite ? "modified"
                                       : "its address taken";
    return W;
  }
  return W;
}

namespace {

bool isRefTo(const Expr *E, const VarDecl *V) {
  const auto *DR = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
  return DR && DR->getDecl() == V;
}

/// `for (j = a; j < b; j++)` (or `int j = a`, `<=`, `++j`, `j += 1`).
struct InnerRange {
  const VarDecl *Var = nullptr;
  const Expr *Init = nullptr;
  const Expr *Bound = nullptr;
  bool LessEq = false;
};

std::optional<InnerRange> innerRange(const ForStmt *F) {
  InnerRange R;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
      DS && DS->isSingleDecl()) {
    if (const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl()); V && V->getInit()) {
      R.Var = V;
      R.Init = V->getInit();
    }
  } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(F->getInit());
             BO && BO->getOpcode() == BO_Assign) {
    if (const auto *DR = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts()))
      R.Var = dyn_cast<VarDecl>(DR->getDecl());
    R.Init = BO->getRHS();
  }
  if (!R.Var || !R.Var->getType()->isIntegerType() || !F->getCond())
    return std::nullopt;
  const auto *C = dyn_cast<BinaryOperator>(F->getCond()->IgnoreParenImpCasts());
  if (!C || (C->getOpcode() != BO_LT && C->getOpcode() != BO_LE) ||
      !isRefTo(C->getLHS(), R.Var))
    return std::nullopt;
  R.Bound = C->getRHS();
  R.LessEq = C->getOpcode() == BO_LE;
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParens() : nullptr;
  bool StepOne = false;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc))
    StepOne = U->isIncrementOp() && isRefTo(U->getSubExpr(), R.Var);
  else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc))
    if (CA->getOpcode() == BO_AddAssign && isRefTo(CA->getLHS(), R.Var))
      if (const auto *One = dyn_cast<IntegerLiteral>(CA->getRHS()->IgnoreParenImpCasts()))
        StepOne = One->getValue() == 1;
  if (!StepOne)
    return std::nullopt;
  return R;
}

/// True when \p S assigns, increments or takes the address of \p V.
bool writesVar(const Stmt *S, const VarDecl *V) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *V = nullptr;
    bool Found = false;
    bool VisitBinaryOperator(BinaryOperator *B) {
      Found |= B->isAssignmentOp() && isRefTo(B->getLHS(), V);
      return !Found;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      Found |= (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
               isRefTo(U->getSubExpr(), V);
      return !Found;
    }
  } F;
  F.V = V;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

} // namespace

RowColumns summarizeRowColumns(const Stmt *Body, const VarDecl *Table,
                               const VarDecl *LoopVar, const SiteInvariantVar &Invariant,
                               ASTContext &Ctx) {
  RowColumns Out;
  const std::string Name = Table->getName().str();
  AccessCollector C(Table, Body, Ctx);
  C.TraverseStmt(const_cast<Stmt *>(Body));
  auto Fail = [&](std::string Why) {
    Out.Why = std::move(Why);
    return Out;
  };
  if (C.Refs != C.Counted)
    return Fail("'" + Name + "' is used other than by subscripts");
  AffineForm Form(LoopVar, Invariant, Ctx);
  // Either every column is an integer constant, or j + k of one inner loop.
  std::optional<int64_t> CMin, CMax;
  std::string InitText, BoundText;
  bool LessEq = false, AnyLoop = false;
  int64_t KMin = 0, KMax = 0;
  for (const Access &A : C.Accesses) {
    if (A.Subscripts.size() != 2)
      return Fail("'" + Name + "' is used with " + std::to_string(A.Subscripts.size()) +
                  " subscript" + (A.Subscripts.size() == 1 ? "" : "s") +
                  ", not as rows[r][c]");
    if (A.How == Use::Escape)
      return Fail("the address of an element of '" + Name + "' is taken or passed on");
    const Expr *Sub = A.Subscripts[1];
    if (std::optional<llvm::APSInt> K = Sub->getIntegerConstantExpr(Ctx);
        K && K->getSignificantBits() <= 32) {
      int64_t V = K->getExtValue();
      CMin = CMin ? std::min(*CMin, V) : V;
      CMax = CMax ? std::max(*CMax, V) : V;
      continue;
    }
    std::string SubText =
        normalised(sourceText(Sub->getSourceRange(), Ctx).value_or("?"));
    int64_t Off = 0;
    const Expr *Core = peelOffset(Sub, Off, Ctx)->IgnoreParenImpCasts();
    const auto *DR = dyn_cast<DeclRefExpr>(Core);
    const auto *J = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    std::optional<InnerRange> R;
    const ForStmt *Loop = nullptr;
    for (const Stmt *S = A.Node; J && S && S != Body;) {
      DynTypedNodeList P = Ctx.getParents(*S);
      S = P.empty() ? nullptr : P[0].get<Stmt>();
      if (const auto *F = dyn_cast_or_null<ForStmt>(S))
        if ((R = innerRange(F)) && R->Var == J) {
          Loop = F;
          break;
        }
    }
    if (!Loop)
      return Fail("the column '" + SubText + "' of '" + Name +
                  "' is not the variable of an inner loop 'for (j = a; j < b; j++)' "
                  "(plus a constant) nor a constant");
    if (!Form.invariant(R->Init) || !Form.invariant(R->Bound))
      return Fail("the bounds of the inner loop of '" + J->getName().str() +
                  "' are not known before the loop");
    if (writesVar(Loop->getBody(), J))
      return Fail("'" + J->getName().str() + "' is modified in its loop");
    std::optional<std::string> IT = sourceText(R->Init->getSourceRange(), Ctx);
    std::optional<std::string> BT = sourceText(R->Bound->getSourceRange(), Ctx);
    if (!IT || !BT)
      return Fail("the bounds of the inner loop of '" + J->getName().str() +
                  "' are written by a macro");
    if (!AnyLoop) {
      InitText = normalised(*IT);
      BoundText = normalised(*BT);
      LessEq = R->LessEq;
      KMin = KMax = Off;
      AnyLoop = true;
    } else if (normalised(*IT) != InitText || normalised(*BT) != BoundText ||
               R->LessEq != LessEq) {
      return Fail("'" + Name + "' is accessed in inner loops of different bounds");
    } else {
      KMin = std::min(KMin, Off);
      KMax = std::max(KMax, Off);
    }
  }
  if (AnyLoop && CMin)
    return Fail("'" + Name + "' is accessed at constant columns and in an inner loop");
  if (!AnyLoop && !CMin)
    return Fail("'" + Name + "' has no element access");
  Out.Ok = true;
  if (!AnyLoop) {
    Out.LoText = std::to_string(*CMin);
    Out.LenText = std::to_string(*CMax - *CMin + 1);
    return Out;
  }
  auto Term = [](const std::string &T) {
    return lexClauseText(T).size() == 1 ? T : "(" + T + ")";
  };
  auto Plus = [](const std::string &T, int64_t K) {
    return K == 0 ? T : T + (K > 0 ? " + " : " - ") + std::to_string(K > 0 ? K : -K);
  };
  int64_t Extra = (LessEq ? 1 : 0) + (KMax - KMin);
  if (InitText.find_first_not_of("0123456789") == std::string::npos &&
      InitText.size() < 10 && (InitText == "0" || InitText[0] != '0')) {
    // A decimal literal start: folded.
    const int64_t Init = std::stoll(InitText);
    Out.LoText = std::to_string(Init + KMin);
    Out.LenText = Plus(Term(BoundText), Extra - Init);
    return Out;
  }
  Out.LoText = KMin == 0 ? InitText : Plus(Term(InitText), KMin);
  Out.LenText = Plus(Term(BoundText) + " - " + Term(InitText), Extra);
  return Out;
}

} // namespace hce
