//===- TranslateAction.h - The translator as a FrontendAction ---*- C++ -*-===//
//
// Parses the input with Clang (OpenMP on, #pragma hce handled by our own
// PragmaHandler), analyses every co_exec region and rewrites the main file.
// The result is returned as text; nothing is written by the action.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_TRANSLATEACTION_H
#define HCE_TRANSLATOR_TRANSLATEACTION_H

#include "OmpPlacement.h"
#include "PragmaHandler.h"

#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/Tooling.h"

#include <memory>
#include <string>
#include <vector>

namespace hce {

struct TranslateOptions {
  bool LineDirectives = true; ///< emit #line so diagnostics point at the input
  bool Cuda = false;          ///< produce the CUDA companion
  bool Offload = false;       ///< produce the OpenMP-offload companion
  bool Verbose = false;       ///< -v: notes on derived and inferred maps
};

struct TranslationResult {
  bool Done = false; ///< the action ran to the end without errors
  unsigned NumRegions = 0;
  std::string HostText;    ///< the rewritten input
  std::string CudaText;    ///< the .cu companion (empty: no CUDA variants)
  std::string OffloadText; ///< the offload companion (empty: none)
};

class TranslateAction : public clang::ASTFrontendAction {
public:
  TranslateAction(const TranslateOptions &Opts, TranslationResult &Result)
      : Opts(Opts), Result(Result) {}

protected:
  bool BeginSourceFileAction(clang::CompilerInstance &CI) override;
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI, llvm::StringRef) override;

private:
  TranslateOptions Opts;
  TranslationResult &Result;
  std::vector<PragmaRecord> Records;
  SkippedRanges Skipped;
};

/// Factory for ClangTool::run.
std::unique_ptr<clang::tooling::FrontendActionFactory>
makeTranslateActionFactory(const TranslateOptions &Opts,
                           TranslationResult &Result);

} // namespace hce

#endif
