//===- CodeGenUtil.h - Helpers shared by the emitters -----------*- C++ -*-===//
#ifndef HCE_TRANSLATOR_CODEGENUTIL_H
#define HCE_TRANSLATOR_CODEGENUTIL_H

#include "Region.h"

#include <string>

namespace hce {

/// "__hce_<what>_<index>".
std::string genName(const char *What, const Region &R);

/// `struct __hce_args_N { ... };`: the captured scalars, passed by value,
/// plus the loop's normalised start and step. In C++ it is declared in an
/// unnamed namespace unless \p InUnnamedNs says the caller opened one:
/// every translated file has its own __hce_args_0 (no ODR clash at link).
std::string argsStructDecl(const Region &R, bool InUnnamedNs = false);

/// The enumerator constants the body uses, as a local `enum { A = 1 };` line
/// indented by \p In; "" when there are none.
std::string enumeratorDecl(const Region &R, const std::string &In);

/// The statements, inside a variant, that rebind mapped arrays, captured
/// scalars and reduction variables to the variant's parameters. \p Indent is
/// prepended to each line.
std::string variantPrologue(const Region &R, const std::string &Indent);

/// `#line N "file"` followed by a newline, or "" when disabled.
std::string lineDirective(unsigned Line, const std::string &File, bool Enabled);

/// A C string literal holding \p S.
std::string cString(const std::string &S);

const char *mapKindEnum(MapKind K);
const char *redOpEnum(RedOp Op);

/// The OpenMP reduction clauses of a variant's loop, one per operator:
/// " reduction(+: s, hist[__hce_rlo_1:__hce_rlen_1])".
/// \p ConstLen: array sections with their constant length (offload).
std::string reductionClauses(const Region &R, bool ConstLen = false);
/// A reduction as an OpenMP list item: `s`, or `hist[lo:len]` of an array.
std::string reductionItem(const ReductionVar &V, bool ConstLen = false);
/// Stores each scalar reduction's partial result in its slot of __hce_red.
std::string reductionWriteBack(const Region &R, const std::string &Indent);

} // namespace hce

#endif
