//===- InnerLoopAnalysis.cpp - Can a GPU thread block share a row? --------===//
#include "InnerLoopAnalysis.h"
#include "SourceText.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

using namespace clang;

namespace hce {

namespace {

//===----------------------------------------------------------------------===//
// Polynomials with integer coefficients over atoms (variables, extents).
//===----------------------------------------------------------------------===//

using Atom = const void *;
using Mono = std::vector<Atom>; // sorted, with multiplicity

struct Poly {
  std::map<Mono, int64_t> T;

  static Poly constant(int64_t V) {
    Poly P;
    if (V)
      P.T[{}] = V;
    return P;
  }
  static Poly atom(Atom A) {
    Poly P;
    P.T[{A}] = 1;
    return P;
  }
  Poly operator+(const Poly &O) const {
    Poly R = *this;
    for (const auto &[M, C] : O.T)
      if ((R.T[M] += C) == 0)
        R.T.erase(M);
    return R;
  }
  Poly operator-(const Poly &O) const { return *this + O * constant(-1); }
  Poly operator*(const Poly &O) const {
    Poly R;
    for (const auto &[M1, C1] : T)
      for (const auto &[M2, C2] : O.T) {
        Mono M = M1;
        M.insert(M.end(), M2.begin(), M2.end());
        std::sort(M.begin(), M.end());
        if ((R.T[M] += C1 * C2) == 0)
          R.T.erase(M);
      }
    return R;
  }
  bool operator==(const Poly &O) const { return T == O.T; }
  std::optional<int64_t> constValue() const {
    if (T.empty())
      return 0;
    if (T.size() == 1 && T.begin()->first.empty())
      return T.begin()->second;
    return std::nullopt;
  }
  bool mentions(Atom A) const {
    for (const auto &[M, C] : T)
      if (std::find(M.begin(), M.end(), A) != M.end())
        return true;
    return false;
  }
  /// The coefficient of \p A when the polynomial is linear in it (every
  /// monomial holds A at most once); nullopt otherwise.
  std::optional<Poly> coefficient(Atom A) const {
    Poly R;
    for (const auto &[M, C] : T) {
      auto N = std::count(M.begin(), M.end(), A);
      if (N > 1)
        return std::nullopt;
      if (N == 1) {
        Mono Rest = M;
        Rest.erase(std::find(Rest.begin(), Rest.end(), A));
        R.T[Rest] += C;
      }
    }
    return R;
  }
};

const VarDecl *refVar(const Expr *E) {
  if (!E)
    return nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

/// `for (T v = init; v < / <= bound; v++ / v += c)`, c > 0 constant.
struct LevelHeader {
  const VarDecl *Var = nullptr;
  const Expr *Init = nullptr, *Bound = nullptr;
  bool LessEq = false;
  int64_t Step = 1;
  bool PlainCount = false; ///< see InnerLevel::PlainCount
};

std::optional<LevelHeader> parseHeader(const ForStmt *F, ASTContext &Ctx,
                                       std::string &Why) {
  LevelHeader H;
  const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
  const VarDecl *V =
      DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
  if (!V || !V->getInit()) {
    Why = "the inner loop does not declare and initialise one loop variable";
    return std::nullopt;
  }
  QualType VT = V->getType();
  if (!VT->isIntegerType() || VT->isBooleanType() || VT->isEnumeralType() ||
      VT.isVolatileQualified()) {
    Why = "the inner loop variable is not of a plain integer type";
    return std::nullopt;
  }
  H.Var = V;
  H.Init = V->getInit();
  const auto *CB = F->getCond()
                       ? dyn_cast<BinaryOperator>(F->getCond()->IgnoreParenImpCasts())
                       : nullptr;
  if (CB && refVar(CB->getLHS()) == V &&
      (CB->getOpcode() == BO_LT || CB->getOpcode() == BO_LE)) {
    H.Bound = CB->getRHS();
    H.LessEq = CB->getOpcode() == BO_LE;
  } else if (CB && refVar(CB->getRHS()) == V &&
             (CB->getOpcode() == BO_GT || CB->getOpcode() == BO_GE)) {
    H.Bound = CB->getLHS();
    H.LessEq = CB->getOpcode() == BO_GE;
  } else {
    Why = "the inner loop's condition is not 'j < bound' or 'j <= bound'";
    return std::nullopt;
  }
  if (refersTo(H.Bound, V)) {
    Why = "the inner loop's bound uses its own variable";
    return std::nullopt;
  }
  {
    // The operands of a relational operator carry the common type.
    QualType CmpT = CB->getLHS()->getType().getCanonicalType().getUnqualifiedType();
    uint64_t Bits = Ctx.getTypeSize(VT);
    H.PlainCount = Ctx.hasSameType(CmpT, VT.getCanonicalType().getUnqualifiedType()) &&
                   Bits >= Ctx.getTypeSize(Ctx.IntTy) && Bits <= 64;
  }
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParens() : nullptr;
  std::optional<int64_t> Step;
  auto constOf = [&](const Expr *E) -> std::optional<int64_t> {
    Expr::EvalResult Res;
    if (E && E->EvaluateAsInt(Res, Ctx))
      return Res.Val.getInt().getExtValue();
    return std::nullopt;
  };
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc)) {
    if (U->isIncrementOp() && refVar(U->getSubExpr()) == V)
      Step = 1;
  } else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc)) {
    if (CA->getOpcode() == BO_AddAssign && refVar(CA->getLHS()) == V)
      Step = constOf(CA->getRHS());
  } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Inc)) {
    if (BO->getOpcode() == BO_Assign && refVar(BO->getLHS()) == V)
      if (const auto *Add = dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts());
          Add && Add->getOpcode() == BO_Add) {
        if (refVar(Add->getLHS()) == V)
          Step = constOf(Add->getRHS());
        else if (refVar(Add->getRHS()) == V)
          Step = constOf(Add->getLHS());
      }
  }
  if (!Step || *Step <= 0) {
    Why = "the inner loop's increment is not 'j++' or 'j += c' with a "
          "positive constant c";
    return std::nullopt;
  }
  H.Step = *Step;
  return H;
}

/// The ForStmt of an inner loop, possibly under an OpenMP loop directive;
/// \p Asserted is set when that directive promises independent iterations.
/// The variables a `reduction` clause (no modifier) on \p D names, with its
/// operator: the user's leave to reassociate them (InnerLoopPlan's row
/// reductions).
std::map<std::string, RedOp> licensedReductions(const OMPLoopDirective &D) {
  std::map<std::string, RedOp> Out;
  for (const OMPClause *C : D.clauses()) {
    const auto *RC = dyn_cast<OMPReductionClause>(C);
    if (!RC || RC->getModifier() != OMPC_REDUCTION_unknown)
      continue;
    std::optional<RedOp> Op;
    switch (RC->getNameInfo().getName().getCXXOverloadedOperator()) {
    case OO_Plus:
    case OO_Minus: Op = RedOp::Add; break;
    case OO_Star: Op = RedOp::Mul; break;
    default: break;
    }
    if (!Op)
      continue;
    for (const Expr *E : RC->varlists())
      if (const VarDecl *V = refVar(E))
        Out[V->getName().str()] = *Op;
  }
  return Out;
}

