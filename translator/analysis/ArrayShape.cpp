//===- ArrayShape.cpp - Dimensions of a mapped variable -------------------===//
#include "ArrayShape.h"
#include "AffineCheck.h"
#include "ClauseLexer.h"
#include "MacroExpand.h"
#include "SourceText.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"

#include <cerrno>
#include <cstring>
#include <functional>

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

/// Integer constant expressions over clause tokens: a recursive-descent
/// evaluator (C precedence for the operators it knows), identifiers
/// resolved by \p Ident. Any other token makes the whole expression
/// unknown.
class ConstEval {
public:
  using IdentFn = std::function<std::optional<int64_t>(std::string_view)>;
  ConstEval(const std::vector<ClauseToken> &Toks, IdentFn Ident)
      : Toks(Toks), Ident(std::move(Ident)) {}

  std::optional<int64_t> run() {
    std::optional<int64_t> V = shift();
    if (!V || I != Toks.size())
      return std::nullopt;
    return V;
  }

private:
  bool is(std::string_view P) const {
    return I < Toks.size() && Toks[I].Kind == TokKind::Punct && Toks[I].Text == P;
  }
  std::optional<int64_t> shift() {
    std::optional<int64_t> L = additive();
    while (L && (is("<<") || is(">>"))) {
      bool Left = Toks[I++].Text == "<<";
      std::optional<int64_t> R = additive();
      if (!R || *R < 0 || *R > 62 || *L < 0)
        return std::nullopt;
      if (Left && *L > (INT64_MAX >> *R))
        return std::nullopt;
      L = Left ? *L << *R : *L >> *R;
    }
    return L;
  }
  std::optional<int64_t> additive() {
    std::optional<int64_t> L = multiplicative();
    while (L && (is("+") || is("-"))) {
      bool Plus = Toks[I++].Text == "+";
      std::optional<int64_t> R = multiplicative();
      int64_t Out;
      if (!R || (Plus ? __builtin_add_overflow(*L, *R, &Out)
                      : __builtin_sub_overflow(*L, *R, &Out)))
        return std::nullopt;
      L = Out;
    }
    return L;
  }
  std::optional<int64_t> multiplicative() {
    std::optional<int64_t> L = unary();
    while (L && (is("*") || is("/") || is("%"))) {
      char Op = Toks[I++].Text[0];
      std::optional<int64_t> R = unary();
      if (!R)
        return std::nullopt;
      int64_t Out;
      if (Op == '*') {
        if (__builtin_mul_overflow(*L, *R, &Out))
          return std::nullopt;
      } else {
        if (*R == 0 || (*L == INT64_MIN && *R == -1))
          return std::nullopt;
        Out = Op == '/' ? *L / *R : *L % *R;
      }
      L = Out;
    }
    return L;
  }
  std::optional<int64_t> unary() {
    if (is("+") || is("-") || is("~")) {
      char Op = Toks[I++].Text[0];
      std::optional<int64_t> V = unary();
      if (!V || (Op == '-' && *V == INT64_MIN))
        return std::nullopt;
      return Op == '+' ? *V : Op == '-' ? -*V : ~*V;
    }
    if (is("(")) {
      ++I;
      std::optional<int64_t> V = shift();
      if (!V || !is(")"))
        return std::nullopt;
      ++I;
      return V;
    }
    if (I >= Toks.size())
      return std::nullopt;
    const ClauseToken &T = Toks[I++];
    if (T.Kind == TokKind::Identifier)
      return Ident(T.Text);
    if (T.Kind != TokKind::Number)
      return std::nullopt;
    std::string Digits(T.Text);
    while (!Digits.empty() && std::strchr("uUlL", Digits.back()))
      Digits.pop_back();
    if (Digits.empty() || Digits.find_first_of(".eEpP") != std::string::npos)
      return std::nullopt; // floating
    errno = 0;
    char *End = nullptr;
    unsigned long long V = std::strtoull(Digits.c_str(), &End, 0);
    if (errno || *End || V > uint64_t(INT64_MAX))
      return std::nullopt;
    return int64_t(V);
  }

