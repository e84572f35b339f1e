//===- JumpCheck.h - Jumps out of and into a statement ----------*- C++ -*-===//
//
// Generated code wraps a statement in code that must run before and after
// it: a co_exec loop body becomes a variant called per chunk, a `#pragma hce
// data` statement sits between hce_data_begin and hce_data_end. A jump that
// leaves the statement (or, for data, one into it from outside) would skip
// that code, so both are refused; this finds such jumps. Whether a label is
// inside the statement is decided from the AST (the labels met while
// walking it), not from source offsets.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_JUMPCHECK_H
#define HCE_TRANSLATOR_JUMPCHECK_H

#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceLocation.h"

#include <string>
#include <vector>

namespace hce {

enum class JumpKind { Return, Break, Continue, Goto, ComputedGoto, Throw };

struct Jump {
  JumpKind Kind;
  clang::SourceLocation Loc;
};

/// "'return'", "computed 'goto'", ...: the jump as messages name it.
std::string jumpSpelling(JumpKind K);

/// What the checked statement is: a loop's body, where `continue` goes on
/// with that loop (it stays), or any other statement.
enum class JumpScope { LoopBody, Statement };

/// The jumps of \p S that leave it, in the order of a pre-order walk:
/// `return` and `throw`, `break` outside every loop and switch inside \p S,
/// `continue` outside every loop inside it (Statement scope only), `goto` to
/// a label outside it, and every computed `goto`. Functions, lambdas and
/// blocks inside \p S are their own scope.
std::vector<Jump> jumpsOutOf(const clang::Stmt *S, JumpScope Scope);

/// The locations of the `goto`s of \p FunctionBody, outside \p S, that jump
/// to a label inside \p S.
std::vector<clang::SourceLocation> gotosInto(const clang::Stmt *S,
                                             const clang::Stmt *FunctionBody);

} // namespace hce

#endif