const ForStmt *innerFor(const Stmt *S, std::string &Asserted,
                        std::map<std::string, RedOp> *Licensed = nullptr) {
  if (!S)
    return nullptr;
  if (const auto *F = dyn_cast<ForStmt>(S))
    return F;
  const auto *D = dyn_cast<OMPLoopDirective>(S);
  if (!D)
    return nullptr;
  const CapturedStmt *CS = D->getInnermostCapturedStmt();
  const auto *F =
      CS ? dyn_cast_or_null<ForStmt>(CS->getCapturedStmt()->IgnoreContainers()) : nullptr;
  if (!F)
    return nullptr;
  if (Licensed)
    *Licensed = licensedReductions(*D);
  bool KindOk = isa<OMPSimdDirective>(D) || isa<OMPForDirective>(D) ||
                isa<OMPForSimdDirective>(D) || isa<OMPParallelForDirective>(D) ||
                isa<OMPParallelForSimdDirective>(D);
  bool ClausesOk = true;
  for (const OMPClause *C : D->clauses())
    if (isa<OMPSafelenClause>(C) || isa<OMPReductionClause>(C) ||
        isa<OMPLastprivateClause>(C) || isa<OMPLinearClause>(C) ||
        isa<OMPOrderedClause>(C))
      ClausesOk = false;
  if (KindOk && ClausesOk)
    Asserted = std::string("'#pragma omp ") +
               (isa<OMPSimdDirective>(D)          ? "simd"
                : isa<OMPForDirective>(D)         ? "for"
                : isa<OMPForSimdDirective>(D)     ? "for simd"
                : isa<OMPParallelForDirective>(D) ? "parallel for"
                                                  : "parallel for simd") +
               "' on the inner loop";
  return F;
}

/// Variables declared inside the outer body, and every variable written
/// anywhere in it (assignment, ++/--, address taken).
class Prepass : public RecursiveASTVisitor<Prepass> {
public:
  std::set<const VarDecl *> Declared, Written;
  bool VisitVarDecl(VarDecl *V) {
    Declared.insert(V);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      mark(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      mark(U->getSubExpr());
    return true;
  }

private:
  void mark(const Expr *E) {
    E = E->IgnoreParenImpCasts();
    while (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (ME->isArrow())
        return;
      E = ME->getBase()->IgnoreParenImpCasts();
    }
    if (const VarDecl *V = refVar(E))
      Written.insert(V);
  }
};

struct Access {
  const VarDecl *Base = nullptr; ///< null: not a mapped array we follow
  std::optional<Poly> Index;
  bool Write = false;
  bool InPrefix = false;
  int Stmt = -1; ///< the prefix statement it is in (InPrefix)
};

struct Range {
  Poly Init;
  std::optional<Poly> Extent; ///< trip count when the step is 1
};

class Analyzer {
public:
  Analyzer(ASTContext &Ctx, const Region &R, const Prepass &Pre, const VarDecl *OuterVar)
      : Ctx(Ctx), R(R), Pre(Pre), OuterVar(OuterVar) {
    for (const ReductionVar &V : R.Reductions)
      RedOps[V.Name] = V.Op;
  }

  /// Analyses \p Prefix and the nest below \p Levels; empty string: can be
  /// spread. \p AssertedFirst: the first level's independence is promised.
  std::string run(const std::vector<const Stmt *> &Prefix,
                  const std::vector<LevelHeader> &Levels, const Stmt *Body,
                  bool AssertedFirst);

  /// After a successful run(): the prefix reads an array it stores to, so
  /// its stores run once per row after a barrier (InnerLoopPlan::StoresOnce);
  /// the array, and which prefix statements are those stores.
  bool storesOnce() const { return !StoresOnceArray.empty(); }
  const std::string &storesOnceArray() const { return StoresOnceArray; }
  bool isStore(int Stmt) const { return StoreStmts.count(Stmt) > 0; }
  /// After a successful run(): the prefix locals the nest accumulates into
  /// (InnerLoopPlan::RowReductions), in the order the nest first updates
  /// them.
  const std::vector<std::pair<const VarDecl *, RedOp>> &rowReductions() const {
    return Accumulated;
  }
  /// The inner loop's `reduction` clauses (licensedReductions).
  std::map<std::string, RedOp> Licensed;

private:
  ASTContext &Ctx;
  const Region &R;
  const Prepass &Pre;
  const VarDecl *OuterVar;
  std::map<std::string, RedOp> RedOps;
  std::set<const VarDecl *> LevelVars;
  std::set<const VarDecl *> PrefixLocals;
  std::map<const VarDecl *, Range> Ranges; // levels and sequential loops
  std::vector<Access> Accesses;
  std::string Fail;
  bool InPrefix = false;
  int CurStmt = -1;            ///< the prefix statement being walked
  std::set<int> StoreStmts;    ///< prefix statements that are plain stores
  std::string StoresOnceArray; ///< see storesOnce()
  bool Asserted = false; ///< the first level's independence is promised
  /// Prefix locals the nest accumulates into, and those it reads.
  std::vector<std::pair<const VarDecl *, RedOp>> Accumulated;
  std::set<const VarDecl *> ReadInNest;
  int BreakDepth = 0;
  int SubstDepth = 0;

  bool fail(const std::string &Why) {
    if (Fail.empty())
      Fail = Why;
    return false;
  }
  bool outside(const VarDecl *V) const {
    return V && V != OuterVar && !Pre.Declared.count(V) && !LevelVars.count(V);
  }
  bool isReduction(const VarDecl *V) const {
    return outside(V) && RedOps.count(V->getName().str());
  }
  bool isPrivate(const VarDecl *V) const {
    if (!outside(V))
      return false;
    for (const PrivateVar &P : R.Privates)
      if (P.Name == V->getName())
        return true;
    return false;
  }

