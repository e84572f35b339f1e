//===- ClauseLexer.cpp - Tokens of a #pragma hce clause list --------------===//
#include "ClauseLexer.h"

#include <cctype>

namespace hce {

namespace {

bool isIdentStart(char C) {
  return std::isalpha(static_cast<unsigned char>(C)) || C == '_' || C == '$';
}
bool isIdentChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '$';
}

// Skips whitespace, comments and line splices. Returns false when an
// unterminated block comment runs to the end.
bool skipTrivia(std::string_view T, size_t &P) {
  while (P < T.size()) {
    char C = T[P];
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' ||
        C == '\v') {
      ++P;
    } else if (C == '\\' && P + 1 < T.size() &&
               (T[P + 1] == '\n' || T[P + 1] == '\r')) {
      P += 2;
    } else if (C == '/' && P + 1 < T.size() && T[P + 1] == '*') {
      size_t E = T.find("*/", P + 2);
      if (E == std::string_view::npos)
        return false;
      P = E + 2;
    } else if (C == '/' && P + 1 < T.size() && T[P + 1] == '/') {
      size_t E = T.find('\n', P);
      P = E == std::string_view::npos ? T.size() : E;
    } else {
      break;
    }
  }
  return true;
}

const char *const Puncts3[] = {"<<=", ">>=", "...", "->*"};
const char *const Puncts2[] = {
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "->",
    "::", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##"};

} // namespace

std::vector<ClauseToken> lexClauseText(std::string_view T) {
  std::vector<ClauseToken> Out;
  size_t P = 0;
  while (true) {
    size_t Before = P;
    if (!skipTrivia(T, P)) {
      Out.push_back({TokKind::Invalid, T.substr(Before), Before, true});
      return Out;
    }
    if (P >= T.size())
      break;
    bool Space = P != Before;
    size_t S = P;
    char C = T[P];
    TokKind K;
    if (isIdentStart(C)) {
      while (P < T.size() && isIdentChar(T[P]))
        ++P;
      K = TokKind::Identifier;
    } else if (std::isdigit(static_cast<unsigned char>(C)) ||
               (C == '.' && P + 1 < T.size() &&
                std::isdigit(static_cast<unsigned char>(T[P + 1])))) {
      // pp-number: digits, letters, '.', and signs after an exponent.
      ++P;
      while (P < T.size()) {
        char D = T[P];
        if ((D == '+' || D == '-') && (T[P - 1] == 'e' || T[P - 1] == 'E' ||
                                       T[P - 1] == 'p' || T[P - 1] == 'P')) {
          ++P;
        } else if (isIdentChar(D) || D == '.' || D == '\'') {
          ++P;
        } else {
          break;
        }
      }
      K = TokKind::Number;
    } else if (C == '"' || C == '\'') {
      ++P;
      bool Closed = false;
      while (P < T.size()) {
        if (T[P] == '\\' && P + 1 < T.size()) {
          P += 2;
          continue;
        }
        if (T[P] == '\n')
          break;
        if (T[P] == C) {
          ++P;
          Closed = true;
          break;
        }
        ++P;
      }
      if (!Closed) {
        Out.push_back({TokKind::Invalid, T.substr(S), S, Space});
        return Out;
      }
      K = C == '"' ? TokKind::String : TokKind::Char;
    } else {
      K = TokKind::Punct;
      size_t Len = 1;
      for (const char *Pu : Puncts3)
        if (T.substr(P, 3) == Pu)
          Len = 3;
      if (Len == 1)
        for (const char *Pu : Puncts2)
          if (T.substr(P, 2) == Pu)
            Len = 2;
      P += Len;
    }
    Out.push_back({K, T.substr(S, P - S), S, Space});
  }
  return Out;
}

std::string joinTokens(const std::vector<ClauseToken> &Toks, size_t Begin,
                       size_t End) {
  std::string S;
  for (size_t I = Begin; I < End && I < Toks.size(); ++I) {
    if (I != Begin && Toks[I].SpaceBefore)
      S += ' ';
    S += Toks[I].Text;
  }
  return S;
}

} // namespace hce
