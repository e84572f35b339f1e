// The iteration count a region arrives with, checked with a message that
// says what went wrong.  Generated code passes -1 when the loop, as C runs
// it with the values it has at run time, has no iteration count the runtime
// can take (TripCount.cpp in the translator computes it at the loop site).
#pragma once

#include <cstdint>
#include <string>

namespace hce {

// Empty when `iterations` is valid (>= 0), else the reason.
inline std::string iteration_count_error(int64_t iterations) {
  if (iterations >= 0)
    return {};
  if (iterations == -1)
    return "the loop has no iteration count the runtime can run: with the values "
           "it has here, its condition never becomes false, its variable would "
           "overflow or wrap around first, or it would run more than 2^63-1 "
           "iterations (the generated code passed -1)";
  return "negative iteration count " + std::to_string(iterations);
}

} // namespace hce