  std::optional<Poly> linear(const Expr *E);
  std::optional<Poly> extentOf(QualType ArrayT);
  bool decompose(const Expr *E, Access &A);
  bool decomposePtr(const Expr *P, Poly Off, Access &A);
  void walk(const Stmt *S);
  void walkExpr(const Expr *E);
  void walkChain(const Expr *E);
  void write(const Expr *LHS, const Expr *Whole);
  bool reductionForm(const VarDecl *V, const Expr *Whole);
  bool accumulates(const VarDecl *V, const Expr *Whole);
  std::string checkRowReductions() const;
  std::optional<Range> rangeOf(const LevelHeader &H);
  std::string checkNest(const std::vector<LevelHeader> &Levels, bool AssertedFirst);
  std::string checkPrefix(const std::vector<LevelHeader> &Levels);
  bool injective(const Poly &P, const std::vector<LevelHeader> &Levels, std::string &Why);
};

std::optional<Poly> Analyzer::linear(const Expr *E) {
  if (!E)
    return std::nullopt;
  E = E->IgnoreParens();
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
    if (IC->getCastKind() == CK_IntegralCast || IC->getCastKind() == CK_LValueToRValue ||
        IC->getCastKind() == CK_NoOp)
      return linear(IC->getSubExpr());
    return std::nullopt;
  }
  if (const auto *CE = dyn_cast<ExplicitCastExpr>(E)) {
    if (CE->getType()->isIntegerType() && CE->getSubExpr()->getType()->isIntegerType())
      return linear(CE->getSubExpr());
    return std::nullopt;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *EC = dyn_cast<EnumConstantDecl>(DRE->getDecl()))
      return Poly::constant(EC->getInitVal().getExtValue());
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || !V->getType()->isIntegerType())
      return std::nullopt;
    if (LevelVars.count(V) || Ranges.count(V) || V == OuterVar)
      return Poly::atom(V);
    if (Pre.Declared.count(V)) {
      // A local that is only initialised: its initialiser.
      if (Pre.Written.count(V) || !V->getInit() || SubstDepth > 8)
        return std::nullopt;
      ++SubstDepth;
      std::optional<Poly> P = linear(V->getInit());
      --SubstDepth;
      return P;
    }
    if (Pre.Written.count(V) || isReduction(V))
      return std::nullopt;
    return Poly::atom(V); // a captured scalar: constant in the region
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->getOpcode() != BO_Add && BO->getOpcode() != BO_Sub &&
        BO->getOpcode() != BO_Mul)
      return std::nullopt;
    std::optional<Poly> L = linear(BO->getLHS()), Rt = linear(BO->getRHS());
    if (!L || !Rt)
      return std::nullopt;
    return BO->getOpcode() == BO_Add   ? *L + *Rt
           : BO->getOpcode() == BO_Sub ? *L - *Rt
                                       : *L * *Rt;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus) {
      std::optional<Poly> P = linear(U->getSubExpr());
      if (P && U->getOpcode() == UO_Minus)
        return *P * Poly::constant(-1);
      return P;
    }
    return std::nullopt;
  }
  Expr::EvalResult Res;
  if (E->getType()->isIntegerType() && !E->HasSideEffects(Ctx) &&
      E->EvaluateAsInt(Res, Ctx))
    return Poly::constant(Res.Val.getInt().getExtValue());
  return std::nullopt;
}

std::optional<Poly> Analyzer::extentOf(QualType T) {
  const ArrayType *AT = Ctx.getAsArrayType(T);
  if (const auto *CAT = dyn_cast_or_null<ConstantArrayType>(AT))
    return Poly::constant(static_cast<int64_t>(CAT->getSize().getZExtValue()));
  if (const auto *VAT = dyn_cast_or_null<VariableArrayType>(AT))
    return linear(VAT->getSizeExpr());
  return std::nullopt;
}

bool Analyzer::decomposePtr(const Expr *P, Poly Off, Access &A) {
  P = P->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(P)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V || !outside(V) || Pre.Written.count(V))
      return false;
    A.Base = V;
    A.Index = Off;
    return true;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
    bool LPtr = BO->getLHS()->getType()->isPointerType() ||
                BO->getLHS()->getType()->isArrayType();
    if (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub) {
      const Expr *Ptr = LPtr ? BO->getLHS() : BO->getRHS();
      const Expr *Int = LPtr ? BO->getRHS() : BO->getLHS();
      if (!LPtr && BO->getOpcode() == BO_Sub)
        return false;
      if (!Int->getType()->isIntegerType())
        return false;
      // Element arithmetic on a pointer to rows (double (*)[N]) scales by
      // the row: not followed.
      if (Ptr->getType()->isPointerType() &&
          Ptr->getType()->getPointeeType()->isArrayType())
        return false;
      std::optional<Poly> I = linear(Int);
      if (!I) {
        // Still name the base, without an index.
        Access B;
        if (decomposePtr(Ptr, Poly(), B))
          A.Base = B.Base;
        return false;
      }
      return decomposePtr(Ptr, BO->getOpcode() == BO_Add ? Off + *I : Off - *I, A);
    }
  }
  return false;
}

/// An lvalue naming memory: ASE chains, *p, p->f, x.f on those.
bool isMemAccess(const Expr *E) {
  E = E->IgnoreParens();
  if (isa<ArraySubscriptExpr>(E))
    return true;
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return U->getOpcode() == UO_Deref;
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return ME->isArrow() || isMemAccess(ME->getBase());
  return false;
}

bool Analyzer::decompose(const Expr *E, Access &A) {
  E = E->IgnoreParens();
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (ME->isArrow())
      return decomposePtr(ME->getBase(), Poly(), A);
    return decompose(ME->getBase(), A);
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return U->getOpcode() == UO_Deref && decomposePtr(U->getSubExpr(), Poly(), A);
  const auto *ASE = dyn_cast<ArraySubscriptExpr>(E);
  if (!ASE)
    return false;
  const Expr *Base = ASE->getBase(), *Idx = ASE->getIdx();
  if (!Base->getType()->isPointerType()) // 1[A]
    return false;
  const Expr *BI = Base->IgnoreParenImpCasts();
  std::optional<Poly> I = linear(Idx);
  if (isa<ArraySubscriptExpr>(BI) && BI->getType()->isArrayType()) {
    // A[x][y]: the row A[x] has extent N: index x*N + y.
    std::optional<Poly> N = extentOf(BI->getType());
    Access Row;
    bool Ok = decompose(BI, Row);
    A.Base = Row.Base;
    if (!Ok || !N || !I)
      return false;
    A.Index = *Row.Index * *N + *I;
    return true;
  }
  if (!I) {
    Access B;
    if (decomposePtr(Base, Poly(), B))
      A.Base = B.Base;
    return false;
  }
  return decomposePtr(Base, *I, A);
}

/// Walks the index expressions (and pointer bases) of an access chain, not
/// the chain itself (A[x] in A[x][y] is no load of its own).
void Analyzer::walkChain(const Expr *E) {
  E = E->IgnoreParens();
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (ME->isArrow())
      walkExpr(ME->getBase());
    else if (isMemAccess(ME->getBase()))
      walkChain(ME->getBase());
    else
      walkExpr(ME->getBase());
    return;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    walkExpr(U->getSubExpr());
    return;
  }
  if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
    walkExpr(ASE->getIdx());
    const Expr *BI = ASE->getBase()->IgnoreParenImpCasts();
    if (isa<ArraySubscriptExpr>(BI) && BI->getType()->isArrayType())
      walkChain(BI);
    else
      walkExpr(ASE->getBase());
    return;
  }
  walkExpr(E);
}

