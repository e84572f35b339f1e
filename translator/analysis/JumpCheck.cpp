//===- JumpCheck.cpp - Jumps out of and into a statement ------------------===//
#include "JumpCheck.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

#include <set>

using namespace clang;

namespace hce {

namespace {

/// Walks a statement: the jumps that may leave it, and its labels and gotos.
class JumpWalker : public RecursiveASTVisitor<JumpWalker> {
public:
  explicit JumpWalker(JumpScope Scope) : ContinueStays(Scope == JumpScope::LoopBody) {}

  struct Candidate {
    Jump J;
    const LabelStmt *Target = nullptr; ///< a goto's label (null: none known)
  };
  std::vector<Candidate> Candidates; ///< in walk order
  std::set<const LabelStmt *> Labels;
  std::set<const GotoStmt *> Gotos;

  bool TraverseForStmt(ForStmt *S) {
    return loop([&] { return RecursiveASTVisitor::TraverseForStmt(S); });
  }
  bool TraverseWhileStmt(WhileStmt *S) {
    return loop([&] { return RecursiveASTVisitor::TraverseWhileStmt(S); });
  }
  bool TraverseDoStmt(DoStmt *S) {
    return loop([&] { return RecursiveASTVisitor::TraverseDoStmt(S); });
  }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    return loop([&] { return RecursiveASTVisitor::TraverseCXXForRangeStmt(S); });
  }
  bool TraverseSwitchStmt(SwitchStmt *S) {
    ++BreakDepth;
    bool R = RecursiveASTVisitor::TraverseSwitchStmt(S);
    --BreakDepth;
    return R;
  }
  bool TraverseLambdaExpr(LambdaExpr *E) {
    ++FnDepth;
    bool R = RecursiveASTVisitor::TraverseLambdaExpr(E);
    --FnDepth;
    return R;
  }
  bool TraverseBlockExpr(BlockExpr *E) {
    ++FnDepth;
    bool R = RecursiveASTVisitor::TraverseBlockExpr(E);
    --FnDepth;
    return R;
  }

  bool VisitLabelStmt(LabelStmt *S) {
    Labels.insert(S);
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *S) {
    if (FnDepth == 0)
      add(JumpKind::Return, S->getBeginLoc());
    return true;
  }
  bool VisitBreakStmt(BreakStmt *S) {
    if (FnDepth == 0 && BreakDepth == 0)
      add(JumpKind::Break, S->getBeginLoc());
    return true;
  }
  bool VisitContinueStmt(ContinueStmt *S) {
    if (FnDepth == 0 && LoopDepth == 0 && !ContinueStays)
      add(JumpKind::Continue, S->getBeginLoc());
    return true;
  }
  bool VisitGotoStmt(GotoStmt *S) {
    Gotos.insert(S);
    if (FnDepth == 0)
      Candidates.push_back(
          {{JumpKind::Goto, S->getBeginLoc()}, S->getLabel()->getStmt()});
    return true;
  }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *S) {
    add(JumpKind::ComputedGoto, S->getBeginLoc());
    return true;
  }
  bool VisitCXXThrowExpr(CXXThrowExpr *E) {
    if (FnDepth == 0)
      add(JumpKind::Throw, E->getBeginLoc());
    return true;
  }

private:
  bool ContinueStays;
  int BreakDepth = 0, LoopDepth = 0, FnDepth = 0;

  template <typename F> bool loop(F Fn) {
    ++BreakDepth;
    ++LoopDepth;
    bool R = Fn();
    --BreakDepth;
    --LoopDepth;
    return R;
  }
  void add(JumpKind K, SourceLocation L) { Candidates.push_back({{K, L}, nullptr}); }
};

/// The gotos of a function body not in a given set, to labels in another.
class GotoFinder : public RecursiveASTVisitor<GotoFinder> {
public:
  GotoFinder(const std::set<const LabelStmt *> &Labels,
             const std::set<const GotoStmt *> &Skip)
      : Labels(Labels), Skip(Skip) {}
  std::vector<SourceLocation> Found;
  bool VisitGotoStmt(GotoStmt *S) {
    if (!Skip.count(S) && Labels.count(S->getLabel()->getStmt()))
      Found.push_back(S->getBeginLoc());
    return true;
  }

private:
  const std::set<const LabelStmt *> &Labels;
  const std::set<const GotoStmt *> &Skip;
};

} // namespace

std::string jumpSpelling(JumpKind K) {
  switch (K) {
  case JumpKind::Return: return "'return'";
  case JumpKind::Break: return "'break'";
  case JumpKind::Continue: return "'continue'";
  case JumpKind::Goto: return "'goto'";
  case JumpKind::ComputedGoto: return "computed 'goto'";
  case JumpKind::Throw: return "'throw'";
  }
  return "a jump";
}

std::vector<Jump> jumpsOutOf(const Stmt *S, JumpScope Scope) {
  JumpWalker W(Scope);
  W.TraverseStmt(const_cast<Stmt *>(S));
  std::vector<Jump> Out;
  for (const JumpWalker::Candidate &C : W.Candidates)
    if (C.J.Kind != JumpKind::Goto || !C.Target || !W.Labels.count(C.Target))
      Out.push_back(C.J);
  return Out;
}

std::vector<SourceLocation> gotosInto(const Stmt *S, const Stmt *FunctionBody) {
  JumpWalker W(JumpScope::Statement);
  W.TraverseStmt(const_cast<Stmt *>(S));
  if (W.Labels.empty() || !FunctionBody)
    return {};
  GotoFinder F(W.Labels, W.Gotos);
  F.TraverseStmt(const_cast<Stmt *>(FunctionBody));
  return std::move(F.Found);
}

} // namespace hce
