//===- OmpPlacement.cpp - A co_exec loop among the user's OpenMP ----------===//
#include "OmpPlacement.h"
#include "ClauseLexer.h"
#include "SourceText.h"

#include "clang/AST/OpenMPClause.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <set>

using namespace clang;

namespace hce {

namespace {

const VarDecl *refVar(const Expr *E) {
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

std::string ompReductionSpelling(const OMPReductionClause *C) {
  DeclarationName N = C->getNameInfo().getName();
  switch (N.getCXXOverloadedOperator()) {
  case OO_Plus: return "+";
  case OO_Star: return "*";
  case OO_Amp: return "&";
  case OO_Pipe: return "|";
  case OO_Caret: return "^";
  case OO_AmpAmp: return "&&";
  case OO_PipePipe: return "||";
  case OO_Minus: return "-";
  default: break;
  }
  return N.getAsString();
}

/// `hist[lo:len]` of an OpenMP reduction clause, as written.
ReductionSection ompReductionSection(const ArraySectionExpr *AS, const ASTContext &Ctx) {
  ReductionSection S;
  S.Loc = AS->getBeginLoc();
  if (const Expr *Lo = AS->getLowerBound()) {
    S.Lo = sourceText(Lo->getSourceRange(), Ctx).value_or("");
    S.LoLoc = Lo->getBeginLoc();
  }
  if (const Expr *Len = AS->getLength()) {
    S.Len = sourceText(Len->getSourceRange(), Ctx).value_or("");
    S.LenLoc = Len->getBeginLoc();
  }
  return S;
}

/// The loop directives a co_exec loop may carry, as written after
/// `#pragma omp`; null for any other directive.
const char *loopDirectiveName(const Stmt *S) {
  if (isa<OMPParallelForDirective>(S))
    return "parallel for";
  if (isa<OMPParallelForSimdDirective>(S))
    return "parallel for simd";
  if (isa<OMPForDirective>(S))
    return "for";
  if (isa<OMPForSimdDirective>(S))
    return "for simd";
  if (isa<OMPSimdDirective>(S))
    return "simd";
  return nullptr;
}

/// The statement an OpenMP directive applies to (its structured block).
const Stmt *directiveBody(const OMPExecutableDirective *Dir) {
  if (!Dir->hasAssociatedStmt())
    return nullptr;
  const Stmt *S = Dir->getAssociatedStmt();
  while (const auto *CS = dyn_cast_or_null<CapturedStmt>(S))
    S = CS->getCapturedStmt();
  return S;
}

/// The variables a statement refers to, and those it declares.
class VarRefs : public RecursiveASTVisitor<VarRefs> {
public:
  std::set<const VarDecl *> Used;
  std::vector<const VarDecl *> Declared;
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *VD = dyn_cast<VarDecl>(E->getDecl()))
      Used.insert(VD);
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    Declared.push_back(VD);
    return true;
  }
};

/// Offset just past the line that starts at or contains \p Off (before its
/// newline), following backslash continuations.
unsigned lineEnd(StringRef Buf, unsigned Off) {
  size_t E = Buf.find('\n', Off);
  while (E != StringRef::npos && E > 0 &&
         (Buf[E - 1] == '\\' || (Buf[E - 1] == '\r' && E > 1 && Buf[E - 2] == '\\')))
    E = Buf.find('\n', E + 1);
  return E == StringRef::npos ? Buf.size() : static_cast<unsigned>(E);
}

unsigned offsetOf(SourceLocation L, const SourceManager &SM) {
  return SM.getFileOffset(SM.getExpansionLoc(L));
}

} // namespace

bool onlyDirectivesBetween(unsigned Begin, unsigned End, const SkippedRanges &Skipped,
                           const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  if (End > Buf.size() || Begin >= End)
    return true;
  std::string Text = Buf.slice(Begin, End).str();
  auto Blank = [&](unsigned B, unsigned E) {
    for (unsigned I = std::max(B, Begin); I < std::min(E, End); ++I)
      if (Text[I - Begin] != '\n')
        Text[I - Begin] = ' ';
  };
  for (const auto &[B, E] : Skipped)
    Blank(B, E);
  // Directive lines: '#' first on its line (in the file, not the slice).
  for (unsigned I = Begin; I < End;) {
    unsigned LB = I;
    while (LB > 0 && Buf[LB - 1] != '\n')
      --LB;
    unsigned F = LB;
    while (F < Buf.size() && (Buf[F] == ' ' || Buf[F] == '\t'))
      ++F;
    unsigned LE = lineEnd(Buf, I);
    if (F < Buf.size() && Buf[F] == '#')
      Blank(I, LE);
    I = LE + 1;
  }
  return lexClauseText(Text).empty();
}

