//===- clause_parser_fuzzer.cpp - libFuzzer target for the clause parser --===//
//
// Feeds arbitrary bytes to the parsers of `#pragma hce co_exec`, `data` and
// `update` clauses, and every parsed section to the section layout (with a
// few array shapes) and to the affinity check. Checks invariants: error
// offsets lie inside the text, parsed expressions are non-empty and their
// offsets are inside the text.
//
// Build: cmake -DHCE_BUILD_FUZZERS=ON ...; ninja clause_parser_fuzzer
// Run:   clause_parser_fuzzer translator/fuzz/corpus -max_total_time=600
//
//===----------------------------------------------------------------------===//
#include "AffineCheck.h"
#include "ClauseLexer.h"
#include "ClauseParser.h"
#include "SectionLayout.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace hce;

namespace {

void check(bool Cond) {
  if (!Cond)
    __builtin_trap();
}

void checkExpr(const ClauseExpr &E, size_t Size) {
  check(!E.Text.empty());
  check(E.Offset < Size);
}

void exercise(const ClauseSet &CS, std::string_view Text) {
  const size_t Size = Text.size();
  // Shapes: a pointer, a 2-D array of known and a 3-D of symbolic extents.
  static const std::vector<std::vector<ArrayDim>> Shapes = {
      {{"", {}}},
      {{"16", {"16", "M"}}, {"8", {"8", "N"}}},
      {{"", {}}, {"(int64_t)(n)", {"n"}}, {"4", {"4"}}},
  };
  for (const MapClause &M : CS.Maps) {
    check(M.Offset < Size);
    for (const Section &S : M.Sections) {
      check(!S.Name.empty());
      check(S.Offset < Size);
      for (const SectionDim &D : S.Dims) {
        check(D.Offset < Size);
        if (!D.Lo.empty()) {
          checkExpr(D.Lo, Size);
          classifyAffine(D.Lo.Text, "i");
          classifyAffine(D.Lo.Text, S.Name);
        }
        if (!D.Len.empty())
          checkExpr(D.Len, Size);
      }
      for (const auto &Shape : Shapes)
        for (std::string_view Var : {"i", ""}) {
          SectionLayoutResult L;
          ClauseError E;
          if (layoutSection(S, Shape, Var, L, E)) {
            check(!L.OffsetText.empty() && !L.LenText.empty());
            check(!L.BlocksText.empty() && !L.StrideText.empty());
          } else {
            check(!E.Message.empty());
            check(E.Offset <= Size);
          }
        }
    }
  }
  if (CS.Chunk)
    checkExpr(*CS.Chunk, Size);
  if (CS.Alpha)
    checkExpr(*CS.Alpha, Size);
  for (const ReductionClause &R : CS.Reductions)
    check(!R.Vars.empty());
  if (CS.Name)
    check(CS.Name->size() >= 2 && CS.Name->front() == '"');
  (void)CS.devicesString();
  (void)CS.ratiosString();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  // The lexer alone, and joinTokens over everything.
  std::vector<ClauseToken> Toks = lexClauseText(Text);
  for (const ClauseToken &T : Toks)
    check(T.Offset + T.Text.size() <= Size);
  (void)joinTokens(Toks, 0, Toks.size());

  using ParseFn = bool (*)(std::string_view, ClauseSet &, ClauseError &);
  for (ParseFn Parse :
       {ParseFn(parseCoExecClauses), ParseFn(parseDataClauses),
        ParseFn(parseUpdateClauses)}) {
    ClauseSet CS;
    ClauseError Err;
    if (Parse(Text, CS, Err)) {
      exercise(CS, Text);
    } else {
      check(!Err.Message.empty());
      check(Err.Offset <= Size);
    }
  }
  // The affinity check on the raw text, with a variable that occurs in it.
  if (!Toks.empty() && Toks[0].Kind == TokKind::Identifier)
    classifyAffine(Text, Toks[0].Text);
  return 0;
}