bool Analyzer::reductionForm(const VarDecl *V, const Expr *Whole) {
  RedOp Op = RedOps[V->getName().str()];
  auto opOf = [](BinaryOperatorKind K) -> std::optional<RedOp> {
    switch (K) {
    case BO_Add:
    case BO_Sub:
    case BO_AddAssign:
    case BO_SubAssign: return RedOp::Add;
    case BO_Mul:
    case BO_MulAssign: return RedOp::Mul;
    case BO_And:
    case BO_AndAssign: return RedOp::BAnd;
    case BO_Or:
    case BO_OrAssign: return RedOp::BOr;
    case BO_Xor:
    case BO_XorAssign: return RedOp::BXor;
    case BO_LAnd: return RedOp::LAnd;
    case BO_LOr: return RedOp::LOr;
    default: return std::nullopt;
    }
  };
  if (const auto *U = dyn_cast<UnaryOperator>(Whole))
    return Op == RedOp::Add && U->isIncrementDecrementOp();
  const auto *B = dyn_cast<BinaryOperator>(Whole);
  if (!B)
    return false;
  const Expr *Other = nullptr;
  if (isa<CompoundAssignOperator>(B)) {
    if (opOf(B->getOpcode()) != Op)
      return false;
    Other = B->getRHS();
  } else if (B->getOpcode() == BO_Assign) {
    const Expr *RHS = B->getRHS()->IgnoreParenImpCasts();
    if (const auto *RB = dyn_cast<BinaryOperator>(RHS)) {
      if (opOf(RB->getOpcode()) != Op)
        return false;
      if (refVar(RB->getLHS()) == V)
        Other = RB->getRHS();
      else if (refVar(RB->getRHS()) == V && RB->getOpcode() != BO_Sub)
        Other = RB->getLHS();
    } else if (const auto *C = dyn_cast<CallExpr>(RHS)) {
      const FunctionDecl *FD = C->getDirectCallee();
      std::string N = FD ? FD->getName().str() : "";
      bool IsMin = N == "fmin" || N == "fminf" || N == "min";
      bool IsMax = N == "fmax" || N == "fmaxf" || N == "max";
      if (C->getNumArgs() != 2 ||
          !((IsMin && Op == RedOp::Min) || (IsMax && Op == RedOp::Max)))
        return false;
      if (refVar(C->getArg(0)) == V)
        Other = C->getArg(1);
      else if (refVar(C->getArg(1)) == V)
        Other = C->getArg(0);
    }
  }
  if (!Other || refersTo(Other, V))
    return false;
  walkExpr(Other);
  return true;
}

/// `v += e`, `v -= e`, `v *= e`, `v = v + e`, `v = e + v`, `v = v - e`,
/// `v = v * e`, `v = e * v`, `++v`, `v--`...: a nest update of the prefix
/// local \p V that a row reduction can split into shares (e free of v).
/// Records the operator; false for any other write.
bool Analyzer::accumulates(const VarDecl *V, const Expr *Whole) {
  std::optional<RedOp> Op;
  const Expr *Other = nullptr;
  if (const auto *U = dyn_cast<UnaryOperator>(Whole)) {
    if (!U->isIncrementDecrementOp())
      return false;
    Op = RedOp::Add;
  } else if (const auto *B = dyn_cast<BinaryOperator>(Whole)) {
    switch (B->getOpcode()) {
    case BO_AddAssign:
    case BO_SubAssign:
      Op = RedOp::Add;
      Other = B->getRHS();
      break;
    case BO_MulAssign:
      Op = RedOp::Mul;
      Other = B->getRHS();
      break;
    case BO_Assign:
      if (const auto *RB = dyn_cast<BinaryOperator>(B->getRHS()->IgnoreParenImpCasts())) {
        BinaryOperatorKind K = RB->getOpcode();
        if (K != BO_Add && K != BO_Sub && K != BO_Mul)
          return false;
        Op = K == BO_Mul ? RedOp::Mul : RedOp::Add;
        if (refVar(RB->getLHS()) == V)
          Other = RB->getRHS();
        else if (K != BO_Sub && refVar(RB->getRHS()) == V)
          Other = RB->getLHS();
      }
      break;
    default: break;
    }
    if (!Other)
      return false;
  }
  if (!Op || (Other && refersTo(Other, V)))
    return false;
  auto It = std::find_if(Accumulated.begin(), Accumulated.end(),
                         [&](const auto &A) { return A.first == V; });
  if (It == Accumulated.end())
    Accumulated.push_back({V, *Op});
  else if (It->second != *Op)
    return fail("the inner loop updates '" + V->getName().str() +
                "' with two different operators");
  if (Other)
    walkExpr(Other);
  return true;
}

/// The row reductions' conditions that only the whole nest shows: the nest
/// reads no accumulator but to update it, each is an integer or floating
/// scalar, and a floating one (whose shares reassociate the sum) is named
/// by a reduction clause of its operator on the inner loop.
std::string Analyzer::checkRowReductions() const {
  for (const auto &[V, Op] : Accumulated) {
    const std::string N = V->getName().str();
    if (ReadInNest.count(V))
      return "the inner loop reads '" + N + "', declared before it, which it updates";
    QualType T = V->getType();
    bool Int = T->isIntegerType() && !T->isBooleanType() && !T->isEnumeralType();
    if (T.isVolatileQualified() || T->isAtomicType() || !(Int || T->isRealFloatingType()))
      return "the inner loop updates '" + N +
             "', declared before it, of a type a block "
             "cannot combine";
    auto L = Licensed.find(N);
    if (!Int && (L == Licensed.end() || L->second != Op))
      return "the inner loop accumulates into '" + N +
             "' (floating point): combining a row's shares would reassociate it; a "
             "'reduction(" +
             (Op == RedOp::Mul ? "*" : "+") + ": " + N +
             ")' clause on an OpenMP directive on the inner loop allows it";
  }
  return "";
}

void Analyzer::write(const Expr *LHS, const Expr *Whole) {
  const Expr *E = LHS->IgnoreParens();
  if (isMemAccess(E)) {
    Access A;
    A.Write = true;
    A.InPrefix = InPrefix;
    A.Stmt = CurStmt;
    if (!decompose(E, A) || !A.Base) {
      if (!InPrefix && Asserted) { // the user promised independence
        A.Index.reset();
        Accesses.push_back(A);
        return;
      }
      fail(A.Base ? "it writes '" + A.Base->getName().str() +
                        "' at an index that is not a polynomial in the loop "
                        "variables"
                  : "it writes memory through an expression the analysis "
                    "does not follow");
      return;
    }
    Accesses.push_back(A);
    if (!isa<BinaryOperator>(Whole) ||
        cast<BinaryOperator>(Whole)->getOpcode() != BO_Assign) {
      A.Write = false; // x op= e, x++ also read x
      Accesses.push_back(A);
    }
    return;
  }
  while (const auto *ME = dyn_cast<MemberExpr>(E))
    E = ME->getBase()->IgnoreParens();
  const VarDecl *V = refVar(E);
  if (!V) {
    fail("it writes through an expression the analysis does not follow");
    return;
  }
  if (LevelVars.count(V)) {
    fail("the body writes the inner loop variable '" + V->getName().str() + "'");
    return;
  }
  if (Pre.Declared.count(V)) {
    // A local of the outer body: fine in the prefix (every thread has its
    // own copy) and when declared inside the nest; a prefix local written
    // by the nest would carry a value from one inner iteration to the next.
    if (!InPrefix && PrefixLocals.count(V) && !accumulates(V, Whole))
      fail("the inner loop writes '" + V->getName().str() + "', declared before it");
    return;
  }
  if (InPrefix && isPrivate(V))
    return;
  if (!InPrefix && isReduction(V)) {
    if (!reductionForm(V, Whole))
      fail("the inner loop updates the reduction variable '" + V->getName().str() +
           "' in a form other than 'x op= e'");
    return;
  }
  fail((InPrefix ? "the statements before the inner loop write '"
                 : "the inner loop writes '") +
       V->getName().str() + "', declared outside it");
}

