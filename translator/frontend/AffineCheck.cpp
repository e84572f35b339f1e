//===- AffineCheck.cpp - Is a section start affine in the loop var? -------===//
#include "AffineCheck.h"
#include "ClauseLexer.h"

#include <vector>

namespace hce {

namespace {

// Degree of an expression in Var: 0 invariant, 1 affine, 2 non-affine,
// 3 unknown. Combination rules keep "non-affine" over "unknown".
enum Deg { D0 = 0, D1 = 1, DNon = 2, DUnk = 3 };

class Classifier {
public:
  Classifier(const std::vector<ClauseToken> &T, std::string_view Var)
      : T(T), Var(Var) {}
  Deg expr() {
    Deg D = additive();
    if (I != T.size())
      return rest(D, "operator '" + std::string(T[I].Text) + "'");
    return D;
  }
  std::string Why;

private:
  const std::vector<ClauseToken> &T;
  std::string_view Var;
  size_t I = 0;
  /// Nesting of parentheses and unary operators: bounded, so that
  /// adversarial input gives a diagnostic rather than a stack overflow.
  unsigned Depth = 0;
  static constexpr unsigned MaxDepth = 256;
  bool tooDeep() {
    if (Depth <= MaxDepth)
      return false;
    if (Why.empty())
      Why = "nested more than " + std::to_string(MaxDepth) + " levels deep";
    I = T.size();
    return true;
  }