  const std::vector<ClauseToken> &Toks;
  IdentFn Ident;
  size_t I = 0;
};

std::string subscripts(const std::string &Name, unsigned Level) {
  std::string S = "(" + Name + ")";
  for (unsigned I = 0; I < Level; ++I)
    S += "[0]";
  return S;
}

} // namespace

namespace {

/// Element types a map can move: not pointers, void, functions, references,
/// incomplete types.
bool isDataType(QualType T) {
  return !(T->isPointerType() || T->isVoidType() || T->isFunctionType() ||
           T->isReferenceType() || T->isIncompleteType());
}

} // namespace

bool shapeOf(const VarDecl *VD, ASTContext &Ctx, ArrayShape &Shape, std::string &Why,
             bool AllowRowTable) {
  Shape = ArrayShape();
  const std::string Name = VD->getName().str();
  QualType T = VD->getType().getNonReferenceType();
  const QualType Whole = T;
  auto TypeStr = [&]() { return Whole.getAsString(printingPolicy(Ctx)); };
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
  // A table of row pointers: `T **rows` or `T *rows[M]`, T data.
  if (Shape.Dims.size() == 1 && T->isPointerType() && !T->isFunctionPointerType() &&
      !T->getPointeeType()->isArrayType() && isDataType(T->getPointeeType())) {
    if (!AllowRowTable) {
      Why = "cannot map '" + Name + "' of type '" + TypeStr() +
            "' whole: it is an array of row pointers; map a section of its rows, "
            "e.g. map(to: " +
            Name + "[i][0:n])";
      return false;
    }
    Shape.RowTable = true;
    Shape.Elem = T->getPointeeType();
    std::vector<std::string> Sp = spelledDims(VD, Ctx);
    if (!Sp.empty() && !Sp[0].empty() && Sp[0] != Shape.Dims[0].Value)
      Shape.Dims[0].Spellings.push_back(Sp[0]);
    return true;
  }
  while (const ArrayType *AT = Ctx.getAsArrayType(T)) {
    if (!AddArrayDim(AT))
      return false;
    T = AT->getElementType();
  }
  if (!isDataType(T)) {
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
      if (InScope &&
          (!Best || SM.isBeforeInTranslationUnit(Best->getLocation(), VD->getLocation())))
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

std::optional<int64_t> constantValue(const std::string &Text, SourceLocation Loc,
                                     const FunctionDecl *Func, ASTContext &Ctx,
                                     const Preprocessor *PP) {
  std::string Expanded = Text;
  if (PP) {
    std::optional<std::string> X = expandMacros(Text, *PP);
    if (!X)
      return std::nullopt;
    Expanded = *X;
  }
  std::vector<ClauseToken> Toks = lexClauseText(Expanded);
  auto Ident = [&](std::string_view Name) -> std::optional<int64_t> {
    // A `const` integer variable with a constant initialiser.
    if (const VarDecl *VD = lookupVisibleVar(Name, Loc, Func, Ctx)) {
      QualType T = VD->getType();
      const Expr *Init = VD->getAnyInitializer();
      Expr::EvalResult R;
      if (T.isConstQualified() && T->isIntegerType() && Init &&
          Init->EvaluateAsInt(R, Ctx) && R.Val.getInt().getSignificantBits() <= 64)
        return R.Val.getInt().getExtValue();
      return std::nullopt;
    }
    // An enumerator of the function or of the file.
    std::vector<const DeclContext *> Scopes;
    if (Func)
      Scopes.push_back(Func);
    Scopes.push_back(Ctx.getTranslationUnitDecl());
    IdentifierInfo &II = Ctx.Idents.get(Name);
    for (const DeclContext *DC : Scopes) {
      std::vector<const DeclContext *> Work{DC};
      while (!Work.empty()) {
        const DeclContext *C = Work.back();
        Work.pop_back();
        for (const NamedDecl *ND : C->lookup(DeclarationName(&II)))
          if (const auto *EC = dyn_cast<EnumConstantDecl>(ND))
            if (EC->getInitVal().getSignificantBits() <= 64)
              return EC->getInitVal().getExtValue();
        if (C == Func) // enums declared in the function's blocks
          for (const Decl *D : cast<FunctionDecl>(C)->decls())
            if (const auto *ED = dyn_cast<EnumDecl>(D))
              Work.push_back(ED);
      }
    }
    return std::nullopt;
  };
  return ConstEval(Toks, Ident).run();
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

namespace {

/// \p S with the lengths that fold to their dimension's constant extent
/// added to the spellings of that extent in \p Shape, and starts that fold
/// to 0 written "0": such dimensions are whole.
Section foldWholeDimensions(const Section &S, const VarDecl *VD, ArrayShape &Shape,
                            const PragmaRecord &P, ASTContext &Ctx,
                            const Preprocessor *PP) {
  Section Out = S;
  const FunctionDecl *Func =
      VD ? dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod()) : nullptr;
  if (!Func && VD && VD->getDeclContext()->isFunctionOrMethod())
    Func = dyn_cast<FunctionDecl>(VD->getDeclContext());
  for (size_t D = 0; D < Out.Dims.size() && D < Shape.Dims.size(); ++D) {
    SectionDim &SD = Out.Dims[D];
    if (!SD.HasColon)
      continue;
    ArrayDim &AD = Shape.Dims[D];
    if (!SD.Lo.empty() && SD.Lo.Text != "0")
      if (std::optional<int64_t> Lo = constantValue(SD.Lo.Text, P.HashLoc, Func, Ctx, PP);
          Lo && *Lo == 0)
        SD.Lo.Text = "0";
    if (SD.Len.empty() || AD.Value.empty() ||
        AD.Value.find_first_not_of("0123456789") != std::string::npos)
      continue;
    std::optional<int64_t> Len = constantValue(SD.Len.Text, P.HashLoc, Func, Ctx, PP);
    if (Len && std::to_string(*Len) == AD.Value)
      AD.Spellings.push_back(SD.Len.Text);
  }
  return Out;
}

/// describeSection for a table of row pointers: `rows[r][c0:n]`, the first
/// subscript a section of the table (laid out as any 1-D section), the
/// second the elements of each row, the same for every iteration.
bool describeRowSection(const Section &Written, const VarDecl *VD, ArrayShape &Shape,
                        const std::string &LoopVar, const PragmaRecord &P,
                        ASTContext &Ctx, Diag &D, MappedArray &M,
                        const Preprocessor *PP) {
  const std::string &Name = Written.Name;
  const std::string TypeStr =
      VD->getType().getNonReferenceType().getAsString(printingPolicy(Ctx));
  if (Written.Dims.size() != 2) {
    size_t At = Written.Dims.size() > 2 ? Written.Dims[2].Offset : Written.Offset;
    D.error(P.locAt(At), "'" + Name + "' is an array of row pointers ('" + TypeStr +
                             "'): map a section of its rows with two subscripts, the "
                             "rows and the elements of each row, e.g. map(to: " +
                             Name + "[i][0:n])");
    return false;
  }
  const SectionDim &Col = Written.Dims[1];
  if (Col.HasColon && Col.Len.empty()) {
    D.error(P.locAt(Col.Offset), "the length of the rows of '" + Name +
                                     "' is not known: give the elements of each row as "
                                     "[start:length], e.g. " +
                                     Name + "[" + Written.Dims[0].Lo.Text + "][0:n]");
    return false;
  }
  if (!LoopVar.empty() && (mentionsIdentifier(Col.Lo.Text, LoopVar) ||
                           mentionsIdentifier(Col.Len.Text, LoopVar))) {
    D.error(P.locAt(Col.Offset),
            "the elements of each row of '" + Name +
                "' must be the same for every iteration: they cannot use the loop "
                "variable '" +
                LoopVar + "' (the rows can, e.g. " + Name + "[" + LoopVar + "][0:n])");
    return false;
  }
  Section Table = Written;
  Table.Dims.resize(1);
  Table = foldWholeDimensions(Table, VD, Shape, P, Ctx, PP);
  SectionLayoutResult L;
  ClauseError Err;
  if (!layoutSection(Table, Shape.Dims, LoopVar, L, Err)) {
    D.error(P.locAt(Err.Offset), Err.Message);
    return false;
  }
  M.Rows = true;
  M.RowOffsetText = Col.Lo.empty() ? "0" : Col.Lo.Text;
  M.RowLenText = Col.HasColon ? Col.Len.Text : "1";
  M.LoText = L.OffsetText;
  M.LenText = L.LenText;
  M.BlocksText = L.BlocksText;
  M.StrideText = L.StrideText;
  M.PerIteration = L.PerIteration;
  M.Rank = 2; // elem_size: sizeof((rows)[0][0])
  M.SectionText = sectionText(Written);
  M.ExtentText =
      Shape.Dims[0].Value.empty() ? "" : "(int64_t)(" + Shape.Dims[0].Value + ")";
  QualType Table2 = Ctx.getPointerType(Ctx.getPointerType(Shape.Elem));
  M.PtrDecl = declString(Table2, Name, Ctx);
  M.PtrType = declString(Table2, "", Ctx);
  return true;
}

} // namespace

bool describeSection(const Section &Written, const VarDecl *VD,
                     const std::string &LoopVar, unsigned MapIndex, const PragmaRecord &P,
                     ASTContext &Ctx, Diag &D, MappedArray &M,
                     std::vector<CapturedVar> *Extents, const Preprocessor *PP,
                     bool Verbose) {
  ArrayShape Shape;
  if (VD) {
    std::string Why;
    if (!shapeOf(VD, Ctx, Shape, Why, /*AllowRowTable=*/true)) {
      D.error(P.locAt(Written.Offset), Why);
      return false;
    }
    if (Shape.RowTable)
      return describeRowSection(Written, VD, Shape, LoopVar, P, Ctx, D, M, PP);
  } else {
    Shape.Dims.push_back(ArrayDim());
    Shape.IsVariable.push_back(false);
  }
  const Section S = foldWholeDimensions(Written, VD, Shape, P, Ctx, PP);
  SectionLayoutResult L;
  ClauseError Err;
  if (!layoutSection(S, Shape.Dims, LoopVar, L, Err)) {
    D.error(P.locAt(Err.Offset), Err.Message);
    return false;
  }
  if (Verbose && !L.Widened.empty()) {
    std::string Dims;
    for (size_t Dm : L.Widened)
      Dims += (Dims.empty() ? "" : ", ") + std::to_string(Dm);
    DiagnosticsEngine &DE = D.engine();
    DE.Report(P.locAt(Written.Offset),
              DE.getCustomDiagID(DiagnosticsEngine::Remark, "%0"))
        << "the section " + sectionText(Written) + " takes part of more than one " +
               "inner dimension: it moves as whole dimension" +
               (L.Widened.size() > 1 ? "s " : " ") + Dims + " of '" + Written.Name +
               "' (its elements outside the section are kept as they are)";
  }
  M.LoText = L.OffsetText;
  M.LenText = L.LenText;
  M.BlocksText = L.BlocksText;
  M.StrideText = L.StrideText;
  M.PerIteration = L.PerIteration;
  M.Rank = static_cast<unsigned>(Shape.Dims.size());
  if (M.Rank > 1)
    M.SectionText = sectionText(Written);
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
      C.Name = "__hce_ext_" + std::to_string(MapIndex) + "_" + std::to_string(Dm);
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