void Analyzer::walkExpr(const Expr *E) {
  if (!E || !Fail.empty())
    return;
  E = E->IgnoreParens();
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->isAssignmentOp()) {
      const VarDecl *V = refVar(B->getLHS());
      if (V && !InPrefix && (isReduction(V) || PrefixLocals.count(V)) &&
          B->getLHS()->IgnoreParens() == B->getLHS()->IgnoreParenImpCasts()) {
        write(B->getLHS(), B); // walks the operand itself
        return;
      }
      write(B->getLHS(), B);
      if (isMemAccess(B->getLHS()))
        walkChain(B->getLHS());
      walkExpr(B->getRHS());
      return;
    }
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    if (U->isIncrementDecrementOp()) {
      write(U->getSubExpr(), U);
      if (isMemAccess(U->getSubExpr()))
        walkChain(U->getSubExpr());
      return;
    }
    if (U->getOpcode() == UO_AddrOf) {
      fail("the body takes an address");
      return;
    }
  }
  if (isMemAccess(E)) {
    Access A;
    A.InPrefix = InPrefix;
    A.Stmt = CurStmt;
    decompose(E, A);
    Accesses.push_back(A);
    walkChain(E);
    return;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()); V && isReduction(V))
      fail("the body reads the reduction variable '" + V->getName().str() + "'");
    else if (V && !InPrefix && PrefixLocals.count(V))
      ReadInNest.insert(V);
    return;
  }
  if (const auto *C = dyn_cast<CallExpr>(E)) {
    if (isa<CXXMemberCallExpr>(C) || isa<CXXOperatorCallExpr>(C)) {
      fail("the body calls a C++ method or operator");
      return;
    }
    const FunctionDecl *FD = C->getDirectCallee();
    bool IsPrintf = FD && FD->getName() == "printf";
    if (InPrefix && (IsPrintf || (FD && FD->isVariadic()))) {
      fail("the statements before the inner loop call '" +
           (FD ? FD->getName().str() : std::string("?")) +
           "' (every thread of a row would)");
      return;
    }
    if (!IsPrintf)
      for (unsigned I = 0; I < C->getNumArgs(); ++I) {
        const Expr *Arg = C->getArg(I);
        bool Ref = false;
        if (FD && I < FD->getNumParams()) {
          QualType PT = FD->getParamDecl(I)->getType();
          Ref = PT->isReferenceType() && !PT.getNonReferenceType().isConstQualified();
        }
        if (Arg->getType()->isPointerType() || Arg->getType()->isArrayType() || Ref) {
          fail("the body passes a pointer or reference to '" +
               (FD ? FD->getName().str() : std::string("a function")) + "'");
          return;
        }
      }
    for (const Expr *Arg : C->arguments())
      walkExpr(Arg);
    return;
  }
  if (isa<LambdaExpr>(E) || isa<StmtExpr>(E) || isa<BlockExpr>(E) || isa<CXXNewExpr>(E) ||
      isa<CXXDeleteExpr>(E) || isa<CXXThrowExpr>(E)) {
    fail("the body holds a construct the analysis does not follow");
    return;
  }
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      walkExpr(CE);
}

void Analyzer::walk(const Stmt *S) {
  if (!S || !Fail.empty())
    return;
  if (const auto *E = dyn_cast<Expr>(S)) {
    walkExpr(E);
    return;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D)) {
        if (InPrefix)
          PrefixLocals.insert(V);
        if (V->getType()->isVariablyModifiedType()) {
          fail("the body declares a variable-length array");
          return;
        }
        if (V->getInit())
          walkExpr(V->getInit());
      }
    return;
  }
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    std::string Ignored;
    if (std::optional<LevelHeader> H = parseHeader(F, Ctx, Ignored))
      if (std::optional<Range> Rg = rangeOf(*H))
        Ranges[H->Var] = *Rg;
    walk(F->getInit());
    walk(F->getCond());
    walk(F->getInc());
    ++BreakDepth;
    walk(F->getBody());
    --BreakDepth;
    return;
  }
  if (isa<WhileStmt>(S) || isa<DoStmt>(S) || isa<SwitchStmt>(S) ||
      isa<CXXForRangeStmt>(S)) {
    ++BreakDepth;
    for (const Stmt *C : S->children())
      walk(C);
    --BreakDepth;
    return;
  }
  if (isa<BreakStmt>(S)) {
    if (BreakDepth == 0)
      fail("the inner loop has a 'break'");
    return;
  }
  if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S) || isa<ReturnStmt>(S) ||
      isa<GCCAsmStmt>(S) || isa<MSAsmStmt>(S) || isa<CXXTryStmt>(S)) {
    fail("the body holds a jump or a construct the analysis does not follow");
    return;
  }
  if (isa<OMPExecutableDirective>(S)) {
    fail("the inner loop holds an OpenMP directive");
    return;
  }
  for (const Stmt *C : S->children())
    walk(C);
}

std::optional<Range> Analyzer::rangeOf(const LevelHeader &H) {
  std::optional<Poly> I = linear(H.Init);
  if (!I)
    return std::nullopt;
  Range Rg;
  Rg.Init = *I;
  if (H.Step == 1)
    if (std::optional<Poly> B = linear(H.Bound))
      Rg.Extent = *B - *I + Poly::constant(H.LessEq ? 1 : 0);
  return Rg;
}

