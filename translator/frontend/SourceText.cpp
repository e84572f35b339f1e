//===- SourceText.cpp - Verbatim source text of AST nodes -----------------===//
#include "SourceText.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <cctype>

using namespace clang;

namespace hce {

std::string indentOf(const SourceManager &SM, SourceLocation L) {
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(SM.getFileID(L), &Invalid);
  if (Invalid)
    return "";
  unsigned Off = SM.getFileOffset(L), B = Off;
  while (B > 0 && Buf[B - 1] != '\n')
    --B;
  std::string In;
  for (unsigned I = B; I < Off && (Buf[I] == ' ' || Buf[I] == '\t'); ++I)
    In += Buf[I];
  return In;
}

CharSourceRange fileRange(SourceRange R, const ASTContext &Ctx) {
  return Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R),
                                  Ctx.getSourceManager(), Ctx.getLangOpts());
}

CharSourceRange stmtFileRange(const Stmt *S, const ASTContext &Ctx) {
  CharSourceRange FR = fileRange(S->getSourceRange(), Ctx);
  if (FR.isInvalid())
    return FR;
  const SourceManager &SM = Ctx.getSourceManager();
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(SM.getFileID(FR.getEnd()), &Invalid);
  unsigned End = SM.getFileOffset(FR.getEnd());
  if (Invalid || End == 0 || Buf[End - 1] == '}')
    return FR;
  unsigned P = End;
  while (P < Buf.size()) {
    if (isspace(static_cast<unsigned char>(Buf[P]))) {
      ++P;
    } else if (Buf.substr(P).starts_with("/*")) {
      size_t E = Buf.find("*/", P + 2);
      if (E == StringRef::npos)
        return FR;
      P = E + 2;
    } else if (Buf.substr(P).starts_with("//")) {
      size_t E = Buf.find('\n', P);
      if (E == StringRef::npos)
        return FR;
      P = E;
    } else {
      break;
    }
  }
  if (P < Buf.size() && Buf[P] == ';')
    FR.setEnd(FR.getEnd().getLocWithOffset(P + 1 - End));
  return FR;
}

std::optional<std::string> rangeText(CharSourceRange FR,
                                     const ASTContext &Ctx) {
  bool Invalid = false;
  StringRef T = Lexer::getSourceText(FR, Ctx.getSourceManager(),
                                     Ctx.getLangOpts(), &Invalid);
  if (Invalid)
    return std::nullopt;
  return T.str();
}

std::optional<std::string> sourceText(SourceRange R, const ASTContext &Ctx) {
  CharSourceRange FR = fileRange(R, Ctx);
  if (FR.isInvalid())
    return std::nullopt;
  bool Invalid = false;
  StringRef T = Lexer::getSourceText(FR, Ctx.getSourceManager(),
                                     Ctx.getLangOpts(), &Invalid);
  if (Invalid)
    return std::nullopt;
  return T.str();
}

namespace {
class RefFinder : public RecursiveASTVisitor<RefFinder> {
public:
  explicit RefFinder(const VarDecl *VD) : VD(VD) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl() == VD)
      Found = true;
    return !Found;
  }
  const VarDecl *VD;
  bool Found = false;
};
} // namespace

bool refersTo(const Stmt *S, const VarDecl *VD) {
  RefFinder F(VD);
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

PrintingPolicy printingPolicy(const ASTContext &Ctx) {
  PrintingPolicy P(Ctx.getLangOpts());
  P.SuppressTagKeyword = false;
  P.PrintCanonicalTypes = false;
  return P;
}

static bool isFunctionLocal(const Decl *D) {
  return D && D->getDeclContext()->getRedeclContext()->isFunctionOrMethod();
}

bool isNameableType(QualType T, const ASTContext &Ctx, std::string &Why) {
  // Look through pointers and arrays at the named types inside.
  QualType Cur = T;
  while (true) {
    if (const auto *TT = Cur->getAs<TypedefType>()) {
      if (isFunctionLocal(TT->getDecl())) {
        Why = "its type '" + TT->getDecl()->getName().str() +
              "' is declared inside a function";
        return false;
      }
    }
    if (const TagDecl *TD = Cur->getAsTagDecl()) {
      if (!Cur->getAs<TypedefType>()) {
        if (isFunctionLocal(TD)) {
          Why = "its type is declared inside a function";
          return false;
        }
        if (TD->getName().empty() && !TD->getTypedefNameForAnonDecl()) {
          Why = "its type is an anonymous struct, union or enum";
          return false;
        }
      }
    }
    if (Cur->isPointerType() && !Cur->isFunctionPointerType()) {
      Cur = Cur->getPointeeType();
      continue;
    }
    if (const ArrayType *AT = Ctx.getAsArrayType(Cur)) {
      Cur = AT->getElementType();
      continue;
    }
    break;
  }
  return true;
}

std::string declString(QualType T, const std::string &Name,
                       const ASTContext &Ctx) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  T.print(OS, printingPolicy(Ctx), Name);
  OS.flush();
  return S;
}

} // namespace hce
