//===- ArrayReduction.cpp - reduction(OP: hist[lo:len]) -------------------===//
#include "ArrayReduction.h"
#include "ClauseLexer.h"
#include "ClauseParser.h"
#include "MacroExpand.h"
#include "SourceText.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace hce {

std::string reductionTypeEnum(QualType T, const ASTContext &Ctx) {
  QualType C = T.getCanonicalType().getUnqualifiedType();
  if (const auto *BT = C->getAs<BuiltinType>()) {
    if (BT->getKind() == BuiltinType::Float)
      return "HCE_TYPE_F32";
    if (BT->getKind() == BuiltinType::Double)
      return "HCE_TYPE_F64";
    if (BT->isInteger()) {
      uint64_t Bits = Ctx.getTypeSize(C);
      bool Signed = C->isSignedIntegerType();
      if (Bits == 8 || Bits == 16 || Bits == 32 || Bits == 64)
        return std::string("HCE_TYPE_") + (Signed ? "I" : "U") + std::to_string(Bits);
    }
  }
  return "";
}

bool isArrayReduction(QualType T, const std::optional<ReductionSection> &Sec) {
  return Sec || T->isArrayType();
}

namespace {

/// The value of a section bound written as \p Text, when it is a constant
/// (after macro expansion).
std::optional<int64_t> constantOf(const std::string &Text, const Preprocessor *PP) {
  if (std::optional<int64_t> V = evalConstantClauseExpr(Text))
    return V;
  if (!PP)
    return std::nullopt;
  std::optional<std::string> X = expandMacros(Text, *PP);
  return X ? evalConstantClauseExpr(*X) : std::nullopt;
}

bool mentions(const std::string &Text, const std::string &Name) {
  for (const ClauseToken &T : lexClauseText(Text))
    if (T.Kind == TokKind::Identifier && T.Text == Name)
      return true;
  return false;
}

} // namespace

bool describeArrayReduction(const VarDecl *VD, const std::optional<ReductionSection> &Sec,
                            SourceLocation NameLoc, size_t Index, const Preprocessor *PP,
                            ASTContext &Ctx, Diag &D, ReductionVar &RV,
                            std::vector<CapturedVar> &Extents) {
  const std::string &Name = RV.Name;
  QualType T = VD->getType();
  SourceLocation SecLoc = Sec ? Sec->Loc : NameLoc;
  auto Fail = [&](SourceLocation L, const std::string &Msg) {
    D.error(L.isValid() ? L : NameLoc, Msg);
    return false;
  };
  QualType Elem;
  std::optional<int64_t> N; // elements of a constant-size array
  std::string ExtentText;   // elements of an array, at the site
  if (const ArrayType *AT = Ctx.getAsArrayType(T)) {
    Elem = AT->getElementType();
    if (Elem->isArrayType())
      return Fail(NameLoc, "array reduction over '" + Name +
                               "', a multi-dimensional array, is not supported; "
                               "reduce over a one-dimensional array or a pointer");
    if (const auto *CAT = dyn_cast<ConstantArrayType>(AT))
      N = static_cast<int64_t>(CAT->getSize().getZExtValue());
    if (!isa<IncompleteArrayType>(AT))
      ExtentText = "(int64_t)(sizeof(" + Name + ") / sizeof((" + Name + ")[0]))";
  } else if (T->isPointerType() && !T->isFunctionPointerType()) {
    Elem = T->getPointeeType();
  } else {
    return Fail(SecLoc, "'" + Name + "' is not an array or a pointer, so '" + Name +
                            "[...]' is not an array section; write reduction(" +
                            RV.OpSpelling + ": " + Name + ") for a scalar");
  }
  if (Elem.isConstQualified())
    return Fail(NameLoc, "the elements of the array reduction '" + Name + "' are const");
  RV.TypeEnum = reductionTypeEnum(Elem, Ctx);
  if (RV.TypeEnum.empty())
    return Fail(NameLoc, "the elements of the array reduction '" + Name + "' have type '" +
                             Elem.getAsString(printingPolicy(Ctx)) +
                             "'; expected an integer, float or double");

  // The section: [lo:len], [lo:] or the whole array.
  const std::string Lo = Sec && !Sec->Lo.empty() ? Sec->Lo : "0";
  std::string Len;
  if (Sec && !Sec->Len.empty()) {
    Len = Sec->Len;
  } else if (ExtentText.empty()) {
    return Fail(SecLoc, "the length of '" + Name + "' is unknown; write a section such as " +
                            Name + "[0:n]");
  } else {
    Len = Lo == "0" ? ExtentText : "(" + ExtentText + ") - (" + Lo + ")";
  }
  std::optional<int64_t> LoC = constantOf(Lo, PP);
  std::optional<int64_t> LenC =
      Sec && !Sec->Len.empty() ? constantOf(Len, PP)
      : N && LoC               ? std::optional<int64_t>(*N - *LoC)
                               : std::nullopt;
  SourceLocation LoLoc = Sec && Sec->LoLoc.isValid() ? Sec->LoLoc : SecLoc;
  SourceLocation LenLoc = Sec && Sec->LenLoc.isValid() ? Sec->LenLoc : SecLoc;
  if (LoC && *LoC < 0)
    return Fail(LoLoc, "the section of '" + Name + "' starts at element " +
                           std::to_string(*LoC) + ", before the array");
  if (LenC && *LenC <= 0)
    return Fail(LenLoc, "the section of the array reduction '" + Name + "' is empty (length " +
                            std::to_string(*LenC) + ")");
  if (N && LoC && LenC && *LenC > *N - *LoC)
    return Fail(SecLoc, "the section [" + std::to_string(*LoC) + ":" + std::to_string(*LenC) +
                            "] of '" + Name + "' ends at element " +
                            std::to_string(*LoC + *LenC) + ", beyond the " +
                            std::to_string(*N) + " elements of the array");

  QualType ElemU = Elem.getUnqualifiedType();
  RV.IsArray = true;
  RV.Decl = declString(Ctx.getPointerType(ElemU), Name, Ctx);
  RV.PtrType = declString(Ctx.getPointerType(ElemU), "", Ctx);
  RV.ExtentText = ExtentText;
  RV.LenConst = LenC;
  RV.Loc = NameLoc;
  RV.LoArg = "__hce_rlo_" + std::to_string(Index);
  RV.LenArg = "__hce_rlen_" + std::to_string(Index);
  for (const auto &[Arg, Text] : {std::pair{RV.LoArg, Lo}, std::pair{RV.LenArg, Len}}) {
    CapturedVar C;
    C.Name = Arg;
    C.Decl = "int64_t " + Arg;
    C.ConstDecl = "const int64_t " + Arg;
    C.Value = "(int64_t)(" + Text + ")";
    Extents.push_back(C);
  }
  return true;
}

