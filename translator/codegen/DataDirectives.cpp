//===- DataDirectives.cpp - #pragma hce data / update ---------------------===//
#include "DataDirectives.h"
#include "AffineCheck.h"
#include "ArrayShape.h"
#include "ClauseLexer.h"
#include "CodeGenUtil.h"
#include "JumpCheck.h"
#include "MapInit.h"
#include "RegionBuilder.h"
#include "SourceText.h"

#include "clang/Basic/SourceManager.h"

#include <map>
#include <optional>

using namespace clang;

namespace hce {

namespace {

/// The variable a for loop's init declares or assigns, or "".
std::string loopVarName(const Stmt *S) {
  const ForStmt *F = regionLoop(S);
  if (!F || !F->getInit())
    return "";
  if (const auto *DS = dyn_cast<DeclStmt>(F->getInit())) {
    if (DS->isSingleDecl())
      if (const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl()))
        return VD->getName().str();
  } else if (const auto *B = dyn_cast<BinaryOperator>(F->getInit())) {
    if (B->getOpcode() == BO_Assign)
      if (const auto *DR =
              dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts()))
        return DR->getDecl()->getName().str();
  }
  return "";
}

/// Entry \p Idx of the hce_map array \p Arr: a whole section (scale 0;
/// describeSection was given no loop variable).
std::string mapFill(const MappedArray &A, const std::string &Arr, size_t Idx,
                    const std::string &I1) {
  return I1 + "{ /* " + (A.SectionText.empty() ? A.Name : A.SectionText) + " */\n" +
         mapFieldInits(A, Arr + "[" + std::to_string(Idx) + "]", I1 + "  ") + I1 + "}\n";
}

struct Covered {
  unsigned End = 0;          // file offset where the closing text goes
  bool AtLineStart = false;  // End is at the start of a line
  unsigned LineAtEnd = 0;    // line number of the text at End
  std::string LoopVar;       // loop variable of a loop the region covers
  bool Ok = false;
};

} // namespace

