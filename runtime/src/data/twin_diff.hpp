// Twin and diff: merging a device's writes to a section whose footprint
// does not say which elements a range of iterations writes (a whole-array
// `map(tofrom: y[0:n])`, transposed, scattered or block writes).
//
// Before the chunk runs, the runtime keeps a twin: the elements it hands
// the device, packed (the intervals of `elems` one after another).  After
// the chunk, the device's copy of the same elements is brought back packed
// too; the elements whose bytes differ are the ones the device wrote, and
// only those are written to the host.  Elements the device did not change
// keep whatever the host has now, including other devices' results.
//
// A write of the value an element already had is not seen; that is harmless
// as long as no two iterations write one element (which an OpenMP parallel
// loop without a reduction or atomics must not do anyway).
#pragma once

#include "data/interval_set.hpp"

#include <cstddef>

namespace hce {

// Bytes of `elems` packed.
size_t packed_bytes(const IntervalSet &elems, size_t elem_size);
// Copies the elements `elems` of the array at `base` (element 0) into
// `packed`, one interval after another.
void gather(const char *base, const IntervalSet &elems, size_t elem_size, char *packed);
// The elements of `elems` whose bytes differ between the packed buffers.
IntervalSet changed_elements(const char *twin, const char *now, const IntervalSet &elems,
                             size_t elem_size);
// The elements of `changed` that the array at `base` no longer holds as in
// the twin: someone else wrote them since the twin was taken, and merging
// would lose that write (even when the values happen to agree: two
// increments of one element look the same).  `now` is unused.
IntervalSet conflicting_elements(const char *base, const char *twin, const char *now,
                                 const IntervalSet &elems, const IntervalSet &changed,
                                 size_t elem_size);
// Writes the elements `which` (a subset of `elems`) from the packed buffer
// `packed` (laid out over `elems`) into the array at `base`.
void scatter(char *base, const char *packed, const IntervalSet &elems,
             const IntervalSet &which, size_t elem_size);

} // namespace hce
