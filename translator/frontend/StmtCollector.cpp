//===- StmtCollector.cpp - The statements of the main file ----------------===//
#include "StmtCollector.h"
#include "RegionBuilder.h"
#include "SourceText.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace hce {

namespace {

class Collector : public RecursiveASTVisitor<Collector> {
public:
  explicit Collector(SourceManager &SM) : SM(SM) {}
  std::vector<StmtSite> Sites;

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    const Decl *SavedTop = Top;
    const FunctionDecl *SavedFunc = Func;
    if (!Top && !isa<TranslationUnitDecl>(D) && !isa<NamespaceDecl>(D) &&
        !isa<LinkageSpecDecl>(D) && !isa<ExportDecl>(D))
      Top = D;
    if (auto *FD = dyn_cast<FunctionDecl>(D))
      Func = FD;
    bool R = RecursiveASTVisitor::TraverseDecl(D);
    Top = SavedTop;
    Func = SavedFunc;
    return R;
  }
  bool VisitStmt(Stmt *S) {
    if (!Top)
      return true;
    SourceLocation L = SM.getExpansionLoc(S->getBeginLoc());
    if (L.isValid() && SM.isInMainFile(L))
      Sites.push_back({SM.getFileOffset(L), S, Top, Func});
    return true;
  }

private:
  SourceManager &SM;
  const Decl *Top = nullptr;
  const FunctionDecl *Func = nullptr;
};

/// The file range of \p S; an OpenMP directive's own range ends with its
/// pragma line, so it is extended over the statement it applies to.
CharSourceRange fullRange(const Stmt *S, ASTContext &Ctx) {
  CharSourceRange R = stmtFileRange(S, Ctx);
  const auto *Dir = dyn_cast<OMPExecutableDirective>(S);
  if (!Dir)
    return R;
  const Stmt *Inner = regionLoop(S);
  if (!Inner && Dir->hasAssociatedStmt())
    Inner = Dir->getAssociatedStmt();
  if (const auto *CS = dyn_cast_or_null<CapturedStmt>(Inner))
    Inner = CS->getCapturedStmt();
  if (Inner) {
    CharSourceRange IR = stmtFileRange(Inner, Ctx);
    if (IR.isValid())
      R = CharSourceRange::getCharRange(R.getBegin(), IR.getEnd());
  }
  return R;
}

} // namespace

std::vector<StmtSite> collectStmts(ASTContext &Ctx) {
  Collector C(Ctx.getSourceManager());
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  return std::move(C.Sites);
}

std::vector<StmtSite> withEnds(const std::vector<StmtSite> &Sites, ASTContext &Ctx) {
  SourceManager &SM = Ctx.getSourceManager();
  std::vector<StmtSite> Out;
  for (const StmtSite &Site : Sites) {
    if (!Site.Func)
      continue;
    CharSourceRange R = fullRange(Site.S, Ctx);
    if (R.isInvalid() || !SM.isInMainFile(R.getEnd()))
      continue;
    Out.push_back(Site);
    Out.back().End = SM.getFileOffset(R.getEnd());
  }
  return Out;
}

const StmtSite *firstStmtFrom(const std::vector<StmtSite> &Sites, unsigned Offset) {
  const StmtSite *Best = nullptr;
  for (const StmtSite &S : Sites)
    if (S.Offset >= Offset && (!Best || S.Offset < Best->Offset))
      Best = &S;
  return Best;
}

const StmtSite *innermostStmtAt(const std::vector<StmtSite> &Sites, unsigned Offset) {
  const StmtSite *Best = nullptr;
  for (const StmtSite &S : Sites)
    if (S.Offset <= Offset && Offset < S.End &&
        (!Best || S.End - S.Offset < Best->End - Best->Offset))
      Best = &S;
  return Best;
}

} // namespace hce
