//===- Diagnostics.h - Clang-style diagnostics for the translator -*- C++ -*-//
//
// Reports through Clang's DiagnosticsEngine with custom IDs, so that messages
// get the usual "file:line:col: error: ..." form, the source line and a caret.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_DIAGNOSTICS_H
#define HCE_TRANSLATOR_DIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceLocation.h"

#include <string>

namespace hce {

class Diag {
public:
  explicit Diag(clang::DiagnosticsEngine &DE) : DE(DE) {}

  void error(clang::SourceLocation Loc, const std::string &Msg) {
    DE.Report(Loc, DE.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0"))
        << Msg;
  }
  void warning(clang::SourceLocation Loc, const std::string &Msg) {
    DE.Report(Loc, DE.getCustomDiagID(clang::DiagnosticsEngine::Warning, "%0"))
        << Msg;
  }
  void note(clang::SourceLocation Loc, const std::string &Msg) {
    DE.Report(Loc, DE.getCustomDiagID(clang::DiagnosticsEngine::Note, "%0"))
        << Msg;
  }
  bool hasErrors() const { return DE.hasErrorOccurred(); }
  clang::DiagnosticsEngine &engine() { return DE; }

private:
  clang::DiagnosticsEngine &DE;
};

} // namespace hce

#endif