/// The loop variables in \p P: every one is linear with a coefficient free
/// of loop variables, the spread levels all appear, and the map from the
/// iteration tuple to P is injective (mixed radix, symbolic extents).
bool Analyzer::injective(const Poly &P, const std::vector<LevelHeader> &Levels,
                         std::string &Why) {
  std::vector<const VarDecl *> Vars;
  for (const auto &[V, Rg] : Ranges)
    if (P.mentions(V))
      Vars.push_back(V);
  std::vector<Poly> Coef;
  for (const VarDecl *V : Vars) {
    std::optional<Poly> C = P.coefficient(V);
    if (!C) {
      Why = "an index is not linear in '" + V->getName().str() + "'";
      return false;
    }
    for (const VarDecl *W : Vars)
      if (C->mentions(W)) {
        Why = "an index multiplies two loop variables";
        return false;
      }
    Coef.push_back(*C);
  }
  for (const LevelHeader &H : Levels)
    if (std::find(Vars.begin(), Vars.end(), H.Var) == Vars.end()) {
      Why = "a written index does not depend on '" + H.Var->getName().str() +
            "' (iterations write the same element)";
      return false;
    }
  // One loop variable with a constant coefficient: injective whatever its
  // range and step.
  if (Vars.size() == 1 && Coef[0].constValue() && *Coef[0].constValue() != 0)
    return true;
  if (Vars.size() > 4) {
    Why = "an index uses more than four loop variables";
    return false;
  }
  for (const VarDecl *V : Vars)
    if (!Ranges[V].Extent) {
      Why = "the trip count of '" + V->getName().str() + "' is not known";
      return false;
    }
  std::vector<size_t> Ord(Vars.size());
  for (size_t I = 0; I < Ord.size(); ++I)
    Ord[I] = I;
  for (int Sign : {1, -1}) {
    std::sort(Ord.begin(), Ord.end());
    do {
      Poly C0 = Coef[Ord[0]] * Poly::constant(Sign);
      if (!C0.constValue() || *C0.constValue() <= 0)
        continue;
      Poly Span = C0 * *Ranges[Vars[Ord[0]]].Extent;
      bool Ok = true;
      for (size_t T = 1; T < Ord.size() && Ok; ++T) {
        Poly C = Coef[Ord[T]] * Poly::constant(Sign);
        std::optional<int64_t> Gap = (C - Span).constValue();
        Ok = Gap && *Gap >= 0;
        Span = Span + C * *Ranges[Vars[Ord[T]]].Extent;
      }
      if (Ok)
        return true;
    } while (std::next_permutation(Ord.begin(), Ord.end()));
  }
  Why = "cannot show that different inner iterations write different "
        "elements";
  return false;
}

std::string Analyzer::checkNest(const std::vector<LevelHeader> &Levels,
                                bool AssertedFirst) {
  if (AssertedFirst)
    return "";
  std::map<const VarDecl *, Poly> Written;
  bool AnyWrite = false;
  for (const Access &A : Accesses)
    if (!A.InPrefix && A.Write) {
      AnyWrite = true;
      auto [It, New] = Written.emplace(A.Base, *A.Index);
      if (!New && !(It->second == *A.Index))
        return "the inner loop writes '" + A.Base->getName().str() +
               "' at two different indices";
    }
  for (const auto &[V, P] : Written) {
    std::string Why;
    if (!injective(P, Levels, Why))
      return Why;
  }
  for (const Access &A : Accesses) {
    if (A.InPrefix || A.Write)
      continue;
    if (!A.Base) {
      if (AnyWrite)
        return "the inner loop reads memory the analysis does not follow "
               "while it writes arrays";
      continue;
    }
    auto It = Written.find(A.Base);
    if (It == Written.end())
      continue;
    if (!A.Index || !(*A.Index == It->second))
      return "the inner loop reads '" + A.Base->getName().str() +
             "' at an index other than the one it writes (a carried "
             "dependence)";
  }
  return "";
}

/// A statement that only stores one element: `a[e] = x;` or `a[e] op= x;`,
/// with no other assignment, increment or decrement in it (run by one thread
/// of the row, it must not leave the others' locals behind).
bool isPlainStore(const Stmt *S) {
  const auto *BO = dyn_cast<BinaryOperator>(S);
  if (!BO || !BO->isAssignmentOp() ||
      !isa<ArraySubscriptExpr>(BO->getLHS()->IgnoreParens()))
    return false;
  struct Writes : RecursiveASTVisitor<Writes> {
    bool Found = false;
    bool VisitBinaryOperator(BinaryOperator *B) { return !(Found = B->isAssignmentOp()); }
    bool VisitUnaryOperator(UnaryOperator *U) {
      return !(Found = U->isIncrementDecrementOp());
    }
  };
  for (const Expr *E : {BO->getLHS(), BO->getRHS()}) {
    Writes W;
    W.TraverseStmt(const_cast<Expr *>(E));
    if (W.Found)
      return false;
  }
  return true;
}

std::string Analyzer::checkPrefix(const std::vector<LevelHeader> &Levels) {
  // The range [lo, hi] of a nest write a*j + r (one level, step 1).
  auto outsideOf = [&](const Poly &Pt, const Poly &W) -> bool {
    if (Levels.size() != 1 || Levels[0].Step != 1)
      return false;
    const VarDecl *J = Levels[0].Var;
    std::optional<Poly> A = W.coefficient(J);
    if (!A || !A->constValue() || *A->constValue() == 0)
      return false;
    Poly Rest = W - *A * Poly::atom(J);
    for (const auto &[V, Rg] : Ranges)
      if (Rest.mentions(V))
        return false;
    std::optional<Poly> Init = linear(Levels[0].Init), Bound = linear(Levels[0].Bound);
    if (!Init || !Bound)
      return false;
    Poly Last = Levels[0].LessEq ? *Bound : *Bound - Poly::constant(1);
    Poly Lo = *A * *Init + Rest, Hi = *A * Last + Rest;
    if (*A->constValue() < 0)
      std::swap(Lo, Hi);
    std::optional<int64_t> Below = (Pt - Lo).constValue(), Above = (Pt - Hi).constValue();
    return (Below && *Below < 0) || (Above && *Above > 0);
  };
  for (const Access &P : Accesses) {
    if (!P.InPrefix)
      continue;
    for (const Access &Q : Accesses) {
      if (&P == &Q || (!P.Write && !Q.Write))
        continue;
      bool SameBase = P.Base && P.Base == Q.Base;
      if (!P.Base || !Q.Base) {
        if (P.Write || Q.Write)
          return "the statements before the inner loop access memory the "
                 "analysis does not follow";
        continue;
      }
      if (!SameBase)
        continue;
      if (Q.InPrefix) {
        // Every thread runs the prefix: it must not read what it writes,
        // unless the write is a plain store, which then runs once per row
        // after every thread has read (storesOnce()).
        if (P.Write != Q.Write) {
          if (!StoreStmts.count((P.Write ? P : Q).Stmt))
            return "the statements before the inner loop read '" +
                   P.Base->getName().str() + "', which they write";
          StoresOnceArray = P.Base->getName().str();
        }
        continue;
      }
      if (!P.Write && !Q.Write)
        continue;
      // The inner loop reads elements other than those the prefix writes.
      if (P.Write && !Q.Write) {
        if (!P.Index || !Q.Index || !outsideOf(*P.Index, *Q.Index))
          return "the inner loop reads '" + P.Base->getName().str() +
                 "', written before it";
        continue;
      }
      // Q is a nest write; P a prefix read or write of the same array.
      if (!P.Index || !Q.Index || !outsideOf(*P.Index, *Q.Index))
        return "the statements before the inner loop access '" + P.Base->getName().str() +
               "', which the inner loop may write at the same element";
    }
  }
  return "";
}