std::optional<OmpPlacement> placeCoExec(const PragmaRecord &P, const StmtSite &Next,
                                        const std::vector<StmtSite> &Sites,
                                        const SkippedRanges &Skipped, ASTContext &Ctx,
                                        Diag &D) {
  SourceManager &SM = Ctx.getSourceManager();
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  const unsigned Hash = SM.getFileOffset(P.HashLoc);
  if (!onlyDirectivesBetween(SM.getFileOffset(P.EndLoc), Next.Offset, Skipped, Ctx)) {
    D.error(P.DirectiveLoc, "'#pragma hce co_exec' must be followed by a 'for' loop");
    return std::nullopt;
  }

  OmpPlacement Out;
  RegionInput &In = Out.In;
  In.Pragma = &P;
  In.Next = Next.S;
  In.TopLevel = Next.Top;
  In.Func = Next.Func;

  // --- the loop directive: after the co_exec pragma, or before it --------
  const OMPLoopDirective *LoopDir = nullptr;
  if (const auto *Dir = dyn_cast<OMPExecutableDirective>(Next.S)) {
    if (!loopDirectiveName(Dir)) {
      D.error(Dir->getBeginLoc(),
              "only '#pragma omp parallel for', 'for' or 'simd' (or their "
              "'simd' forms) may appear between '#pragma hce co_exec' and "
              "its loop");
      if (isa<OMPParallelDirective>(Dir))
        D.note(P.DirectiveLoc, "in a '#pragma omp parallel' region, put "
                               "'#pragma hce co_exec' right above the "
                               "'#pragma omp for' of the loop");
      return std::nullopt;
    }
    LoopDir = cast<OMPLoopDirective>(Dir);
  } else {
    for (const StmtSite &S : Sites) {
      const auto *Dir = dyn_cast<OMPLoopDirective>(S.S);
      if (!Dir || S.Offset >= Hash)
        continue;
      const CapturedStmt *CS = Dir->getInnermostCapturedStmt();
      if (Next.S != CS && Next.S != regionLoop(Dir))
        continue;
      if (!loopDirectiveName(Dir)) {
        D.error(P.DirectiveLoc, "'#pragma hce co_exec' cannot annotate the "
                                "loop of this OpenMP directive");
        D.note(Dir->getBeginLoc(), "the directive is here");
        return std::nullopt;
      }
      LoopDir = Dir;
      In.Next = Dir;
    }
  }
  const ForStmt *For = regionLoop(In.Next);
  if (!For)
    return Out; // RegionBuilder reports it, with the statement found

  // --- an enclosing parallel region ---------------------------------------
  const OMPParallelDirective *Par = nullptr;
  const Stmt *ParBody = nullptr;
  bool WorkShare =
      LoopDir && (isa<OMPForDirective>(LoopDir) || isa<OMPForSimdDirective>(LoopDir));
  if (WorkShare) {
    unsigned LoopOff = offsetOf(LoopDir->getBeginLoc(), SM);
    unsigned Best = 0;
    for (const StmtSite &S : Sites) {
      const auto *PD = dyn_cast<OMPParallelDirective>(S.S);
      const Stmt *Body = PD ? directiveBody(PD) : nullptr;
      if (!Body || S.Func != Next.Func)
        continue;
      CharSourceRange BR = stmtFileRange(Body, Ctx);
      if (BR.isInvalid())
        continue;
      if (SM.getFileOffset(BR.getBegin()) <= LoopOff &&
          LoopOff < SM.getFileOffset(BR.getEnd()) && (!Par || S.Offset > Best)) {
        Par = PD;
        ParBody = Body;
        Best = S.Offset;
      }
    }
  }

  // --- clauses ------------------------------------------------------------
  VarRefs LoopRefs;
  LoopRefs.TraverseStmt(const_cast<ForStmt *>(For));
  bool Ok = true;
  auto TakeClauses = [&](const OMPExecutableDirective *Dir, const char *Name,
                         bool Enclosing) {
    for (const OMPClause *C : Dir->clauses()) {
      if (const auto *PC = dyn_cast<OMPPrivateClause>(C)) {
        for (const Expr *E : PC->varlists())
          if (const VarDecl *VD = refVar(E))
            In.OmpPrivates.push_back(VD);
      } else if (const auto *RC = dyn_cast<OMPReductionClause>(C)) {
        std::string Op = ompReductionSpelling(RC);
        for (const Expr *E : RC->varlists()) {
          std::optional<ReductionSection> Sec;
          if (const auto *AS = dyn_cast<ArraySectionExpr>(E->IgnoreParenImpCasts())) {
            Sec = ompReductionSection(AS, Ctx); // an array reduction
            E = AS->getBase();
          }
          if (const VarDecl *VD = refVar(E);
              VD && (!Enclosing || LoopRefs.Used.count(VD)))
            In.OmpReductions.push_back({Op, VD, Sec});
        }
      } else if (isa<OMPNowaitClause>(C)) {
        Out.NoWait = true;
      } else if (!Enclosing && (isa<OMPLastprivateClause>(C) || isa<OMPLinearClause>(C) ||
                                isa<OMPOrderedClause>(C))) {
        D.error(C->getBeginLoc(), std::string("this clause of '#pragma omp ") + Name +
                                      "' is not supported in a co_exec loop");
        Ok = false;
      }
    }
  };
  if (LoopDir)
    TakeClauses(LoopDir, loopDirectiveName(LoopDir), false);
  if (Par)
    TakeClauses(Par, "parallel", true);
  if (!Ok)
    return std::nullopt;

  // --- the form of the site -----------------------------------------------
  const Stmt *Whole = ParBody;
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Whole))
    Whole = CS->size() == 1 ? CS->body_front() : nullptr;
  if (WorkShare)
    Out.Form = Whole == LoopDir ? SiteForm::WholeParallel : SiteForm::Single;
  if (Out.Form == SiteForm::Single && ParBody) {
    VarRefs RegionDecls;
    RegionDecls.TraverseStmt(const_cast<Stmt *>(ParBody));
    CharSourceRange FR = stmtFileRange(For, Ctx);
    for (const VarDecl *VD : RegionDecls.Declared)
      if (FR.isValid() && !SM.isPointWithin(SM.getExpansionLoc(VD->getLocation()),
                                            FR.getBegin(), FR.getEnd()))
        In.ThreadLocals.push_back(VD);
  }

  // --- what the site replaces ----------------------------------------------
  const Stmt *Last = Out.Form == SiteForm::WholeParallel ? ParBody : For;
  CharSourceRange LastR = stmtFileRange(Last, Ctx);
  CharSourceRange ForR = stmtFileRange(For, Ctx);
  if (LastR.isInvalid() || ForR.isInvalid() || !SM.isInMainFile(LastR.getEnd())) {
    D.error(For->getBeginLoc(), "cannot take the source text of this loop "
                                "(does a macro expand to part of it?)");
    return std::nullopt;
  }
  unsigned Begin = Hash;
  std::vector<std::pair<unsigned, unsigned>> Replaced; // spans not kept
  auto Pragma = [&](unsigned Off) {
    Begin = std::min(Begin, Off);
    Replaced.push_back({Off, lineEnd(Buf, Off)});
  };
  Pragma(Hash);
  if (LoopDir)
    Pragma(offsetOf(LoopDir->getBeginLoc(), SM));
  if (Out.Form == SiteForm::WholeParallel) {
    Pragma(offsetOf(Par->getBeginLoc(), SM));
    if (const auto *CS = dyn_cast<CompoundStmt>(ParBody)) {
      unsigned L = offsetOf(CS->getLBracLoc(), SM), R = offsetOf(CS->getRBracLoc(), SM);
      Replaced.push_back({L, L + 1});
      Replaced.push_back({R, R + 1});
    }
  }
  Replaced.push_back(
      {SM.getFileOffset(ForR.getBegin()), SM.getFileOffset(ForR.getEnd())});
  unsigned End = SM.getFileOffset(LastR.getEnd());
  {
    unsigned E = End;
    while (E < Buf.size() && (Buf[E] == ' ' || Buf[E] == '\t' || Buf[E] == '\r'))
      ++E;
    if (E < Buf.size() && Buf[E] == '\n') {
      Out.LineAfterSite = SM.getPresumedLoc(LastR.getEnd()).getLine() + 1;
      End = E + 1;
    }
  }
  FileID Main = SM.getMainFileID();
  Out.Range = CharSourceRange::getCharRange(SM.getComposedLoc(Main, Begin),
                                            SM.getComposedLoc(Main, End));

  // The lines that stay, in order.
  std::string Rest = Buf.slice(Begin, End).str();
  for (const auto &[B, E] : Replaced)
    for (unsigned I = std::max(B, Begin); I < std::min(E, End); ++I)
      if (Rest[I - Begin] != '\n')
        Rest[I - Begin] = '\r'; // dropped below
  std::string Line;
  auto Flush = [&] {
    Line.erase(std::remove(Line.begin(), Line.end(), '\r'), Line.end());
    while (!Line.empty() && isspace(static_cast<unsigned char>(Line.back())))
      Line.pop_back();
    if (Line.find_first_not_of(" \t") != std::string::npos)
      Out.Kept +=
          (Out.Kept.empty() ? Line.substr(Line.find_first_not_of(" \t")) : "\n" + Line);
    Line.clear();
  };
  for (char C : Rest) {
    if (C == '\n')
      Flush();
    else
      Line += C;
  }
  Flush();
  return Out;
}

} // namespace hce
