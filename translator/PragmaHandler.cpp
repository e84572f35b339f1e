//===- PragmaHandler.cpp - #pragma hce ------------------------------------===//
#include "PragmaHandler.h"
#include "Diagnostics.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Preprocessor.h"

using namespace clang;

namespace hce {

static void discardRest(Preprocessor &PP, Token &Tok) {
  while (Tok.isNot(tok::eod) && Tok.isNot(tok::eof))
    PP.LexUnexpandedToken(Tok);
}

void HcePragmaHandler::HandlePragma(Preprocessor &PP, PragmaIntroducer Intro,
                                    Token &FirstTok) {
  Diag D(PP.getDiagnostics());
  SourceManager &SM = PP.getSourceManager();
  Token Tok;
  PP.LexUnexpandedToken(Tok);

  if (Intro.Kind != PIK_HashPragma) {
    D.error(FirstTok.getLocation(),
            "'hce' pragmas must be written as '#pragma hce', not with "
            "_Pragma or __pragma");
    discardRest(PP, Tok);
    return;
  }
  if (Tok.is(tok::eod) || !Tok.is(tok::identifier)) {
    D.error(Tok.getLocation(), "expected 'co_exec' after '#pragma hce'");
    discardRest(PP, Tok);
    return;
  }
  StringRef Directive = Tok.getIdentifierInfo()->getName();
  if (Directive != "co_exec") {
    if (Directive == "data" || Directive == "update")
      D.error(Tok.getLocation(),
              "'#pragma hce " + Directive.str() + "' is not supported yet");
    else
      D.error(Tok.getLocation(), "unknown directive '#pragma hce " +
                                     Directive.str() + "'; expected 'co_exec'");
    discardRest(PP, Tok);
    return;
  }
  if (!SM.isWrittenInMainFile(Intro.Loc)) {
    D.error(Tok.getLocation(), "'#pragma hce co_exec' is only supported in "
                               "the main source file, not in headers");
    discardRest(PP, Tok);
    return;
  }

  PragmaRecord R;
  R.HashLoc = Intro.Loc;
  R.DirectiveLoc = Tok.getLocation();
  R.ClauseLoc = Tok.getEndLoc();
  discardRest(PP, Tok);
  R.EndLoc = Tok.getLocation();

  bool Invalid = false;
  const char *Begin = SM.getCharacterData(R.ClauseLoc, &Invalid);
  const char *End = Invalid ? nullptr : SM.getCharacterData(R.EndLoc, &Invalid);
  if (Invalid || !End || End < Begin ||
      SM.getFileID(R.ClauseLoc) != SM.getFileID(R.EndLoc)) {
    D.error(R.DirectiveLoc, "cannot read the text of this pragma");
    return;
  }
  R.ClauseText.assign(Begin, End);

  ClauseError Err;
  if (!parseCoExecClauses(R.ClauseText, R.Clauses, Err)) {
    D.error(R.locAt(Err.Offset), Err.Message);
  } else {
    R.Valid = true;
  }
  Records.push_back(std::move(R));
}

} // namespace hce
