//===- TaskwaitDirective.cpp - #pragma hce taskwait -----------------------===//
#include "TaskwaitDirective.h"
#include "ClauseLexer.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace hce {

namespace {

/// True when main-file offset \p Hash lies inside the body of a function.
bool insideFunctionBody(unsigned Hash, const std::vector<StmtSite> &Stmts,
                        const SourceManager &SM) {
  for (const StmtSite &S : Stmts) {
    const Stmt *Body = S.Func ? S.Func->getBody() : nullptr;
    if (!Body)
      continue;
    SourceLocation B = SM.getExpansionLoc(Body->getBeginLoc());
    SourceLocation E = SM.getExpansionLoc(Body->getEndLoc());
    if (SM.isInMainFile(B) && SM.isInMainFile(E) && SM.getFileOffset(B) < Hash &&
        Hash < SM.getFileOffset(E))
      return true;
  }
  return false;
}

} // namespace

bool translateTaskwaits(const std::vector<PragmaRecord> &Records,
                        const std::vector<StmtSite> &Stmts,
                        const std::vector<Region> &Regions, ASTContext &Ctx, Diag &D,
                        Rewriter &RW) {
  SourceManager &SM = Ctx.getSourceManager();
  StringRef MainText = SM.getBufferData(SM.getMainFileID());
  for (const PragmaRecord &P : Records) {
    if (P.Kind != PragmaKind::Taskwait)
      continue;
    if (!P.Valid)
      return false;
    unsigned Hash = SM.getFileOffset(P.HashLoc);
    bool Inside = false;
    for (const Region &R : Regions)
      Inside = Inside || (SM.getFileOffset(R.SiteRange.getBegin()) < Hash &&
                          Hash < SM.getFileOffset(R.SiteRange.getEnd()));
    if (Inside) {
      D.error(P.DirectiveLoc,
              "'#pragma hce taskwait' cannot appear inside a co_exec loop");
      continue;
    }
    unsigned End = SM.getFileOffset(P.EndLoc);
    const StmtSite *Next = firstStmtFrom(Stmts, End);
    StringRef Rest = MainText.slice(End, Next ? Next->Offset : MainText.size());
    std::vector<ClauseToken> Gap =
        lexClauseText(std::string_view(Rest.data(), Rest.size()));
    bool Ok = false;
    if (Next && Gap.empty()) {
      auto Parents = Ctx.getParents(*Next->S);
      Ok = !Parents.empty() && Parents[0].get<CompoundStmt>() != nullptr;
      if (!Ok)
        D.error(P.DirectiveLoc, "'#pragma hce taskwait' must be a statement "
                                "of a block ({ ... }), not the body of an "
                                "'if', a loop or a label");
    } else if (!Gap.empty() && Gap.front().Text == "}" &&
               insideFunctionBody(Hash, Stmts, SM)) {
      Ok = true; // the last statement of a block inside a function
    } else {
      D.error(P.DirectiveLoc,
              "'#pragma hce taskwait' must be a statement inside a function");
    }
    if (Ok && RW.ReplaceText(CharSourceRange::getCharRange(P.HashLoc, P.EndLoc),
                             "hce_taskwait_or_exit();")) {
      D.error(P.HashLoc, "cannot rewrite this pragma");
      return false;
    }
  }
  return !D.hasErrors();
}

} // namespace hce
