//===- WriteCoverage.cpp - Does each iteration write its whole footprint? -===//
#include "WriteCoverage.h"
#include "SourceText.h"

#include "clang/AST/Expr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <optional>
#include <set>
#include <vector>

using namespace clang;

namespace hce {

namespace {

constexpr size_t MaxWrites = 8; // per map; as __hce_writes_cover accepts
constexpr size_t MaxLevels = 4; // counted loops around one write

/// `for (T j = a; j < / <= b; j += c)` around a write, as texts.
struct Level {
  const VarDecl *Var = nullptr;
  std::string Type, Name, Init, Bound;
  bool LessEq = false;
  int64_t Step = 1;
};

/// An assignment that runs for every value of its levels in every iteration.
struct Write {
  std::vector<Level> Levels;
  std::string Index; ///< flattened element index (C text, int64_t)
  std::string Shown; ///< "C[i * N + j]"
  SourceLocation Loc;
};

void remark(Diag &D, SourceLocation Loc, const std::string &Msg) {
  DiagnosticsEngine &DE = D.engine();
  DE.Report(Loc, DE.getCustomDiagID(DiagnosticsEngine::Remark, "%0")) << Msg;
}

const VarDecl *refVar(const Expr *E) {
  if (const auto *DRE =
          dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

/// The base variable and subscripts (outermost first) of `A[s0]...[sK-1]`.
const VarDecl *subscripts(const Expr *E, std::vector<const Expr *> &Subs) {
  E = E->IgnoreParens();
  const auto *ASE = dyn_cast<ArraySubscriptExpr>(E);
  if (!ASE || !ASE->getBase()->getType()->isPointerType())
    return nullptr;
  const Expr *Base = ASE->getBase()->IgnoreParenImpCasts();
  const VarDecl *V =
      isa<ArraySubscriptExpr>(Base) ? subscripts(Base, Subs) : refVar(Base);
  Subs.push_back(ASE->getIdx());
  return V;
}

/// What the body must not hold for any write to be unconditional.
std::string jumpIn(const Stmt *S) {
  if (!S)
    return "";
  if (isa<BreakStmt>(S))
    return "the body has a 'break'";
  if (isa<ContinueStmt>(S))
    return "the body has a 'continue'";
  if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    return "the body has a 'goto'";
  if (isa<ReturnStmt>(S))
    return "the body has a 'return'";
  if (isa<AsmStmt>(S) || isa<CXXTryStmt>(S) || isa<CXXThrowExpr>(S))
    return "the body holds a construct the analysis does not follow";
  for (const Stmt *C : S->children())
    if (std::string W = jumpIn(C); !W.empty())
      return W;
  return "";
}

/// True when \p V is assigned, incremented or has its address taken in \p S.
bool writtenIn(const Stmt *S, const VarDecl *V) {
  if (!S)
    return false;
  if (const auto *B = dyn_cast<BinaryOperator>(S);
      B && B->isAssignmentOp() && refVar(B->getLHS()) == V)
    return true;
  if (const auto *U = dyn_cast<UnaryOperator>(S);
      U && (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
      refVar(U->getSubExpr()) == V)
    return true;
  for (const Stmt *C : S->children())
    if (writtenIn(C, V))
      return true;
  return false;
}

class Prover {
public:
  Prover(const Region &R, ASTContext &Ctx, const Stmt *Body, const VarDecl *LoopVar)
      : R(R), Ctx(Ctx), SM(Ctx.getSourceManager()), Body(Body), LoopVar(LoopVar) {}

  /// The writes backing the flag for map \p M (array \p A), or why none.
  std::optional<std::vector<Write>> writesOf(const MappedArray &M, const VarDecl *A,
                                             std::string &Why);

private:
  const Region &R;
  ASTContext &Ctx;
  const SourceManager &SM;
  const Stmt *Body;
  const VarDecl *LoopVar;

  bool captured(const VarDecl *V) const {
    for (const CapturedVar &C : R.Captures)
      if (C.Value.empty() && C.Name == V->getName())
        return true;
    return false;
  }
  bool inBody(SourceLocation L) const {
    SourceRange BR = Body->getSourceRange();
    L = SM.getExpansionLoc(L);
    return !SM.isBeforeInTranslationUnit(L, SM.getExpansionLoc(BR.getBegin())) &&
           !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(BR.getEnd()), L);
  }
  bool affine(const Expr *E, const std::set<const VarDecl *> &Vars,
              std::set<const VarDecl *> &Used);
  std::optional<Level> level(const ForStmt *F);
  void collect(const Stmt *S, std::vector<Level> &Levels, const VarDecl *A, unsigned Rank,
               std::vector<std::pair<const BinaryOperator *, std::vector<Level>>> &Out);
  std::optional<std::string> text(const Expr *E) {
    return sourceText(E->getSourceRange(), Ctx);
  }
};

/// Whether \p E is affine in \p Vars over literals, enumerators declared
/// before the body and captured scalars, spelled without macros and
/// evaluable at the loop site; \p Used gets the variables of \p Vars it uses.
bool Prover::affine(const Expr *E, const std::set<const VarDecl *> &Vars,
                    std::set<const VarDecl *> &Used) {
  if (!E)
    return false;
  // A constant (a macro's included, spelled as at the loop site) is invariant.
  if (E->getType()->isIntegerType() && E->isIntegerConstantExpr(Ctx))
    return true;
  if (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return false;
  std::set<const VarDecl *> Mine;
  auto sub = [&](const Expr *S) { return affine(S, Vars, Mine); };
  bool Ok = false;
  bool Invariant = false; // operands must not use the variables
  E = E->IgnoreParens();
  if (isa<IntegerLiteral>(E) || isa<CharacterLiteral>(E)) {
    Ok = true;
  } else if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *EC = dyn_cast<EnumConstantDecl>(DRE->getDecl()))
      Ok = !inBody(EC->getLocation());
    else if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl())) {
      if (Vars.count(V)) {
        Mine.insert(V);
        Ok = true;
      } else
        Ok = V->getType()->isIntegerType() && !inBody(V->getLocation()) && captured(V);
    }
  } else if (const auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
    CastKind K = IC->getCastKind();
    Ok = (K == CK_LValueToRValue || K == CK_IntegralCast || K == CK_NoOp) &&
         sub(IC->getSubExpr());
  } else if (const auto *CE = dyn_cast<ExplicitCastExpr>(E)) {
    Ok = CE->getType()->isIntegerType() && CE->getSubExpr()->getType()->isIntegerType() &&
         sub(CE->getSubExpr());
  } else if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    UnaryOperatorKind K = U->getOpcode();
    Ok = (K == UO_Plus || K == UO_Minus || K == UO_Not) && sub(U->getSubExpr());
    Invariant = K == UO_Not;
  } else if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    BinaryOperatorKind K = B->getOpcode();
    if (K == BO_Add || K == BO_Sub) {
      Ok = sub(B->getLHS()) && sub(B->getRHS());
    } else if (K == BO_Mul) {
      std::set<const VarDecl *> L, Rt;
      Ok = affine(B->getLHS(), Vars, L) && affine(B->getRHS(), Vars, Rt) &&
           (L.empty() || Rt.empty());
      Mine.insert(L.begin(), L.end());
      Mine.insert(Rt.begin(), Rt.end());
    } else if (K == BO_Div || K == BO_Rem || K == BO_Shl || K == BO_Shr || K == BO_And ||
               K == BO_Or || K == BO_Xor) {
      Ok = sub(B->getLHS()) && sub(B->getRHS());
      Invariant = true;
    }
  } else if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
    Ok = sub(C->getCond()) && sub(C->getTrueExpr()) && sub(C->getFalseExpr());
    Invariant = true;
  } else if (const auto *T = dyn_cast<UnaryExprOrTypeTraitExpr>(E)) {
    Ok = T->isArgumentType() && T->getArgumentType()->isBuiltinType();
  }
  if (!Ok || (Invariant && !Mine.empty()))
    return false;
  // Unsigned arithmetic narrower than 64 bits wraps: not affine.
  QualType Ty = E->getType();
  if (!Mine.empty() && Ty->isUnsignedIntegerType() && Ctx.getTypeSize(Ty) < 64)
    return false;
  Used.insert(Mine.begin(), Mine.end());
  return true;
}