std::string Analyzer::run(const std::vector<const Stmt *> &Prefix,
                          const std::vector<LevelHeader> &Levels, const Stmt *Body,
                          bool AssertedFirst) {
  Asserted = AssertedFirst;
  for (const LevelHeader &H : Levels) {
    LevelVars.insert(H.Var);
    std::optional<Range> Rg = rangeOf(H);
    Ranges[H.Var] = Rg ? *Rg : Range{}; // a loop variable even if unknown
  }
  InPrefix = true;
  for (size_t I = 0; I < Prefix.size(); ++I) {
    CurStmt = int(I);
    if (isPlainStore(Prefix[I]))
      StoreStmts.insert(CurStmt);
    walk(Prefix[I]);
  }
  CurStmt = -1;
  InPrefix = false;
  for (const LevelHeader &H : Levels) {
    for (const Expr *E : {H.Init, H.Bound}) {
      if (E->HasSideEffects(Ctx))
        return "the inner loop's bounds have side effects";
      walkExpr(E);
    }
  }
  walk(Body);
  if (!Fail.empty())
    return Fail;
  if (std::string Why = checkRowReductions(); !Why.empty())
    return Why;
  // Bounds must not read what the nest writes.
  for (const LevelHeader &H : Levels)
    for (const Access &A : Accesses)
      if (A.Write && A.Base && (refersTo(H.Init, A.Base) || refersTo(H.Bound, A.Base)))
        return "the inner loop's bounds read '" + A.Base->getName().str() +
               "', which the body writes";
  std::string Why = checkPrefix(Levels);
  if (!Why.empty())
    return Why;
  return checkNest(Levels, AssertedFirst);
}

std::optional<PlacedText> placed(const Stmt *S, ASTContext &Ctx) {
  CharSourceRange FR = stmtFileRange(S, Ctx);
  if (FR.isInvalid())
    return std::nullopt;
  std::optional<std::string> T = rangeText(FR, Ctx);
  if (!T)
    return std::nullopt;
  PresumedLoc PL = Ctx.getSourceManager().getPresumedLoc(FR.getBegin());
  if (PL.isInvalid())
    return std::nullopt;
  return PlacedText{*T, PL.getLine(), PL.getColumn()};
}

/// Whether the launcher can evaluate \p E: literals, enumerators and
/// captured scalars only.
bool hostEvaluable(const Expr *E, const Region &R, const Prepass &Pre,
                   const VarDecl *OuterVar) {
  bool Ok = true;
  struct V : RecursiveASTVisitor<V> {
    const Region &R;
    const Prepass &Pre;
    const VarDecl *OuterVar;
    bool &Ok;
    V(const Region &R, const Prepass &Pre, const VarDecl *O, bool &Ok)
        : R(R), Pre(Pre), OuterVar(O), Ok(Ok) {}
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (isa<EnumConstantDecl>(D->getDecl()))
        return true;
      const auto *VD = dyn_cast<VarDecl>(D->getDecl());
      bool Captured = false;
      if (VD && VD != OuterVar && !Pre.Declared.count(VD))
        for (const CapturedVar &C : R.Captures)
          if (C.Name == VD->getName() && C.Value.empty())
            Captured = true;
      if (!Captured)
        Ok = false;
      return Ok;
    }
    bool VisitCallExpr(CallExpr *) { return Ok = false; }
    bool VisitArraySubscriptExpr(ArraySubscriptExpr *) { return Ok = false; }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->getOpcode() == UO_Deref)
        Ok = false;
      return Ok;
    }
  } Vis(R, Pre, OuterVar, Ok);
  Vis.TraverseStmt(const_cast<Expr *>(E));
  return Ok;
}

/// Why thread 0 could not run \p Suffix between the row's barriers: a jump
/// out of it (a `break` or `continue` of the outer loop, `return`, `goto`)
/// would skip the barrier the row's other threads wait at.  Empty: none.
std::string suffixJumps(const std::vector<const Stmt *> &Suffix) {
  struct Jumps : RecursiveASTVisitor<Jumps> {
    int Depth = 0; // loops and switches inside the suffix
    std::string Why;
    bool TraverseStmt(Stmt *S) {
      if (!S || !Why.empty())
        return Why.empty();
      bool Nest = isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
                  isa<SwitchStmt>(S) || isa<CXXForRangeStmt>(S);
      if ((isa<BreakStmt>(S) || isa<ContinueStmt>(S)) && Depth == 0)
        Why = "a statement after the inner loop leaves the outer iteration early";
      else if (isa<ReturnStmt>(S) || isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S) ||
               isa<OMPExecutableDirective>(S) || isa<CXXTryStmt>(S) || isa<GCCAsmStmt>(S))
        Why = "a statement after the inner loop holds a jump or a construct the "
              "analysis does not follow";
      Depth += Nest;
      bool Ok = Why.empty() && RecursiveASTVisitor<Jumps>::TraverseStmt(S);
      Depth -= Nest;
      return Ok;
    }
  };
  for (const Stmt *S : Suffix) {
    Jumps J;
    J.TraverseStmt(const_cast<Stmt *>(S));
    if (!J.Why.empty())
      return J.Why;
  }
  return "";
}

} // namespace

