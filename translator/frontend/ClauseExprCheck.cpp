//===- ClauseExprCheck.cpp - Expressions in clauses, checked early --------===//
#include "ClauseExprCheck.h"
#include "ArrayShape.h"
#include "ClauseLexer.h"

#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace hce {

namespace {

bool declaredInFunction(const FunctionDecl *Func, StringRef Name) {
  if (!Func || !Func->hasBody())
    return false;
  struct Finder : RecursiveASTVisitor<Finder> {
    StringRef Name;
    bool Found = false;
    bool VisitNamedDecl(NamedDecl *ND) {
      if (ND->getIdentifier() && ND->getName() == Name)
        Found = true;
      return !Found;
    }
  } F;
  F.Name = Name;
  F.TraverseDecl(const_cast<FunctionDecl *>(Func));
  return F.Found;
}

bool declared(StringRef Name, const std::string &LoopVar, const PragmaRecord &P,
              const FunctionDecl *Func, ASTContext &Ctx) {
  if (Name == LoopVar)
    return true;
  IdentifierInfo &II = Ctx.Idents.get(Name);
  if (II.hasMacroDefinition() || II.getBuiltinID() != 0)
    return true;
  if (lookupVisibleVar(Name, P.HashLoc, Func, Ctx))
    return true;
  if (!Ctx.getTranslationUnitDecl()->lookup(DeclarationName(&II)).empty())
    return true;
  return declaredInFunction(Func, Name);
}

} // namespace

bool checkClauseExpr(const ClauseExpr &E, const std::string &LoopVar,
                     const PragmaRecord &P, const FunctionDecl *Func, ASTContext &Ctx,
                     Diag &D) {
  std::vector<ClauseToken> Toks = lexClauseText(E.Text);
  int Depth = 0;
  for (size_t K = 0; K < Toks.size(); ++K) {
    const ClauseToken &T = Toks[K];
    SourceLocation Loc = P.locAt(E.Offset + T.Offset);
    std::string Text(T.Text);
    if (T.Kind == TokKind::Invalid) {
      D.error(Loc, "invalid token in the clause expression");
      return false;
    }
    if (T.Kind == TokKind::Punct) {
      if (Text == "++" || Text == "--" ||
          (Text.back() == '=' && Text != "==" && Text != "!=" && Text != "<=" &&
           Text != ">=")) {
        D.error(Loc, "'" + Text +
                         "' is not allowed in a clause expression: it must not modify "
                         "anything");
        return false;
      }
      if (Text == "(" || Text == "[")
        ++Depth;
      if ((Text == ")" || Text == "]") && --Depth < 0) {
        D.error(Loc, "unbalanced '" + Text + "' in the clause expression");
        return false;
      }
      continue;
    }
    if (T.Kind != TokKind::Identifier)
      continue;
    bool Member = K > 0 && (Toks[K - 1].Text == "." || Toks[K - 1].Text == "->");
    if (!Member && !declared(T.Text, LoopVar, P, Func, Ctx)) {
      D.error(Loc, "use of undeclared identifier '" + Text + "'");
      return false;
    }
  }
  if (Depth != 0) {
    D.error(P.locAt(E.Offset), "unbalanced brackets in the clause expression");
    return false;
  }
  return true;
}

} // namespace hce