/// A counted loop: `for (T j = a; j < / <= b; ++j / j++ / j += c / j = j + c)`,
/// c > 0, compared in T (at least int), a and b invariant, j not written in
/// the body.
std::optional<Level> Prover::level(const ForStmt *F) {
  const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
  const VarDecl *V =
      DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
  if (!V || !V->getInit() || !F->getCond() || !F->getInc())
    return std::nullopt;
  QualType VT = V->getType();
  if (!VT->isIntegerType() || VT->isBooleanType() || VT->isEnumeralType() ||
      VT.isVolatileQualified() || Ctx.getTypeSize(VT) < Ctx.getTypeSize(Ctx.IntTy) ||
      Ctx.getTypeSize(VT) > 64)
    return std::nullopt;
  Level L;
  L.Var = V;
  const auto *CB = dyn_cast<BinaryOperator>(F->getCond()->IgnoreParens());
  const Expr *Bound = nullptr;
  if (CB && refVar(CB->getLHS()) == V &&
      (CB->getOpcode() == BO_LT || CB->getOpcode() == BO_LE)) {
    Bound = CB->getRHS();
    L.LessEq = CB->getOpcode() == BO_LE;
  } else if (CB && refVar(CB->getRHS()) == V &&
             (CB->getOpcode() == BO_GT || CB->getOpcode() == BO_GE)) {
    Bound = CB->getLHS();
    L.LessEq = CB->getOpcode() == BO_GE;
  }
  if (!Bound ||
      !Ctx.hasSameType(CB->getLHS()->getType().getCanonicalType().getUnqualifiedType(),
                       VT.getCanonicalType().getUnqualifiedType()))
    return std::nullopt;
  std::optional<int64_t> Step;
  auto constOf = [&](const Expr *E) -> std::optional<int64_t> {
    Expr::EvalResult Res;
    if (E && E->EvaluateAsInt(Res, Ctx))
      return Res.Val.getInt().getExtValue();
    return std::nullopt;
  };
  const Expr *Inc = F->getInc()->IgnoreParens();
  if (const auto *U = dyn_cast<UnaryOperator>(Inc)) {
    if (U->isIncrementOp() && refVar(U->getSubExpr()) == V)
      Step = 1;
  } else if (const auto *CA = dyn_cast<CompoundAssignOperator>(Inc)) {
    if (CA->getOpcode() == BO_AddAssign && refVar(CA->getLHS()) == V)
      Step = constOf(CA->getRHS());
  } else if (const auto *BO = dyn_cast<BinaryOperator>(Inc)) {
    if (BO->getOpcode() == BO_Assign && refVar(BO->getLHS()) == V)
      if (const auto *Add = dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts());
          Add && Add->getOpcode() == BO_Add && refVar(Add->getLHS()) == V)
        Step = constOf(Add->getRHS());
  }
  if (!Step || *Step <= 0 || writtenIn(F->getBody(), V))
    return std::nullopt;
  L.Step = *Step;
  std::set<const VarDecl *> None, Used;
  std::optional<std::string> I = text(V->getInit()), B = text(Bound);
  if (!affine(V->getInit(), None, Used) || !affine(Bound, None, Used) || !I || !B)
    return std::nullopt;
  L.Init = *I;
  L.Bound = *B;
  L.Name = V->getName().str();
  L.Type = declString(VT.getUnqualifiedType(), "", Ctx);
  return L;
}

