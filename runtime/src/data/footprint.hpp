// Footprints: which elements of a mapped array a range of iterations touches.
//
// A map (struct hce_map in <hce/hce.h>) describes, for normalised iteration
// k, the element intervals
//
//     [scale*k + offset + b*stride, scale*k + offset + b*stride + len)
//
// for b in [0, blocks).  footprint() turns that description and a range
// [lb, ub) of iterations into an IntervalSet, in time proportional to the
// number of intervals it returns (plus a sort in the one layout where the
// intervals of different iterations and blocks interleave).
#pragma once

#include "data/interval_set.hpp"

#include <cstdint>
#include <string>

struct hce_map;

namespace hce {

// The affine part of an hce_map, in elements.
struct MapShape {
  int64_t scale = 0;  // elements per iteration (0: broadcast, < 0 allowed)
  int64_t offset = 0; // first element for iteration 0, block 0
  int64_t len = 0;    // elements per block
  int64_t blocks = 1; // blocks per iteration
  int64_t stride = 0; // elements between blocks (ignored when blocks == 1)
  friend bool operator==(const MapShape &, const MapShape &) = default;
};

MapShape shape_of(const hce_map &m);

// Elements touched by iterations [lb, ub), clamped to [0, extent) when
// extent >= 0 (extent == -1: unknown, no clamping; negative indices are then
// kept as they are, see check_footprint).  Empty when ub <= lb, len <= 0 or
// blocks <= 0.
//
// Layouts, by cost:
//   - one block, |scale| <= len (rows, halos, broadcast): one interval;
//   - one block, |scale| > len (a gap between iterations): ub-lb intervals;
//   - several blocks: whichever of iterations or blocks is "inner" (its
//     union is contiguous, or its elements all fall before the next outer
//     step) is folded first; O(outer) or O(outer * inner) intervals, sorted
//     directly; only truly interleaved lattices are sorted (O(m log m)).
IntervalSet footprint(const MapShape &shape, int64_t lb, int64_t ub,
                      int64_t extent = -1);
// For an hce_map, extent -1 means the map's own: m.extent when known, and
// the lower end (element 0) in any case.
IntervalSet footprint(const hce_map &m, int64_t lb, int64_t ub,
                      int64_t extent = -1);
// The same into `out` (its storage reused: the data layer's footprints of
// every chunk), with the map's own extent.
void footprint(const MapShape &shape, int64_t lb, int64_t ub, int64_t extent,
               IntervalSet &out);
void footprint(const hce_map &m, int64_t lb, int64_t ub, IntervalSet &out);
// The hull of the map's footprint over [lb, ub), clamped like footprint().
Interval clamped_hull(const hce_map &m, int64_t lb, int64_t ub);

// The run-time check of a region's map (docs/data-layer.md, "Clamping"):
// well-formed, no 64-bit overflow, a section that is the same for every
// iteration lies inside [0, extent), and every iteration's footprint has
// some element inside the array (the rest is clamped away: a halo row
// before the first row or after the last).  "" or one sentence.
std::string check_map(const hce_map &m, int64_t iterations);

// Smallest and one-past-largest element touched by iterations [lb, ub)
// (unclamped); {0, 0} when the footprint is empty.  Does not overflow for
// in-range inputs: computed in 128-bit arithmetic, saturated to int64.
Interval footprint_hull(const MapShape &shape, int64_t lb, int64_t ub);

// True when two different iterations in [0, iterations) touch a common
// element (or one iteration's blocks overlap each other): the footprint
// does not partition the section among iterations, so a range's written
// footprint says nothing about which of its elements the range really
// wrote.  `map(tofrom: y[0:n])` (scale 0), halos `A[i-1:3]`.  O(blocks).
bool iterations_share_elements(const MapShape &shape, int64_t iterations);

// Checks that the map is well-formed and that, over iterations [0,
// iterations), it never indexes below element 0 nor (when extent >= 0) at or
// beyond `extent`, and that no index overflows int64.  Returns "" when it is
// fine, else one clear sentence naming the map, e.g.
//   "map 'A[i-1:3]': iteration 0 touches element -1, below the start of
//    the array"
// `name` is used in messages (hce_map::name for the hce_map overload).
std::string check_footprint(const MapShape &shape, int64_t iterations,
                            int64_t extent = -1, const char *name = nullptr);
std::string check_footprint(const hce_map &m, int64_t iterations,
                            int64_t extent = -1);

} // namespace hce
