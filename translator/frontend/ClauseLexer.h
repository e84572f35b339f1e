//===- ClauseLexer.h - Tokens of a #pragma hce clause list ------*- C++ -*-===//
//
// A tiny C-like tokenizer over the raw text of a pragma line. It has no
// dependency on Clang or LLVM so that the clause parser built on it can be
// fuzzed in isolation.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_CLAUSELEXER_H
#define HCE_TRANSLATOR_CLAUSELEXER_H

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hce {

enum class TokKind { Identifier, Number, String, Char, Punct, Invalid };

struct ClauseToken {
  TokKind Kind;
  std::string_view Text; // view into the lexed text
  size_t Offset;         // byte offset of the token in the lexed text
  bool SpaceBefore;      // whitespace, a comment or a line splice precedes it
};

/// Splits \p Text into tokens. Whitespace, comments and backslash-newline
/// splices are skipped. An unterminated string, char literal or comment
/// yields one Invalid token covering the rest of the text.
std::vector<ClauseToken> lexClauseText(std::string_view Text);

/// Joins tokens [Begin, End) back into source text: tokens that were adjacent
/// stay adjacent, any gap (whitespace or comment) becomes one space.
std::string joinTokens(const std::vector<ClauseToken> &Toks, size_t Begin,
                       size_t End);

} // namespace hce

#endif