/// The assignments `A[...] = e` (full rank) that run in every iteration, with
/// the counted loops around them.
void Prover::collect(
    const Stmt *S, std::vector<Level> &Levels, const VarDecl *A, unsigned Rank,
    std::vector<std::pair<const BinaryOperator *, std::vector<Level>>> &Out) {
  if (!S)
    return;
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *C : CS->body())
      collect(C, Levels, A, Rank, Out);
    return;
  }
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    if (Levels.size() >= MaxLevels)
      return;
    if (std::optional<Level> L = level(F)) {
      Levels.push_back(*L);
      collect(F->getBody(), Levels, A, Rank, Out);
      Levels.pop_back();
    }
    return;
  }
  const auto *B = dyn_cast<BinaryOperator>(S);
  if (const auto *E = dyn_cast<Expr>(S))
    B = dyn_cast<BinaryOperator>(E->IgnoreParens());
  std::vector<const Expr *> Subs;
  if (B && B->getOpcode() == BO_Assign && subscripts(B->getLHS(), Subs) == A &&
      Subs.size() == Rank)
    Out.push_back({B, Levels});
}

std::optional<std::vector<Write>> Prover::writesOf(const MappedArray &M, const VarDecl *A,
                                                   std::string &Why) {
  // Every use of A: the target of a plain assignment of full rank.
  struct Uses : RecursiveASTVisitor<Uses> {
    const VarDecl *A;
    unsigned Rank;
    std::set<const DeclRefExpr *> All, Targets;
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (D->getDecl() == A)
        All.insert(D);
      return true;
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      std::vector<const Expr *> Subs;
      const Expr *L = B->getLHS()->IgnoreParens();
      if (B->getOpcode() == BO_Assign && subscripts(L, Subs) == A &&
          Subs.size() == Rank) {
        while (const auto *ASE = dyn_cast<ArraySubscriptExpr>(L->IgnoreParenImpCasts()))
          L = ASE->getBase();
        if (const auto *D = dyn_cast<DeclRefExpr>(L->IgnoreParenImpCasts()))
          Targets.insert(D);
      }
      return true;
    }
  } U;
  U.A = A;
  U.Rank = M.Rank;
  U.TraverseStmt(const_cast<Stmt *>(Body));
  for (const DeclRefExpr *D : U.All)
    if (!U.Targets.count(D)) {
      Why = "'" + M.Name + "' is read, or used other than as the target of '='";
      return std::nullopt;
    }
  std::vector<std::pair<const BinaryOperator *, std::vector<Level>>> Found;
  std::vector<Level> Levels;
  collect(Body, Levels, A, M.Rank, Found);
  if (Found.empty()) {
    Why = "no assignment to '" + M.Name +
          "' runs in every iteration for every value of the counted loops around it";
    return std::nullopt;
  }
  if (Found.size() > MaxWrites) {
    Why = "more than " + std::to_string(MaxWrites) + " assignments to '" + M.Name + "'";
    return std::nullopt;
  }
  std::vector<Write> Out;
  for (const auto &[B, Lv] : Found) {
    std::set<const VarDecl *> Vars = {LoopVar}, Used;
    for (const Level &L : Lv)
      Vars.insert(L.Var);
    std::vector<const Expr *> Subs;
    subscripts(B->getLHS(), Subs);
    Write W;
    W.Levels = Lv;
    W.Loc = B->getBeginLoc();
    std::string Idx;
    for (size_t D = 0; D < Subs.size(); ++D) {
      std::optional<std::string> T = text(Subs[D]);
      if (!affine(Subs[D], Vars, Used) || !T) {
        Why = "the index of an assignment to '" + M.Name +
              "' is not affine in the loop variables over values known before the loop";
        return std::nullopt;
      }
      W.Shown += "[" + *T + "]";
      if (D == 0) {
        Idx = "(int64_t)(" + *T + ")";
        continue;
      }
      std::string Row = "(" + M.Name + ")", Elem = Row;
      for (size_t K = 0; K < D; ++K)
        Row += "[0]";
      Elem = Row + "[0]";
      Idx = "(" + Idx + ") * (int64_t)(sizeof(" + Row + ") / sizeof(" + Elem +
            ")) + (int64_t)(" + *T + ")";
    }
    W.Shown = M.Name + W.Shown;
    W.Index = Idx;
    Out.push_back(std::move(W));
  }
  return Out;
}

