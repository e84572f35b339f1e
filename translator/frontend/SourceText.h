//===- SourceText.h - Verbatim source text of AST nodes ---------*- C++ -*-===//
#ifndef HCE_TRANSLATOR_SOURCETEXT_H
#define HCE_TRANSLATOR_SOURCETEXT_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceLocation.h"

#include <optional>
#include <string>

namespace hce {

/// The file range that spells \p R (macro expansions mapped to the text
/// that invoked them); invalid when the range cannot be expressed in the file.
clang::CharSourceRange fileRange(clang::SourceRange R,
                                 const clang::ASTContext &Ctx);

/// The file range of statement \p S including the ';' that ends it when the
/// statement's own range stops before it (expression statements).
clang::CharSourceRange stmtFileRange(const clang::Stmt *S,
                                     const clang::ASTContext &Ctx);

/// The source text of \p R (a file char range).
std::optional<std::string> rangeText(clang::CharSourceRange R,
                                     const clang::ASTContext &Ctx);

/// The source text spelling \p R, as written (macros unexpanded).
std::optional<std::string> sourceText(clang::SourceRange R,
                                      const clang::ASTContext &Ctx);

/// True when \p S refers to the variable \p VD anywhere.
bool refersTo(const clang::Stmt *S, const clang::VarDecl *VD);

/// The blanks (spaces and tabs) before \p L on its line: the indentation of
/// generated code that replaces the text at \p L.
std::string indentOf(const clang::SourceManager &SM, clang::SourceLocation L);

/// Printing policy for types in generated code.
clang::PrintingPolicy printingPolicy(const clang::ASTContext &Ctx);

/// True when generated file-scope code can name \p T; otherwise \p Why
/// says why not (declared inside a function, anonymous).
bool isNameableType(clang::QualType T, const clang::ASTContext &Ctx,
                    std::string &Why);

/// The declaration of \p Name with type \p T ("int (*f)(int)",
/// "double *A"); with an empty name, the type alone as in a cast.
std::string declString(clang::QualType T, const std::string &Name,
                       const clang::ASTContext &Ctx);

} // namespace hce

#endif
