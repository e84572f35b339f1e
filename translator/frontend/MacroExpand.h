//===- MacroExpand.h - Clause text with the macros expanded -----*- C++ -*-===//
//
// A section start written with a macro (`SQ(i)`) cannot be classified as
// text; expanded with the macro definitions the preprocessor saw, it can.
// Object-like and function-like macros are expanded (arguments
// parenthesised, as the classifier needs them); `#` and `##` in a body are
// not modelled (nullopt). Depth and size are bounded.
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_MACROEXPAND_H
#define HCE_TRANSLATOR_MACROEXPAND_H

#include "clang/Lex/Preprocessor.h"

#include <optional>
#include <string>

namespace hce {

/// \p Text with every macro expanded, or nullopt when that cannot be done.
std::optional<std::string> expandMacros(const std::string &Text,
                                        const clang::Preprocessor &PP);

} // namespace hce

#endif
