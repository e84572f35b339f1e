//===- MacroExpand.cpp - Clause text with the macros expanded -------------===//
#include "MacroExpand.h"
#include "ClauseLexer.h"

#include "clang/Lex/MacroInfo.h"

#include <vector>

using namespace clang;

namespace hce {

namespace {

constexpr unsigned MaxDepth = 16;
constexpr size_t MaxSize = 1 << 16;

std::optional<std::string> expand(const std::string &Text, const Preprocessor &PP,
                                  unsigned Depth) {
  if (Depth > MaxDepth || Text.size() > MaxSize)
    return std::nullopt;
  std::vector<ClauseToken> T = lexClauseText(Text);
  std::string Out;
  bool Changed = false;
  for (size_t K = 0; K < T.size(); ++K) {
    std::string Tok(T[K].Text);
    const MacroInfo *MI = nullptr;
    if (T[K].Kind == TokKind::Identifier)
      if (auto It = PP.getIdentifierTable().find(Tok);
          It != PP.getIdentifierTable().end())
        MI = PP.getMacroInfo(It->getValue());
    if (!MI || (MI->isFunctionLike() && (K + 1 >= T.size() || T[K + 1].Text != "("))) {
      Out += (Out.empty() ? "" : " ") + Tok;
      continue;
    }
    // Arguments of a function-like macro: top-level commas split them.
    std::vector<std::string> Args;
    if (MI->isFunctionLike()) {
      int Level = 0;
      std::string Cur;
      size_t J = K + 1;
      for (; J < T.size(); ++J) {
        std::string_view S = T[J].Text;
        if (S == "(" && Level++ == 0)
          continue;
        if (S == ")" && --Level == 0)
          break;
        if (S == "," && Level == 1) {
          Args.push_back(Cur);
          Cur.clear();
          continue;
        }
        Cur += (Cur.empty() ? "" : " ") + std::string(S);
      }
      if (J >= T.size())
        return std::nullopt;
      if (!Cur.empty() || !Args.empty())
        Args.push_back(Cur);
      if (Args.size() != MI->getNumParams() && !MI->isVariadic())
        return std::nullopt;
      K = J;
    }
    std::string Body;
    for (const Token &BT : MI->tokens()) {
      if (BT.is(tok::hash) || BT.is(tok::hashhash))
        return std::nullopt;
      std::string S = PP.getSpelling(BT);
      if (BT.getIdentifierInfo())
        for (unsigned P = 0; P < MI->getNumParams(); ++P)
          if (MI->params()[P] == BT.getIdentifierInfo() && P < Args.size())
            S = "(" + Args[P] + ")";
      Body += (Body.empty() ? "" : " ") + S;
    }
    Out += (Out.empty() ? "" : " ") + std::string("(") + Body + ")";
    Changed = true;
  }
  if (!Changed)
    return Out;
  return expand(Out, PP, Depth + 1);
}

} // namespace

std::optional<std::string> expandMacros(const std::string &Text, const Preprocessor &PP) {
  return expand(Text, PP, 0);
}

} // namespace hce
