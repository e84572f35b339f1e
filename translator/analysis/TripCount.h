//===- TripCount.h - Iteration counts exactly as C runs the loop -*- C++ -*-===//
//
// The number of iterations of `for (T i = init; i OP bound; i += step)`
// computed as C runs the loop: values of T (the bound converted as the
// comparison converts it), unsigned wrap-around for `!=` loops where C
// defines it, 64-bit unsigned arithmetic so that no range overflows.
// A loop that never ends, that would overflow a signed variable or wrap an
// unsigned one past its bound, or whose count exceeds INT64_MAX, is refused:
// at translation time with a located error when init, bound and step are
// constants, otherwise at run time (the count is -1, which the runtime
// rejects for the region).
//
//===----------------------------------------------------------------------===//
#ifndef HCE_TRANSLATOR_TRIPCOUNT_H
#define HCE_TRANSLATOR_TRIPCOUNT_H

#include "Region.h"

#include <cstdint>
#include <optional>
#include <string>

namespace hce {

/// The count for constant operands, or nullopt with \p Why when C would
/// not end the loop normally. \p Init is the variable's first value and
/// \p Bound the bound converted to the comparison's type, both as 64-bit
/// patterns (sign- or zero-extended).
std::optional<int64_t> constantTripCount(const LoopInfo &L, uint64_t Init, uint64_t Bound,
                                         int64_t Step, std::string &Why);

/// A message when the loop's condition holds for every value of the
/// variable (`unsigned i; i >= 0`, `unsigned char c; c <= 255`, `c != 300`)
/// given the constant \p Bound (a 64-bit pattern of the comparison's type).
std::optional<std::string> conditionAlwaysTrue(const LoopInfo &L, uint64_t Bound);

/// Site code that declares `__hce_init`, `__hce_step` (int64_t) and
/// `__hce_W` (-1 when the loop cannot be run as C would run it), one
/// statement a line, each preceded by \p Indent.
std::string tripCountCode(const LoopInfo &L, const std::string &Indent);

/// The loop variable's value at normalised iteration \p K (an expression
/// of type int64_t, `__hce_k`): `__hce_init + K * __hce_step` computed in
/// the variable's own type when it is unsigned and at least as wide as int
/// (modular, so exact for bounds above INT64_MAX, where int64_t arithmetic
/// would overflow), else in int64_t (exact: every value lies in range).
std::string loopVarAt(const LoopInfo &L, const std::string &K);

} // namespace hce

#endif