/// Site code: evaluates the writes' bases, strides and trip counts with the
/// actual values and asks __hce_writes_cover whether they are map \p Index's
/// footprint.
std::string checkCode(const Region &R, size_t Index, const std::vector<Write> &Writes) {
  const LoopInfo &L = R.Loop;
  const std::string M = "__hce_m[" + std::to_string(Index) + "]";
  size_t NL = 1;
  for (const Write &W : Writes)
    NL = std::max(NL, W.Levels.size());
  const std::string NW = std::to_string(Writes.size()), NLs = std::to_string(NL);
  auto at = [&](size_t W, size_t T) { return "[" + std::to_string(W * NL + T) + "]"; };
  std::string S;
  S += "{ /* HCE_MAP_WRITES_ALL when these writes are exactly the footprint:";
  for (const Write &W : Writes) {
    std::string Sh = W.Shown;
    for (size_t P; (P = Sh.find("*/")) != std::string::npos;)
      Sh.replace(P, 2, "* /");
    S += " " + Sh;
  }
  S += " */\n";
  S += "  int __hce_ok = __hce_W > 0;\n";
  S += "  int64_t __hce_wb0[" + NW + "], __hce_wb1[" + NW + "], __hce_wc[" + NW + " * " +
       NLs + "], __hce_we[" + NW + " * " + NLs + "], __hce_wj[" + NW + " * " + NLs +
       "];\n";
  // Trip counts and first values, before any level variable is declared
  // (a bound names what it names in the loop, never a level variable).
  for (size_t W = 0; W < Writes.size(); ++W)
    for (size_t T = 0; T < NL; ++T) {
      if (T >= Writes[W].Levels.size()) {
        S += "  __hce_we" + at(W, T) + " = 1; __hce_wc" + at(W, T) + " = 0; __hce_wj" +
             at(W, T) + " = 0;\n";
        continue;
      }
      const Level &Lv = Writes[W].Levels[T];
      S += "  { /* '" + Lv.Name + "' */\n";
      S += "    const " + Lv.Type + " __hce_j0 = (" + Lv.Type + ")(" + Lv.Init + ");\n";
      S += "    const " + Lv.Type + " __hce_jb = (" + Lv.Type + ")(" + Lv.Bound + ");\n";
      S += "    __hce_we" + at(W, T) + " = 0;\n";
      S += "    __hce_wj" + at(W, T) + " = (int64_t)__hce_j0;\n";
      S += std::string("    if (__hce_jb ") + (Lv.LessEq ? ">=" : ">") + " __hce_j0) {\n";
      S += "      const uint64_t __hce_q = ((uint64_t)__hce_jb - (uint64_t)__hce_j0" +
           std::string(Lv.LessEq ? "" : " - 1") + ") / " + std::to_string(Lv.Step) +
           ";\n";
      S += "      __hce_we" + at(W, T) +
           " = __hce_q >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)__hce_q + 1;\n";
      S += "    }\n";
      S += "    __hce_ok = __hce_ok && __hce_we" + at(W, T) + " > 0;\n";
      S += "  }\n";
    }
  S += "  if (__hce_ok) {\n";
  for (size_t W = 0; W < Writes.size(); ++W) {
    const Write &Wr = Writes[W];
    auto declare = [&](const std::string &IterValue) {
      std::string D =
          "      " + L.VarDecl + " = (" + L.VarType + ")(" + IterValue + ");\n";
      D += "      (void)" + L.VarName + ";\n";
      for (size_t T = 0; T < Wr.Levels.size(); ++T) {
        const Level &Lv = Wr.Levels[T];
        D += "      " + Lv.Type + " " + Lv.Name + " = (" + Lv.Type + ")__hce_wj" +
             at(W, T) + ";\n";
        D += "      (void)" + Lv.Name + ";\n";
      }
      return D;
    };
    S += "    { /* " + Wr.Shown + " */\n";
    S += declare("__hce_init");
    S += "      __hce_wb0[" + std::to_string(W) + "] = " + Wr.Index + ";\n";
    for (size_t T = 0; T < Wr.Levels.size(); ++T) {
      const Level &Lv = Wr.Levels[T];
      std::string K = at(W, T);
      S += "      __hce_wc" + K + " = 0;\n";
      S += "      if (__hce_we" + K + " > 1) { /* the stride of '" + Lv.Name + "' */\n";
      S += "        " + Lv.Name + " = (" + Lv.Type + ")(__hce_wj" + K + " + " +
           std::to_string(Lv.Step) + ");\n";
      S += "        __hce_wc" + K + " = " + Wr.Index + " - __hce_wb0[" +
           std::to_string(W) + "];\n";
      S += "        " + Lv.Name + " = (" + Lv.Type + ")__hce_wj" + K + ";\n";
      S += "      }\n";
    }
    S += "    }\n";
    S += "    if (__hce_W > 1) {\n";
    S += declare("__hce_init + __hce_step");
    S += "      __hce_wb1[" + std::to_string(W) + "] = " + Wr.Index + ";\n";
    S += "    } else {\n";
    S += "      __hce_wb1[" + std::to_string(W) + "] = __hce_wb0[" + std::to_string(W) +
         "] + " + M + ".scale;\n";
    S += "    }\n";
  }
  S += "    if (__hce_writes_cover(&" + M + ", " + NW + ", " + NLs +
       ", __hce_wb0, __hce_wb1, __hce_wc, __hce_we))\n";
  S += "      " + M + ".kind |= HCE_MAP_WRITES_ALL;\n";
  S += "  }\n";
  S += "}\n";
  return S;
}

} // namespace