bool translateDataDirectives(const std::vector<PragmaRecord> &Records,
                             const std::vector<StmtSite> &Stmts,
                             const std::vector<Region> &Regions, ASTContext &Ctx,
                             const Preprocessor &PP, Diag &D, Rewriter &RW,
                             bool LineDirectives) {
  SourceManager &SM = Ctx.getSourceManager();
  bool Any = false;
  for (const PragmaRecord &P : Records)
    Any |= P.Kind != PragmaKind::CoExec;
  if (!Any)
    return true;
  StringRef MainText = SM.getBufferData(SM.getMainFileID());

  const std::vector<StmtSite> InFunctions = withEnds(Stmts, Ctx);

  struct SiteSpan {
    unsigned Begin, End;
    const Region *R;
  };
  std::vector<SiteSpan> Sites;
  for (const Region &R : Regions)
    Sites.push_back({SM.getFileOffset(R.SiteRange.getBegin()),
                     SM.getFileOffset(R.SiteRange.getEnd()), &R});

  // Record order is file order (the preprocessor meets them in order).
  std::vector<unsigned> HashOff(Records.size());
  for (size_t I = 0; I < Records.size(); ++I)
    HashOff[I] = SM.getFileOffset(Records[I].HashLoc);

  auto GapEmpty = [&](unsigned From, unsigned To) {
    StringRef Gap = MainText.slice(From, To);
    return lexClauseText(std::string_view(Gap.data(), Gap.size())).empty();
  };
  auto Innermost = [&](unsigned O) { return innermostStmtAt(InFunctions, O); };

  bool Ok = true;
  std::map<size_t, Covered> Cov; // per data record
  std::vector<size_t> Order;
  for (size_t I = Records.size(); I-- > 0;)
    if (Records[I].Kind != PragmaKind::CoExec)
      Order.push_back(I);

  for (size_t I : Order) {
    const PragmaRecord &P = Records[I];
    const char *Dir = P.Kind == PragmaKind::Data ? "data" : "update";
    if (!P.Valid) {
      Ok = false;
      continue;
    }
    unsigned O = HashOff[I];
    bool InLoop = false;
    for (const SiteSpan &S : Sites)
      InLoop |= O > S.Begin && O < S.End;
    if (InLoop) {
      D.error(P.DirectiveLoc, std::string("'#pragma hce ") + Dir +
                                  "' cannot appear inside a co_exec loop");
      Ok = false;
      continue;
    }
    const StmtSite *Enc = Innermost(O);
    if (!Enc) {
      D.error(P.DirectiveLoc, std::string("'#pragma hce ") + Dir +
                                  "' must be inside a function body");
      Ok = false;
      continue;
    }
    if (P.Kind == PragmaKind::Update) {
      if (!isa<CompoundStmt>(Enc->S)) {
        D.error(P.DirectiveLoc,
                "'#pragma hce update' must be a statement of a block "
                "({ ... }), not the body of an 'if', a loop or a label");
        Ok = false;
      }
      continue;
    }
    // #pragma hce data: what follows it?
    unsigned From = SM.getFileOffset(P.EndLoc);
    std::optional<size_t> NextRec;
    for (size_t J = I + 1; J < Records.size(); ++J)
      if (HashOff[J] >= From) {
        NextRec = J;
        break;
      }
    const StmtSite *Next = firstStmtFrom(InFunctions, From);
    Covered Cv;
    if (NextRec && (!Next || HashOff[*NextRec] < Next->Offset) &&
        GapEmpty(From, HashOff[*NextRec])) {
      const PragmaRecord &NP = Records[*NextRec];
      if (NP.Kind == PragmaKind::Update) {
        D.error(P.DirectiveLoc, "'#pragma hce data' must be followed by a "
                                "statement, not by '#pragma hce update'");
        Ok = false;
        continue;
      }
      if (NP.Kind == PragmaKind::Data) {
        Cv = Cov[*NextRec];
        if (!Cv.Ok) {
          Ok = false;
          continue;
        }
      } else {
        const SiteSpan *Site = nullptr;
        for (const SiteSpan &S : Sites)
          if (S.Begin == HashOff[*NextRec])
            Site = &S;
        if (!Site) {
          Ok = false;
          continue;
        }
        Cv.End = Site->End;
        Cv.AtLineStart = Site->R->LineAfterSite != 0;
        Cv.LineAtEnd = Site->R->LineAfterSite;
        Cv.LoopVar = Site->R->Loop.VarName;
        Cv.Ok = true;
      }
    } else if (Next && GapEmpty(From, Next->Offset)) {
      if (isa<DeclStmt>(Next->S)) {
        D.error(P.DirectiveLoc,
                "'#pragma hce data' cannot apply to a declaration (its scope "
                "would end with the region); put the region in braces");
        D.note(Next->S->getBeginLoc(), "this declaration");
        Ok = false;
        continue;
      }
      // hce_data_end (hce_data_begin) must not be skipped.
      std::vector<Jump> Out = jumpsOutOf(Next->S, JumpScope::Statement);
      for (const Jump &J : Out)
        D.error(J.Loc, jumpSpelling(J.Kind) +
                           " cannot leave a '#pragma hce data' region (its "
                           "hce_data_end would be skipped); leave the region "
                           "at its end instead");
      std::vector<SourceLocation> In = gotosInto(Next->S, Next->Func->getBody());
      for (SourceLocation L : In)
        D.error(L, "'goto' cannot jump into a '#pragma hce data' region (its "
                   "hce_data_begin would be skipped)");
      if (!Out.empty() || !In.empty()) {
        Ok = false;
        continue;
      }
      Cv.End = Next->End;
      Cv.LoopVar = loopVarName(Next->S);
      // A co_exec loop that ends where the statement ends: close after the
      // code that replaces it.
      for (const SiteSpan &S : Sites)
        if (Cv.End > S.Begin && Cv.End <= S.End) {
          Cv.End = S.End;
          Cv.AtLineStart = S.R->LineAfterSite != 0;
          Cv.LineAtEnd = S.R->LineAfterSite;
        }
      Cv.Ok = true;
    } else {
      D.error(P.DirectiveLoc,
              "'#pragma hce data' must be followed by a statement");
      Ok = false;
      continue;
    }
    Cov[I] = Cv;
  }
  if (!Ok || D.hasErrors())
    return false;

  // Sections, and the rewrites.
  unsigned DataIndex = 0, UpdateIndex = 0;
  std::vector<std::pair<SourceLocation, std::string>> Closings;
  for (size_t I = 0; I < Records.size(); ++I) {
    const PragmaRecord &P = Records[I];
    if (P.Kind == PragmaKind::CoExec)
      continue;
    const bool IsData = P.Kind == PragmaKind::Data;
    const char *Dir = IsData ? "data" : "update";
    const StmtSite *Enc = Innermost(HashOff[I]);
    std::string LoopVar = IsData ? Cov[I].LoopVar : "";
    std::vector<MappedArray> Maps;
    // data: each array once. update: an array may have several sections in
    // one list (each its own hce_map), but not be in both lists (OpenMP's
    // rule for target update).
    std::map<std::string, MapKind> Seen;
    bool MapsOk = true;
    // update: the to(...) list first, then from(...).
    for (int Pass = 0; Pass < (IsData ? 1 : 2); ++Pass) {
      for (const MapClause &MC : P.Clauses.Maps) {
        if (!IsData && (MC.Kind == MapKind::To) != (Pass == 0))
          continue;
        for (const Section &S : MC.Sections) {
          SourceLocation Loc = P.locAt(S.Offset);
          auto [It, First] = Seen.try_emplace(S.Name, MC.Kind);
          if (!First && (IsData || It->second != MC.Kind)) {
            D.error(Loc, "'" + S.Name + "' " +
                             (IsData ? "appears more than once in '#pragma hce data'"
                                     : "appears in both to(...) and from(...) of "
                                       "'#pragma hce update'"));
            MapsOk = false;
            continue;
          }
          if (!LoopVar.empty()) {
            bool Bad = false;
            for (const SectionDim &SD : S.Dims)
              for (const ClauseExpr *E : {&SD.Lo, &SD.Len})
                if (!Bad && !E->empty() &&
                    mentionsIdentifier(E->Text, LoopVar)) {
                  D.error(P.locAt(E->Offset),
                          "the sections of '#pragma hce data' are evaluated "
                          "once, before the loop: they cannot use its "
                          "variable '" +
                              LoopVar + "'");
                  Bad = true;
                }
            if (Bad) {
              MapsOk = false;
              continue;
            }
          }
          const VarDecl *VD =
              lookupVisibleVar(S.Name, P.HashLoc, Enc ? Enc->Func : nullptr,
                               Ctx);
          if (!VD) {
            D.error(Loc, "no variable named '" + S.Name + "' is visible here");
            MapsOk = false;
            continue;
          }
          MappedArray M;
          M.Name = S.Name;
          M.Kind = MC.Kind;
          M.Always = MC.Always;
          if (!describeSection(S, VD, "", static_cast<unsigned>(Maps.size()),
                               P, Ctx, D, M, nullptr, &PP)) {
            MapsOk = false;
            continue;
          }
          M.SectionText = sectionText(S);
          Maps.push_back(M);
        }
      }
    }
    if (!MapsOk) {
      Ok = false;
      continue;
    }

    std::string Indent = indentOf(SM, P.HashLoc);
    std::string I1 = Indent + "  ";
    PresumedLoc PL = SM.getPresumedLoc(P.HashLoc);
    std::string File = PL.getFilename();
    unsigned NextLine = SM.getPresumedLoc(P.EndLoc).getLine() + 1;
    std::string Arr = std::string(IsData ? "__hce_dm" : "__hce_um") +
                      std::to_string(IsData ? DataIndex : UpdateIndex);
    std::string T;
    T += std::string("{ /* hce ") + Dir + " " +
         std::to_string(IsData ? DataIndex : UpdateIndex) + " (line " +
         std::to_string(PL.getLine()) + ") */\n";
    T += I1 + "hce_map " + Arr + "[" + std::to_string(Maps.size()) + "];\n";
    for (size_t M = 0; M < Maps.size(); ++M)
      T += mapFill(Maps[M], Arr, M, I1);
    if (IsData) {
      // The statement goes in a block of its own, so that nothing after it
      // on its line looks like part of it (-Wmisleading-indentation).
      T += I1 + "hce_data_begin_or_exit(" + std::to_string(Maps.size()) + ", " + Arr +
           "); {";
    } else {
      size_t NTo = 0;
      for (const MappedArray &M : Maps)
        NTo += M.Kind == MapKind::To;
      if (NTo)
        T += I1 + "hce_update_or_exit(" + std::to_string(NTo) + ", " + Arr + ", 1);\n";
      if (NTo < Maps.size())
        T += I1 + "hce_update_or_exit(" + std::to_string(Maps.size() - NTo) + ", " + Arr +
             (NTo ? " + " + std::to_string(NTo) : "") + ", 0);\n";
      T += Indent + "}";
    }
    if (LineDirectives)
      T += "\n" + lineDirective(NextLine, File, true).substr(
                      0, lineDirective(NextLine, File, true).size() - 1);
    SourceLocation EndLoc = P.EndLoc;
    if (RW.ReplaceText(CharSourceRange::getCharRange(P.HashLoc, EndLoc), T)) {
      D.error(P.HashLoc, "cannot rewrite this pragma");
      return false;
    }
    if (IsData) {
      const Covered &Cv = Cov[I];
      SourceLocation At =
          SM.getLocForStartOfFile(SM.getMainFileID()).getLocWithOffset(Cv.End);
      std::string Close;
      if (Cv.AtLineStart) {
        Close = I1 + "} hce_data_end_or_exit();\n" + Indent + "} /* hce data " +
                std::to_string(DataIndex) + " */\n" +
                lineDirective(Cv.LineAtEnd, File, LineDirectives);
      } else {
        Close = " } hce_data_end_or_exit(); }";
      }
      Closings.push_back({At, Close});
      ++DataIndex;
    } else {
      ++UpdateIndex;
    }
  }
  // Inner regions first where several close at the same place.
  for (size_t K = Closings.size(); K-- > 0;)
    RW.InsertText(Closings[K].first, Closings[K].second, /*InsertAfter=*/true);
  return Ok && !D.hasErrors();
}

} // namespace hce
