//===- AffineCheck.h - Is a section start affine in the loop var? -*- C++ -*-//
//
// A syntactic check of an expression kept as text: does it depend on the loop
// variable, and if so is it visibly affine (a*i + b with a, b invariant)?
// Pure function, no Clang dependency. The runtime re-checks what this cannot
// decide (calls and macros taking the loop variable).
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_AFFINECHECK_H
#define HCE_TRANSLATOR_AFFINECHECK_H

#include <string>
#include <string_view>

namespace hce {

enum class Affinity {
  Invariant, ///< does not mention the variable
  Affine,    ///< visibly a*Var + b
  NonAffine, ///< visibly not affine (Var*Var, Var/2, X[Var], Var<<1, ...)
  Unknown    ///< mentions Var inside a call or macro; cannot tell
};

/// Classifies \p Expr with respect to the variable \p Var. When the result is
/// NonAffine, \p Why says which construct made it so.
Affinity classifyAffine(std::string_view Expr, std::string_view Var,
                        std::string *Why = nullptr);

/// True when the identifier \p Var occurs as a token in \p Expr.
bool mentionsIdentifier(std::string_view Expr, std::string_view Var);

} // namespace hce

#endif
