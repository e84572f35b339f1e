//===- TranslateAction.cpp - The translator as a FrontendAction -----------===//
#include "TranslateAction.h"
#include "CodeGenUtil.h"
#include "DataDirectives.h"
#include "DeviceCode.h"
#include "Diagnostics.h"
#include "OmpPlacement.h"
#include "RegionBuilder.h"
#include "SiteEmitter.h"
#include "SourceText.h"
#include "StmtCollector.h"
#include "TaskwaitDirective.h"
#include "VariantEmitter.h"
#include "WriteCoverage.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Rewrite/Core/Rewriter.h"

using namespace clang;

namespace hce {

namespace {

class TranslateConsumer : public ASTConsumer {
public:
  TranslateConsumer(CompilerInstance &CI, const TranslateOptions &Opts,
                    TranslationResult &Result,
                    std::vector<PragmaRecord> &Records,
                    const SkippedRanges &Skipped)
      : CI(CI), Opts(Opts), Result(Result), Records(Records),
        Skipped(Skipped) {}

  void HandleTranslationUnit(ASTContext &Ctx) override;

private:
  CompilerInstance &CI;
  const TranslateOptions &Opts;
  TranslationResult &Result;
  std::vector<PragmaRecord> &Records;
  const SkippedRanges &Skipped;
};

/// Records the main file's inactive #if branches.
class SkipRecorder : public PPCallbacks {
public:
  SkipRecorder(SourceManager &SM, SkippedRanges &Out) : SM(SM), Out(Out) {}
  void SourceRangeSkipped(SourceRange R, SourceLocation) override {
    if (SM.isWrittenInMainFile(R.getBegin()) &&
        SM.isWrittenInMainFile(R.getEnd()))
      Out.push_back(
          {SM.getFileOffset(R.getBegin()), SM.getFileOffset(R.getEnd())});
  }

private:
  SourceManager &SM;
  SkippedRanges &Out;
};

void TranslateConsumer::HandleTranslationUnit(ASTContext &Ctx) {
  Diag D(CI.getDiagnostics());
  SourceManager &SM = Ctx.getSourceManager();
  if (D.hasErrors())
    return;
  FileID Main = SM.getMainFileID();
  StringRef MainText = SM.getBufferData(Main);

  if (Records.empty()) {
    Result.HostText = MainText.str();
    Result.Done = true;
    return;
  }

  const std::vector<StmtSite> Stmts = collectStmts(Ctx);

  // Pair each pragma with the statement right after it, and place it among
  // the loop's OpenMP directives.
  std::vector<OmpPlacement> Placements;
  for (const PragmaRecord &P : Records) {
    if (P.Kind != PragmaKind::CoExec)
      continue; // data / update: translateDataDirectives
    const StmtSite *Best = firstStmtFrom(Stmts, SM.getFileOffset(P.EndLoc));
    if (!Best) {
      D.error(P.DirectiveLoc,
              "'#pragma hce co_exec' must be followed by a 'for' loop");
      continue;
    }
    if (std::optional<OmpPlacement> Pl =
            placeCoExec(P, *Best, Stmts, Skipped, Ctx, D))
      Placements.push_back(std::move(*Pl));
  }
  if (D.hasErrors())
    return;
  std::vector<RegionInput> Inputs;
  for (const OmpPlacement &Pl : Placements)
    Inputs.push_back(Pl.In);

  // No region may contain another.
  for (const RegionInput &Outer : Inputs) {
    const ForStmt *F = regionLoop(Outer.Next);
    if (!F)
      continue;
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(F->getSourceRange()), SM,
        Ctx.getLangOpts());
    if (R.isInvalid())
      continue;
    for (const RegionInput &Inner : Inputs)
      if (&Inner != &Outer &&
          SM.isPointWithin(Inner.Pragma->HashLoc, R.getBegin(), R.getEnd()))
        D.error(Inner.Pragma->DirectiveLoc,
                "nested co_exec regions are not supported");
  }
  if (D.hasErrors())
    return;

  std::vector<Region> Regions;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    Inputs[I].Index = static_cast<unsigned>(I);
    Inputs[I].Verbose = Opts.Verbose;
    Inputs[I].PP = &CI.getPreprocessor();
    if (std::optional<Region> R = buildRegion(Inputs[I], Ctx, D)) {
      proveWriteCoverage(Inputs[I], *R, Ctx, D, Opts.Verbose); // HCE_MAP_WRITES_ALL
      R->SiteRange = Placements[I].Range;
      R->LineAfterSite = Placements[I].LineAfterSite;
      Regions.push_back(std::move(*R));
    }
  }
  if (D.hasErrors())
    return;