void proveWriteCoverage(const RegionInput &In, Region &R, ASTContext &Ctx, Diag &D,
                        bool Verbose) {
  const ForStmt *Loop = regionLoop(In.Next);
  if (!Loop || !Loop->getBody())
    return;
  const VarDecl *LoopVar = nullptr;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(Loop->getInit());
      DS && DS->isSingleDecl())
    LoopVar = dyn_cast<VarDecl>(DS->getSingleDecl());
  else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Loop->getInit()))
    LoopVar = refVar(BO->getLHS());
  if (!LoopVar)
    return;
  const Stmt *Body = Loop->getBody();
  std::string Jump = jumpIn(Body);
  Prover P(R, Ctx, Body, LoopVar);
  for (size_t I = 0; I < R.Maps.size(); ++I) {
    MappedArray &M = R.Maps[I];
    if (M.Kind != MapKind::From || !M.UsedInBody || M.Rows)
      continue; // (a row map's footprint is not flattened row-major)
    // The array: a variable declared outside the body, named M.Name.
    struct Finder : RecursiveASTVisitor<Finder> {
      std::string Name;
      const VarDecl *Found = nullptr;
      const SourceManager *SM = nullptr;
      SourceLocation BodyBegin;
      bool VisitDeclRefExpr(DeclRefExpr *E) {
        if (const auto *V = dyn_cast<VarDecl>(E->getDecl());
            V && V->getName() == Name &&
            SM->isBeforeInTranslationUnit(SM->getExpansionLoc(V->getLocation()),
                                          BodyBegin))
          Found = V;
        return !Found;
      }
    } F;
    F.Name = M.Name;
    F.SM = &Ctx.getSourceManager();
    F.BodyBegin = Ctx.getSourceManager().getExpansionLoc(Body->getBeginLoc());
    F.TraverseStmt(const_cast<Stmt *>(Body));
    std::string Why = Jump;
    std::optional<std::vector<Write>> Writes;
    if (Why.empty() && !F.Found)
      Why = "'" + M.Name + "' is not found in the body";
    if (Why.empty())
      Writes = P.writesOf(M, F.Found, Why);
    std::string Section = M.SectionText.empty()
                              ? M.Name + "[" + M.LoText + ":" + M.LenText + "]"
                              : M.SectionText;
    if (Writes) {
      M.WritesAllCheck = checkCode(R, I, *Writes);
      if (Verbose) {
        std::string Ws;
        for (const Write &W : *Writes) {
          Ws += Ws.empty() ? "" : ", ";
          Ws += W.Shown;
          for (size_t T = 0; T < W.Levels.size(); ++T)
            Ws += std::string(T ? ", " : " for ") + "'" + W.Levels[T].Name + "' in [" +
                  W.Levels[T].Init + ", " + W.Levels[T].Bound +
                  (W.Levels[T].LessEq ? "]" : ")") +
                  (W.Levels[T].Step != 1 ? " step " + std::to_string(W.Levels[T].Step)
                                         : "");
        }
        remark(D, Writes->front().Loc,
               "map(from: " + Section + ") gets HCE_MAP_WRITES_ALL (no upload) when " +
                   Ws + " cover its footprint, checked at the loop site");
      }
    } else if (Verbose) {
      remark(D, Loop->getBeginLoc(),
             "map(from: " + Section +
                 ") uploads the current values first (no HCE_MAP_WRITES_ALL): " + Why);
    }
  }
}

