//===- PragmaHandler.h - #pragma hce ----------------------------*- C++ -*-===//
//
// Handler for the `hce` pragma namespace. It records every
// `#pragma hce co_exec ...` of the main file with its clause text, parses the
// clauses and reports clause errors at their exact column.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_PRAGMAHANDLER_H
#define HCE_TRANSLATOR_PRAGMAHANDLER_H

#include "ClauseParser.h"

#include "clang/Basic/SourceLocation.h"
#include "clang/Lex/Pragma.h"

#include <string>
#include <vector>

namespace hce {

/// Which `#pragma hce` directive a record is.
enum class PragmaKind { CoExec, Data, Update, Taskwait };

struct PragmaRecord {
  PragmaKind Kind = PragmaKind::CoExec;
  clang::SourceLocation HashLoc;      ///< the '#'
  clang::SourceLocation DirectiveLoc; ///< the 'co_exec' / 'data' / 'update'
  clang::SourceLocation ClauseLoc;    ///< first byte of the clause text
  clang::SourceLocation EndLoc;       ///< end of the directive line
  std::string ClauseText;             ///< raw text after the directive
  ClauseSet Clauses;
  bool Valid = false; ///< clauses parsed without error

  /// Location of byte \p Offset of the clause text.
  clang::SourceLocation locAt(size_t Offset) const {
    return ClauseLoc.getLocWithOffset(static_cast<int>(Offset));
  }
};

class HcePragmaHandler : public clang::PragmaHandler {
public:
  explicit HcePragmaHandler(std::vector<PragmaRecord> &Records)
      : clang::PragmaHandler("hce"), Records(Records) {}

  void HandlePragma(clang::Preprocessor &PP, clang::PragmaIntroducer Intro,
                    clang::Token &FirstTok) override;

private:
  std::vector<PragmaRecord> &Records;
};

} // namespace hce

#endif