  // What each region needs on a device, and whether it can run there at
  // all (may warn); then every variant emitter plans every region.
  DeviceContext Dev(Ctx, CI.getPreprocessor(), D, Opts.Cuda, Opts.Offload);
  for (const Region &R : Regions)
    Dev.analyzeRegion(Inputs[R.Index], R);
  const std::vector<std::unique_ptr<VariantEmitter>> EmitterList =
      makeVariantEmitters(Dev, Opts.Cuda, Opts.Offload, Opts.LineDirectives);
  std::vector<const VariantEmitter *> Emitters;
  for (const std::unique_ptr<VariantEmitter> &E : EmitterList) {
    for (const Region &R : Regions)
      E->planRegion(Inputs[R.Index], R, Ctx, D);
    Emitters.push_back(E.get());
  }

  Rewriter RW(SM, Ctx.getLangOpts());
  SourceLocation FileStart = SM.getLocForStartOfFile(Main);
  std::string FileName = SM.getPresumedLoc(Records.front().HashLoc).getFilename();
  std::string CoverDecl; // __hce_writes_cover, when a map needs it
  for (const Region &R : Regions)
    if (CoverDecl.empty())
      CoverDecl = writesCoverDecl(R);
  std::string Includes;
  for (const VariantEmitter *E : Emitters)
    Includes += E->fileIncludes();
  RW.InsertText(FileStart,
                "#include <hce/hce.h>\n#include <stdint.h>\n" + Includes + CoverDecl +
                    lineDirective(1, FileName, Opts.LineDirectives),
                /*InsertAfter=*/true);
  for (const Region &R : Regions) {
    std::string Shown = R.DisplayName.substr(0, 200);
    for (size_t P; (P = Shown.find("*/")) != std::string::npos;)
      Shown.replace(P, 2, "* /");
    std::string Decls = "/* HCE co_exec region " + std::to_string(R.Index) +
                        " (" + Shown + "): variants. */\n";
    Decls += argsStructDecl(R);
    for (const VariantEmitter *E : Emitters)
      Decls += E->hostDecls(R);
    Decls += lineDirective(R.InsertLine, R.FileName, Opts.LineDirectives);
    if (!R.InsertAtLineStart)
      Decls = "\n" + Decls;
    RW.InsertText(R.InsertLoc, Decls, /*InsertAfter=*/true);

    const OmpPlacement &Pl = Placements[R.Index];
    std::string Indent = indentOf(SM, R.SiteRange.getBegin());
    std::string Site;
    if (!Pl.Kept.empty()) // directives and inactive text between the lines
      Site += Pl.Kept + "\n" + Indent;
    if (Pl.Form == SiteForm::Single) // one thread of the team runs it
      Site += std::string("#pragma omp single") +
              (Pl.NoWait ? " nowait" : "") + "\n" + Indent;
    Site += emitSite(R, Indent, Emitters, Opts.LineDirectives);
    if (RW.ReplaceText(R.SiteRange, Site)) {
      D.error(R.SiteRange.getBegin(), "cannot rewrite this loop");
      return;
    }
  }

  // #pragma hce taskwait, then data and update.
  if (!translateTaskwaits(Records, Stmts, Regions, Ctx, D, RW))
    return;
  std::vector<PragmaRecord> DataRecords;
  for (const PragmaRecord &P : Records)
    if (P.Kind != PragmaKind::Taskwait)
      DataRecords.push_back(P);
  if (!translateDataDirectives(DataRecords, Stmts, Regions, Ctx, CI.getPreprocessor(), D,
                               RW, Opts.LineDirectives))
    return;

  const RewriteBuffer *Buf = RW.getRewriteBufferFor(Main);
  Result.HostText =
      Buf ? std::string(Buf->begin(), Buf->end()) : MainText.str();
  for (const VariantEmitter *E : Emitters) {
    if (E->companionKind() == CompanionKind::Cuda)
      Result.CudaText = companionFile(*E, Regions);
    else if (E->companionKind() == CompanionKind::Offload)
      Result.OffloadText = companionFile(*E, Regions);
  }
  Result.NumRegions = static_cast<unsigned>(Regions.size());
  Result.Done = true;
}

} // namespace

bool TranslateAction::BeginSourceFileAction(CompilerInstance &CI) {
  CI.getPreprocessor().AddPragmaHandler(new HcePragmaHandler(Records));
  CI.getPreprocessor().addPPCallbacks(
      std::make_unique<SkipRecorder>(CI.getSourceManager(), Skipped));
  return true;
}

std::unique_ptr<ASTConsumer>
TranslateAction::CreateASTConsumer(CompilerInstance &CI, llvm::StringRef) {
  return std::make_unique<TranslateConsumer>(CI, Opts, Result, Records,
                                             Skipped);
}

namespace {
class Factory : public tooling::FrontendActionFactory {
public:
  Factory(const TranslateOptions &Opts, TranslationResult &Result)
      : Opts(Opts), Result(Result) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<TranslateAction>(Opts, Result);
  }

private:
  TranslateOptions Opts;
  TranslationResult &Result;
};
} // namespace

std::unique_ptr<tooling::FrontendActionFactory>
makeTranslateActionFactory(const TranslateOptions &Opts,
                           TranslationResult &Result) {
  return std::make_unique<Factory>(Opts, Result);
}

} // namespace hce