bool sectionUsesLoopVar(const std::optional<ReductionSection> &Sec, const std::string &LoopVar,
                        SourceLocation &Where) {
  if (!Sec)
    return false;
  if (mentions(Sec->Lo, LoopVar)) {
    Where = Sec->LoLoc;
    return true;
  }
  if (mentions(Sec->Len, LoopVar)) {
    Where = Sec->LenLoc;
    return true;
  }
  return false;
}

namespace {

bool idempotent(RedOp Op) {
  return Op == RedOp::Min || Op == RedOp::Max || Op == RedOp::BAnd || Op == RedOp::BOr ||
         Op == RedOp::LAnd || Op == RedOp::LOr;
}

/// The compound assignment that applies the operator, if C has one.
bool compoundMatches(RedOp Op, BinaryOperatorKind K) {
  switch (Op) {
  case RedOp::Add: return K == BO_AddAssign || K == BO_SubAssign;
  case RedOp::Mul: return K == BO_MulAssign;
  case RedOp::BAnd: return K == BO_AndAssign;
  case RedOp::BOr: return K == BO_OrAssign;
  case RedOp::BXor: return K == BO_XorAssign;
  default: return false;
  }
}

std::string expectedForm(const ReductionVar &RV) {
  const std::string A = RV.Name + "[e]";
  switch (RV.Op) {
  case RedOp::Add: return "'" + A + " += v', '" + A + " -= v' or '" + A + "++'";
  case RedOp::Mul: return "'" + A + " *= v'";
  case RedOp::BXor: return "'" + A + " ^= v'";
  case RedOp::BAnd: return "'" + A + " &= v' or '" + A + " = v'";
  case RedOp::BOr: return "'" + A + " |= v' or '" + A + " = v'";
  default: return "'" + A + " = v'";
  }
}

class UseChecker : public RecursiveASTVisitor<UseChecker> {
public:
  UseChecker(const VarDecl *VD, ReductionVar &RV, ASTContext &Ctx)
      : VD(VD), RV(RV), Ctx(Ctx) {}

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl() != VD || !RV.AtomicWhy.empty())
      return true;
    if (!atomicUse(E)) {
      RV.AtomicWhy = "the array reduction '" + RV.Name +
                     "' is used here in a form a GPU cannot apply atomically "
                     "(expected " +
                     expectedForm(RV) + " as a statement of its own)";
      RV.AtomicLoc = E->getBeginLoc();
    }
    return true;
  }

private:
  const VarDecl *VD;
  ReductionVar &RV;
  ASTContext &Ctx;

  const Stmt *parent(const Stmt *S) const {
    DynTypedNodeList Ps = Ctx.getParents(*S);
    return Ps.empty() ? nullptr : Ps[0].get<Stmt>();
  }
  /// The first ancestor that is not a parenthesis (or an implicit cast,
  /// when \p Casts).
  const Stmt *up(const Stmt *&S, bool Casts) const {
    const Stmt *P = parent(S);
    while (P && (isa<ParenExpr>(P) || (Casts && isa<ImplicitCastExpr>(P)))) {
      S = P;
      P = parent(P);
    }
    return P;
  }
  /// The value of \p E is not used: it is a statement of its own.
  bool discarded(const Stmt *E) const {
    const Stmt *P = up(E, false);
    return P && !isa<Expr>(P);
  }
  bool atomicUse(const DeclRefExpr *E) const {
    const Stmt *Cur = E;
    const Stmt *P = up(Cur, true);
    const auto *ASE = dyn_cast_or_null<ArraySubscriptExpr>(P);
    if (!ASE || ASE->getBase()->IgnoreParenImpCasts() != E)
      return false;
    const Stmt *A = ASE;
    const Stmt *Q = up(A, false);
    if (const auto *CAO = dyn_cast_or_null<CompoundAssignOperator>(Q))
      return CAO->getLHS()->IgnoreParens() == ASE && compoundMatches(RV.Op, CAO->getOpcode()) &&
             discarded(CAO);
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Q))
      return UO->isIncrementDecrementOp() && RV.Op == RedOp::Add && discarded(UO);
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Q);
        BO && BO->getOpcode() == BO_Assign && BO->getLHS()->IgnoreParens() == ASE)
      return idempotent(RV.Op) && discarded(BO);
    if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(Q))
      return IC->getCastKind() == CK_LValueToRValue && idempotent(RV.Op);
    return false;
  }
};

} // namespace

void checkAtomicUses(const Stmt *Body, const VarDecl *VD, ReductionVar &RV, ASTContext &Ctx) {
  UseChecker C(VD, RV, Ctx);
  C.TraverseStmt(const_cast<Stmt *>(Body));
}

} // namespace hce
