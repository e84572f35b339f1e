//===- BodyAnalysis.cpp - What a co_exec loop body uses -------------------===//
#include "BodyAnalysis.h"
#include "JumpCheck.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <map>
#include <set>

using namespace clang;

namespace hce {

namespace {

struct LValuePath {
  const VarDecl *Root = nullptr;
  bool Indirect = false; ///< through a subscript, '*' or '->'
};

LValuePath lvaluePath(const Expr *E) {
  LValuePath P;
  while (E) {
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      E = C->getSubExpr();
    } else if (const auto *M = dyn_cast<MemberExpr>(E)) {
      if (M->isArrow())
        P.Indirect = true;
      E = M->getBase();
    } else if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      P.Indirect = true;
      E = A->getBase();
    } else if (const auto *U = dyn_cast<UnaryOperator>(E);
               U && U->getOpcode() == UO_Deref) {
      P.Indirect = true;
      E = U->getSubExpr();
    } else if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      P.Root = dyn_cast<VarDecl>(D->getDecl());
      return P;
    } else {
      return P;
    }
  }
  return P;
}

bool isArrayLike(QualType T) {
  return (T->isPointerType() && !T->isFunctionPointerType()) ||
         T->isArrayType();
}

class BodyVisitor : public RecursiveASTVisitor<BodyVisitor> {
public:
  BodyVisitor(const VarDecl *LoopVar, Diag &D) : LoopVar(LoopVar), D(D) {}

  BodyFacts Facts;

  bool VisitVarDecl(VarDecl *VD) {
    Locals.insert(VD);
    return true;
  }
  bool VisitEnumConstantDecl(EnumConstantDecl *EC) {
    Locals.insert(EC);
    return true;
  }
  bool VisitCXXThisExpr(CXXThisExpr *E) {
    error(E->getBeginLoc(), "a co_exec loop cannot use 'this' (copy the "
                            "members it needs into local variables)");
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *EC = dyn_cast<EnumConstantDecl>(E->getDecl())) {
      if (EC->getDeclContext()->getRedeclContext()->isFunctionOrMethod() &&
          !Locals.count(EC) && SeenEnumerators.insert(EC).second)
        Facts.LocalEnumerators.push_back(EC);
      return true;
    }
    const auto *VD = dyn_cast<VarDecl>(E->getDecl());
    // (implicit: a clause's helper, as an inner `omp simd reduction`'s
    // `.reduction.lhs`; the clause's own list names the user's variables)
    if (!VD || VD == LoopVar || Locals.count(VD) || VD->isImplicit())
      return true;
    use(VD, E->getLocation());
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      write(B->getLHS(), B->getOperatorLoc(), "written");
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      write(U->getSubExpr(), U->getOperatorLoc(), "modified");
    else if (U->getOpcode() == UO_AddrOf)
      write(U->getSubExpr(), U->getOperatorLoc(), "address taken");
    return true;
  }

private:
  const VarDecl *LoopVar;
  Diag &D;
  std::set<const ValueDecl *> Locals;
  std::set<const EnumConstantDecl *> SeenEnumerators;
  std::map<const VarDecl *, size_t> Index;

  void error(SourceLocation L, const std::string &Msg) {
    D.error(L, Msg);
    Facts.Ok = false;
  }
  NonLocalUse &use(const VarDecl *VD, SourceLocation L) {
    auto It = Index.find(VD);
    if (It != Index.end())
      return Facts.Uses[It->second];
    Index[VD] = Facts.Uses.size();
    NonLocalUse U;
    U.Var = VD;
    U.FirstUse = L;
    Facts.Uses.push_back(U);
    return Facts.Uses.back();
  }
  void write(const Expr *Target, SourceLocation OpLoc, const char *How) {
    LValuePath P = lvaluePath(Target);
    if (!P.Root)
      return;
    if (P.Root == LoopVar) {
      if (!P.Indirect && std::string(How) != "address taken")
        error(OpLoc, "the loop variable '" + LoopVar->getName().str() +
                         "' must not be modified in the loop body");
      return;
    }
    if (Locals.count(P.Root) || P.Root->isImplicit())
      return;
    NonLocalUse &U = use(P.Root, Target->getBeginLoc());
    if (isArrayLike(P.Root->getType())) {
      if (P.Indirect)
        U.ElementWritten = true;
      else if (std::string(How) != "address taken" &&
               U.PointerWrite.isInvalid())
        U.PointerWrite = OpLoc;
      return;
    }
    if (U.ScalarWrite.isInvalid()) {
      U.ScalarWrite = OpLoc;
      U.ScalarWriteHow = How;
    }
  }
};

} // namespace

BodyFacts analyzeBody(const Stmt *Body, const VarDecl *LoopVar, ASTContext & /*Ctx*/,
                      Diag &D) {
  BodyVisitor V(LoopVar, D);
  // `continue` goes on with the co_exec loop; every other jump would leave
  // the variant that runs a chunk of it.
  for (const Jump &J : jumpsOutOf(Body, JumpScope::LoopBody)) {
    D.error(J.Loc, J.Kind == JumpKind::ComputedGoto
                       ? "computed 'goto' is not allowed in a co_exec loop"
                       : jumpSpelling(J.Kind) + " cannot leave a co_exec loop");
    V.Facts.Ok = false;
  }
  V.TraverseStmt(const_cast<Stmt *>(Body));
  return std::move(V.Facts);
}

} // namespace hce