InnerLoopPlan planInnerLoop(const RegionInput &In, const Region &R, ASTContext &Ctx) {
  InnerLoopPlan Plan;
  const ForStmt *Outer = regionLoop(In.Next);
  if (!Outer || !Outer->getBody()) {
    Plan.Why = "no loop";
    return Plan;
  }
  const VarDecl *OuterVar = nullptr;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(Outer->getInit());
      DS && DS->isSingleDecl())
    OuterVar = dyn_cast<VarDecl>(DS->getSingleDecl());
  else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Outer->getInit()))
    OuterVar = refVar(BO->getLHS());

  std::string Asserted;
  if (const auto *D = dyn_cast<OMPLoopDirective>(In.Next))
    for (const OMPClause *C : D->clauses())
      if (const auto *CC = dyn_cast<OMPCollapseClause>(C)) {
        Expr::EvalResult Res;
        if (CC->getNumForLoops() && CC->getNumForLoops()->EvaluateAsInt(Res, Ctx) &&
            Res.Val.getInt().getExtValue() >= 2)
          Asserted = "'collapse(" + std::to_string(Res.Val.getInt().getExtValue()) +
                     ")' on the co_exec loop";
      }

  // The body: [prefix statements...] inner-for [suffix statements...], the
  // inner loop its last top-level loop.
  std::vector<const Stmt *> Prefix, Suffix;
  const Stmt *Last = Outer->getBody();
  std::string InnerAsserted;
  std::map<std::string, RedOp> Licensed;
  if (const auto *CS = dyn_cast<CompoundStmt>(Last)) {
    std::vector<const Stmt *> Stmts;
    for (const Stmt *S : CS->body())
      if (!isa<NullStmt>(S))
        Stmts.push_back(S);
    if (Stmts.empty()) {
      Plan.Why = "the loop body is empty";
      return Plan;
    }
    size_t At = Stmts.size() - 1;
    std::string Ignored;
    while (At > 0 && !innerFor(Stmts[At], Ignored))
      --At;
    Last = Stmts[At];
    Prefix.assign(Stmts.begin(), Stmts.begin() + At);
    Suffix.assign(Stmts.begin() + At + 1, Stmts.end());
  }
  const ForStmt *F1 = innerFor(Last, InnerAsserted, &Licensed);
  if (!F1) {
    Plan.Why = "the loop body holds no inner 'for' loop";
    return Plan;
  }
  if (std::string Why = suffixJumps(Suffix); !Why.empty()) {
    Plan.Why = Why;
    return Plan;
  }
  if (!InnerAsserted.empty())
    Asserted = InnerAsserted;
  if (!Asserted.empty() && (!Prefix.empty() || !Suffix.empty()) &&
      Asserted.find("collapse") == 0)
    Asserted.clear();
  std::string Why;
  std::optional<LevelHeader> H1 = parseHeader(F1, Ctx, Why);
  if (!H1) {
    Plan.Why = Why;
    return Plan;
  }

  // A perfectly nested second level with bounds free of the first.
  std::optional<LevelHeader> H2;
  const ForStmt *F2 = nullptr;
  {
    const Stmt *B = F1->getBody();
    if (const auto *CS = dyn_cast<CompoundStmt>(B); CS && CS->size() == 1)
      B = CS->body_front();
    F2 = dyn_cast_or_null<ForStmt>(B);
    std::string Ignored;
    if (F2)
      H2 = parseHeader(F2, Ctx, Ignored);
    if (H2 && (refersTo(H2->Init, H1->Var) || refersTo(H2->Bound, H1->Var)))
      H2.reset();
  }

  Prepass Pre;
  Pre.TraverseStmt(const_cast<Stmt *>(Outer->getBody()));

  std::vector<LevelHeader> Levels;
  const Stmt *Body = nullptr;
  std::string Fail;
  std::vector<bool> Once(Prefix.size(), false); // (PlacedText::Once)
  auto takeStores = [&](const Analyzer &A) {
    for (const auto &[V, Op] : A.rowReductions())
      Plan.RowReductions.push_back(
          {V->getName().str(), declString(V->getType().getUnqualifiedType(), "", Ctx),
           Op});
    Plan.StoresOnce = A.storesOnce();
    Plan.StoresOnceArray = A.storesOnceArray();
    for (size_t I = 0; I < Prefix.size(); ++I)
      Once[I] = Plan.StoresOnce && A.isStore(int(I));
  };
  if (H2) {
    Analyzer A(Ctx, R, Pre, OuterVar);
    A.Licensed = Licensed;
    Fail = A.run(Prefix, {*H1, *H2}, F2->getBody(), false);
    if (Fail.empty()) {
      Levels = {*H1, *H2};
      Body = F2->getBody();
      takeStores(A);
    }
  }
  if (Levels.empty()) {
    Analyzer A(Ctx, R, Pre, OuterVar);
    A.Licensed = Licensed;
    std::string F = A.run(Prefix, {*H1}, F1->getBody(), !Asserted.empty());
    if (!F.empty()) {
      Plan.Why = F;
      return Plan;
    }
    Levels = {*H1};
    Body = F1->getBody();
    takeStores(A);
  }

  // Texts.
  for (const Stmt *S : Prefix) {
    struct CallFinder : RecursiveASTVisitor<CallFinder> {
      bool Found = false;
      bool VisitCallExpr(CallExpr *) { return !(Found = true); }
    } Calls;
    Calls.TraverseStmt(const_cast<Stmt *>(S));
    Plan.PrefixCalls = Plan.PrefixCalls || Calls.Found;
    std::optional<PlacedText> T = placed(S, Ctx);
    if (!T) {
      Plan.Why = "a statement before the inner loop comes from a macro";
      return Plan;
    }
    T->Once = Once[Plan.Prefix.size()];
    Plan.Prefix.push_back(*T);
  }
  for (const Stmt *S : Suffix) {
    std::optional<PlacedText> T = placed(S, Ctx);
    if (!T) {
      Plan.Prefix.clear();
      Plan.Why = "a statement after the inner loop comes from a macro";
      return Plan;
    }
    Plan.Suffix.push_back(*T);
  }
  std::optional<PlacedText> BT = placed(Body, Ctx);
  if (!BT) {
    Plan.Why = "the inner loop's body comes from a macro";
    return Plan;
  }
  Plan.Body = *BT;
  Plan.HostExtents = true;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const LevelHeader &H : Levels) {
    InnerLevel L;
    L.VarName = H.Var->getName().str();
    QualType VT = H.Var->getType().getUnqualifiedType();
    L.VarType = declString(VT, "", Ctx);
    L.VarDecl = declString(VT, L.VarName, Ctx);
    std::optional<std::string> I = sourceText(H.Init->getSourceRange(), Ctx),
                               B = sourceText(H.Bound->getSourceRange(), Ctx);
    if (!I || !B) {
      Plan.Prefix.clear();
      Plan.Why = "the inner loop's header comes from a macro";
      return Plan;
    }
    L.InitText = *I;
    L.BoundText = *B;
    L.Cmp = H.LessEq ? "<=" : "<";
    L.Step = H.Step;
    L.Line = SM.getPresumedLoc(SM.getExpansionLoc(H.Var->getLocation())).getLine();
    L.PlainCount = H.PlainCount;
    L.Invariant = hostEvaluable(H.Init, R, Pre, OuterVar) &&
                  hostEvaluable(H.Bound, R, Pre, OuterVar);
    Plan.HostExtents = Plan.HostExtents && L.Invariant;
    Plan.Levels.push_back(L);
  }
  Plan.Spread = true;
  if (!Asserted.empty() && Levels.size() == 1)
    Plan.Why = "independence of the inner iterations asserted by " + Asserted;
  else
    Plan.Why = "the inner loop" + std::string(Levels.size() > 1 ? "s" : "") +
               " provably carr" + (Levels.size() > 1 ? "y" : "ies") + " no dependence";
  if (Plan.StoresOnce)
    Plan.Why += "; the statements before it read '" + Plan.StoresOnceArray +
                "', which they store to: one block per row, the stores by its thread 0 "
                "between barriers";
  if (!Plan.RowReductions.empty()) {
    Plan.Why += "; it accumulates into ";
    for (const RowReduction &V : Plan.RowReductions)
      Plan.Why += std::string(&V == &Plan.RowReductions[0] ? "'" : ", '") + V.Name + "'";
    Plan.Why += ": one block per row, which combines its threads' shares";
  }
  if (!Plan.Suffix.empty())
    Plan.Why += "; the statements after it run once per row, by the row's thread 0";
  return Plan;
}

} // namespace hce