  bool punct(std::string_view P) const {
    return I < T.size() && T[I].Kind == TokKind::Punct && T[I].Text == P;
  }
  // The rest of the tokens form a construct we do not model: if it or the
  // part already parsed mentions Var, the whole is not affine.
  Deg rest(Deg Sofar, std::string Construct) {
    bool Mentions = Sofar != D0;
    for (; I < T.size(); ++I)
      if (T[I].Kind == TokKind::Identifier && T[I].Text == Var)
        Mentions = true;
    if (!Mentions)
      return D0;
    if (Sofar == DUnk)
      return DUnk;
    if (Why.empty())
      Why = Construct;
    return DNon;
  }
  static Deg addDeg(Deg A, Deg B) {
    if (A == DNon || B == DNon)
      return DNon;
    if (A == DUnk || B == DUnk)
      return DUnk;
    return A > B ? A : B;
  }
  Deg mulDeg(Deg A, Deg B) {
    if (A == DNon || B == DNon)
      return DNon;
    if (A == D1 && B == D1) {
      if (Why.empty())
        Why = "product of two terms that use '" + std::string(Var) + "'";
      return DNon;
    }
    if (A == DUnk || B == DUnk)
      return DUnk;
    return A == D1 || B == D1 ? D1 : D0;
  }
  Deg additive() {
    Deg D = multiplicative();
    while (punct("+") || punct("-")) {
      ++I;
      D = addDeg(D, multiplicative());
    }
    return D;
  }
  Deg multiplicative() {
    Deg D = unary();
    while (punct("*") || punct("/") || punct("%")) {
      bool Mul = punct("*");
      std::string Op(T[I].Text);
      ++I;
      Deg R = unary();
      if (Mul) {
        D = mulDeg(D, R);
      } else if (D != D0 || R != D0) {
        if (D == DUnk && R != DNon && R != D1)
          continue; // unknown / invariant stays unknown
        if (Why.empty())
          Why = "'" + Op + "' applied to a term that uses '" +
                std::string(Var) + "'";
        D = DNon;
      }
    }
    return D;
  }
  // Is T[I] '(' the start of a cast "(type-name)"? We accept a parenthesised
  // sequence of identifiers and '*' followed by something that starts an
  // operand.
  bool looksLikeCast() const {
    size_t J = I + 1;
    bool SawIdent = false;
    while (J < T.size() &&
           (T[J].Kind == TokKind::Identifier ||
            (T[J].Kind == TokKind::Punct && T[J].Text == "*"))) {
      if (T[J].Kind == TokKind::Identifier) {
        if (T[J].Text == Var)
          return false;
        SawIdent = true;
      }
      ++J;
    }
    if (!SawIdent || J >= T.size() || T[J].Text != ")" ||
        T[J].Kind != TokKind::Punct)
      return false;
    // Single identifier in parentheses followed by a binary operator is an
    // operand, not a cast: (N) * i.
    if (J + 1 >= T.size())
      return false;
    const ClauseToken &N = T[J + 1];
    if (N.Kind == TokKind::Identifier || N.Kind == TokKind::Number)
      return true;
    return N.Kind == TokKind::Punct && N.Text == "(";
  }
  Deg unary() {
    // -x, +x, casts: a loop, not recursion.
    for (;;) {
      if (punct("-") || punct("+")) {
        ++I;
      } else if (punct("(") && looksLikeCast()) {
        while (!punct(")"))
          ++I;
        ++I;
      } else {
        break;
      }
    }
    return postfix();
  }
  Deg postfix() {
    Deg D = primary();
    while (I < T.size()) {
      if (punct("(") || punct("[")) {
        bool Call = punct("(");
        Deg Inner = balanced();
        if (Call) {
          // A call or function-like macro: we cannot see inside.
          if (Inner != D0 || D != D0)
            D = Inner == DNon ? DNon : DUnk;
        } else if (Inner != D0 || D != D0) {
          if (Why.empty())
            Why = "subscript that uses '" + std::string(Var) + "'";
          D = DNon;
        }
      } else if (punct(".") || punct("->")) {
        ++I;
        if (I < T.size())
          ++I;
        if (D != D0) {
          if (Why.empty())
            Why = "member access";
          D = DNon;
        }
      } else {
        break;
      }
    }
    return D;
  }
  // Skips a balanced (...) or [...] group; returns the degree of what is
  // inside as a whole (D0 when it does not mention Var).
  Deg balanced() {
    size_t Start = I;
    int Depth = 0;
    bool Mentions = false;
    for (; I < T.size(); ++I) {
      const ClauseToken &K = T[I];
      if (K.Kind == TokKind::Identifier && K.Text == Var)
        Mentions = true;
      if (K.Kind != TokKind::Punct)
        continue;
      if (K.Text == "(" || K.Text == "[")
        ++Depth;
      else if (K.Text == ")" || K.Text == "]") {
        if (--Depth == 0) {
          ++I;
          break;
        }
      }
    }
    (void)Start;
    return Mentions ? DUnk : D0;
  }
  Deg primary() {
    if (I >= T.size())
      return D0;
    const ClauseToken &K = T[I];
    if (K.Kind == TokKind::Identifier) {
      ++I;
      return K.Text == Var ? D1 : D0;
    }
    if (K.Kind == TokKind::Number || K.Kind == TokKind::Char ||
        K.Kind == TokKind::String) {
      ++I;
      return D0;
    }
    if (punct("(")) {
      ++I;
      ++Depth;
      if (tooDeep())
        return DNon;
      Deg D = additive();
      --Depth;
      if (!punct(")"))
        return rest(D, I < T.size()
                           ? "operator '" + std::string(T[I].Text) + "'"
                           : "expression");
      ++I;
      return D;
    }
    return rest(D0, "operator '" + std::string(K.Text) + "'");
  }
};

} // namespace

bool mentionsIdentifier(std::string_view Expr, std::string_view Var) {
  for (const ClauseToken &K : lexClauseText(Expr))
    if (K.Kind == TokKind::Identifier && K.Text == Var)
      return true;
  return false;
}

Affinity classifyAffine(std::string_view Expr, std::string_view Var,
                        std::string *Why) {
  std::vector<ClauseToken> Toks = lexClauseText(Expr);
  bool Mentions = false;
  for (const ClauseToken &K : Toks)
    if (K.Kind == TokKind::Identifier && K.Text == Var)
      Mentions = true;
  if (!Mentions)
    return Affinity::Invariant;
  Classifier C(Toks, Var);
  Deg D = C.expr();
  if (Why)
    *Why = C.Why;
  switch (D) {
  case D0:
    return Affinity::Invariant;
  case D1:
    return Affinity::Affine;
  case DNon:
    return Affinity::NonAffine;
  case DUnk:
    return Affinity::Unknown;
  }
  return Affinity::Unknown;
}

} // namespace hce
