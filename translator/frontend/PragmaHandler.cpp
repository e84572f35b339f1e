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
    D.error(Tok.getLocation(), "expected 'co_exec', 'data', 'update' or "
                               "'taskwait' after '#pragma hce'");
    discardRest(PP, Tok);
    return;
  }
  StringRef Directive = Tok.getIdentifierInfo()->getName();
  PragmaKind Kind;
  if (Directive == "co_exec")
    Kind = PragmaKind::CoExec;
  else if (Directive == "data")
    Kind = PragmaKind::Data;
  else if (Directive == "update")
    Kind = PragmaKind::Update;
  else if (Directive == "taskwait")
    Kind = PragmaKind::Taskwait;
  else {
    D.error(Tok.getLocation(), "unknown directive '#pragma hce " + Directive.str() +
                                   "'; expected co_exec, data, update or "
                                   "taskwait");
    discardRest(PP, Tok);
    return;
  }
  if (!SM.isWrittenInMainFile(Intro.Loc)) {
    D.error(Tok.getLocation(), "'#pragma hce " + Directive.str() +
                                   "' is only supported in the main source "
                                   "file, not in headers");
    discardRest(PP, Tok);
    return;
  }

  PragmaRecord R;
  R.Kind = Kind;
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

  if (Kind == PragmaKind::Taskwait) {
    // No clauses (OpenMP's depend/nowait on taskwait are not supported).
    size_t First = R.ClauseText.find_first_not_of(" \t\r\n");
    if (First != std::string::npos) {
      D.error(R.locAt(First), "'#pragma hce taskwait' takes no clauses");
    } else {
      R.Valid = true;
    }
    Records.push_back(std::move(R));
    return;
  }
  ClauseError Err;
  bool Parsed = Kind == PragmaKind::CoExec
                    ? parseCoExecClauses(R.ClauseText, R.Clauses, Err)
                : Kind == PragmaKind::Data
                    ? parseDataClauses(R.ClauseText, R.Clauses, Err)
                    : parseUpdateClauses(R.ClauseText, R.Clauses, Err);
  if (!Parsed) {
    D.error(R.locAt(Err.Offset), Err.Message);
  } else {
    R.Valid = true;
  }
  Records.push_back(std::move(R));
}

} // namespace hce