std::string writesCoverDecl(const Region &R) {
  bool Any = false;
  for (const MappedArray &M : R.Maps)
    Any = Any || !M.WritesAllCheck.empty();
  if (!Any)
    return "";
  return R"(#ifndef HCE_WRITES_COVER_DEFINED
#define HCE_WRITES_COVER_DEFINED
/* {base + sum_t c[t]*u[t] : 0 <= u[t] < e[t]} in a canonical form: strides
   positive and ascending, a level whose stride is the span of the one below
   merged into it. The number of levels, or -1 when the set is empty or a
   value overflows. (hce-translate, translator/WriteCoverage.cpp) */
static inline int __hce_box_canon(int64_t *__hce_base, int64_t *__hce_c, int64_t *__hce_e,
                                  int __hce_n) {
  int __hce_k = 0, __hce_t, __hce_p, __hce_m = 0;
  int64_t __hce_s;
  for (__hce_t = 0; __hce_t < __hce_n; ++__hce_t) {
    int64_t __hce_cc = __hce_c[__hce_t], __hce_ee = __hce_e[__hce_t];
    if (__hce_ee <= 0)
      return -1;
    if (__hce_ee == 1 || __hce_cc == 0)
      continue;
    if (__hce_cc < 0) {
      if (__hce_cc == INT64_MIN || __builtin_mul_overflow(__hce_cc, __hce_ee - 1, &__hce_s) ||
          __builtin_add_overflow(*__hce_base, __hce_s, __hce_base))
        return -1;
      __hce_cc = -__hce_cc;
    }
    for (__hce_p = __hce_k; __hce_p > 0 && __hce_c[__hce_p - 1] > __hce_cc; --__hce_p) {
      __hce_c[__hce_p] = __hce_c[__hce_p - 1];
      __hce_e[__hce_p] = __hce_e[__hce_p - 1];
    }
    __hce_c[__hce_p] = __hce_cc;
    __hce_e[__hce_p] = __hce_ee;
    ++__hce_k;
  }
  for (__hce_t = 0; __hce_t < __hce_k; ++__hce_t) {
    if (__hce_m > 0 && !__builtin_mul_overflow(__hce_c[__hce_m - 1], __hce_e[__hce_m - 1], &__hce_s) &&
        __hce_s == __hce_c[__hce_t]) {
      if (__builtin_mul_overflow(__hce_e[__hce_m - 1], __hce_e[__hce_t], &__hce_e[__hce_m - 1]))
        return -1;
      continue;
    }
    __hce_c[__hce_m] = __hce_c[__hce_t];
    __hce_e[__hce_m] = __hce_e[__hce_t];
    ++__hce_m;
  }
  return __hce_m;
}
/* Whether the nw writes (write w: element b0[w] + sum_t c[w*nl+t]*u[t],
   0 <= u[t] < e[w*nl+t], in iteration 0; b1[w] in iteration 1) are exactly
   map m's footprint in every iteration: each moves with it (b1 - b0 ==
   scale), and at iteration 0 they are either intervals whose union is the
   footprint's one interval, or one box shifted along an arithmetic
   progression equal to the footprint. Anything else: 0 (no flag). */
static inline int __hce_writes_cover(const hce_map *__hce_map, int __hce_nw, int __hce_nl,
                                     const int64_t *__hce_b0, const int64_t *__hce_b1,
                                     const int64_t *__hce_c, const int64_t *__hce_e) {
  int64_t __hce_fb = __hce_map->offset, __hce_fc[2], __hce_fe[2];
  int64_t __hce_wb[8], __hce_wc[8][5], __hce_we[8][5], __hce_lo[8], __hce_hi[8], __hce_d;
  int __hce_wn[8], __hce_fn, __hce_w, __hce_t, __hce_n;
  if (__hce_nw < 1 || __hce_nw > 8 || __hce_nl < 1 || __hce_nl > 4)
    return 0;
  __hce_fc[0] = 1, __hce_fe[0] = __hce_map->len;
  __hce_fc[1] = __hce_map->stride, __hce_fe[1] = __hce_map->blocks;
  __hce_fn = __hce_box_canon(&__hce_fb, __hce_fc, __hce_fe, __hce_map->blocks > 1 ? 2 : 1);
  if (__hce_fn < 0)
    return 0;
  for (__hce_w = 0; __hce_w < __hce_nw; ++__hce_w) {
    if (__builtin_sub_overflow(__hce_b1[__hce_w], __hce_b0[__hce_w], &__hce_d) ||
        __hce_d != __hce_map->scale)
      return 0;
    __hce_wb[__hce_w] = __hce_b0[__hce_w];
    for (__hce_t = 0; __hce_t < __hce_nl; ++__hce_t) {
      __hce_wc[__hce_w][__hce_t] = __hce_c[__hce_w * __hce_nl + __hce_t];
      __hce_we[__hce_w][__hce_t] = __hce_e[__hce_w * __hce_nl + __hce_t];
    }
    __hce_wn[__hce_w] = __hce_box_canon(&__hce_wb[__hce_w], __hce_wc[__hce_w], __hce_we[__hce_w], __hce_nl);
    if (__hce_wn[__hce_w] < 0)
      return 0;
  }
  if (__hce_fn == 0 || (__hce_fn == 1 && __hce_fc[0] == 1)) {
    /* Intervals: sorted by start, they must tile [fb, fb + len). */
    int __hce_all = 1;
    int64_t __hce_at = __hce_fb, __hce_end;
    if (__builtin_add_overflow(__hce_fb, __hce_fn ? __hce_fe[0] : 1, &__hce_end))
      return 0;
    for (__hce_w = 0; __hce_w < __hce_nw; ++__hce_w) {
      int __hce_p;
      int64_t __hce_a = __hce_wb[__hce_w], __hce_z;
      __hce_all = __hce_all && (__hce_wn[__hce_w] == 0 ||
                                (__hce_wn[__hce_w] == 1 && __hce_wc[__hce_w][0] == 1));
      if (!__hce_all ||
          __builtin_add_overflow(__hce_a, __hce_wn[__hce_w] ? __hce_we[__hce_w][0] : 1, &__hce_z))
        break;
      for (__hce_p = __hce_w; __hce_p > 0 && __hce_lo[__hce_p - 1] > __hce_a; --__hce_p) {
        __hce_lo[__hce_p] = __hce_lo[__hce_p - 1];
        __hce_hi[__hce_p] = __hce_hi[__hce_p - 1];
      }
      __hce_lo[__hce_p] = __hce_a;
      __hce_hi[__hce_p] = __hce_z;
    }
    if (__hce_w == __hce_nw) {
      for (__hce_w = 0; __hce_w < __hce_nw; ++__hce_w) {
        if (__hce_lo[__hce_w] < __hce_fb || __hce_hi[__hce_w] > __hce_end ||
            __hce_lo[__hce_w] > __hce_at)
          return 0;
        if (__hce_hi[__hce_w] > __hce_at)
          __hce_at = __hce_hi[__hce_w];
      }
      return __hce_at == __hce_end;
    }
  }
  /* One box, its copies at base, base + g, ..., base + (n-1)*g. */
  for (__hce_w = 1; __hce_w < __hce_nw; ++__hce_w) {
    if (__hce_wn[__hce_w] != __hce_wn[0])
      return 0;
    for (__hce_t = 0; __hce_t < __hce_wn[0]; ++__hce_t)
      if (__hce_wc[__hce_w][__hce_t] != __hce_wc[0][__hce_t] ||
          __hce_we[__hce_w][__hce_t] != __hce_we[0][__hce_t])
        return 0;
  }
  for (__hce_w = 0; __hce_w < __hce_nw; ++__hce_w) { /* bases, sorted, distinct */
    int __hce_p;
    int64_t __hce_a = __hce_wb[__hce_w];
    for (__hce_p = __hce_w; __hce_p > 0 && __hce_lo[__hce_p - 1] > __hce_a; --__hce_p)
      __hce_lo[__hce_p] = __hce_lo[__hce_p - 1];
    __hce_lo[__hce_p] = __hce_a;
  }
  for (__hce_n = 1, __hce_w = 1; __hce_w < __hce_nw; ++__hce_w)
    if (__hce_lo[__hce_w] != __hce_lo[__hce_n - 1])
      __hce_lo[__hce_n++] = __hce_lo[__hce_w];
  __hce_wb[0] = __hce_lo[0];
  __hce_n = __hce_n > 1 ? __hce_n : 0;
  if (__hce_n) {
    int64_t __hce_g = __hce_lo[1] - __hce_lo[0];
    for (__hce_w = 2; __hce_w < __hce_n; ++__hce_w)
      if (__hce_lo[__hce_w] - __hce_lo[__hce_w - 1] != __hce_g)
        return 0;
    __hce_wc[0][__hce_wn[0]] = __hce_g;
    __hce_we[0][__hce_wn[0]] = __hce_n;
    __hce_wn[0] = __hce_box_canon(&__hce_wb[0], __hce_wc[0], __hce_we[0], __hce_wn[0] + 1);
  }
  if (__hce_wn[0] != __hce_fn || __hce_wb[0] != __hce_fb)
    return 0;
  for (__hce_t = 0; __hce_t < __hce_fn; ++__hce_t)
    if (__hce_wc[0][__hce_t] != __hce_fc[__hce_t] || __hce_we[0][__hce_t] != __hce_fe[__hce_t])
      return 0;
  return 1;
}
#endif
)";
}

} // namespace hce
