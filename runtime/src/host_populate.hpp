#pragma once
// Faulting in, ahead of a copy, the host pages a region's output maps will
// receive.
//
// A fresh output array (malloc'ed, never written) has no pages yet: the
// first write to each 4 KiB page faults, and the kernel zeroes it.  When a
// GPU's download is that first write, the faults happen one page after
// another on the thread that copies: the H100's blackscholes GPU alone took
// 0.050 s with its two fresh outputs and 0.031 s with them faulted in
// beforehand (call FK).  Faulting them in is populating the page tables
// writable (madvise MADV_POPULATE_WRITE, Linux >= 5.14), which leaves the
// contents as they are; spread over the idle CPU team, while the GPU
// uploads, it costs the execution little.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

struct hce_region;

namespace hce {

using HostRange = std::pair<uintptr_t, uintptr_t>; // [lo, hi) bytes

// The host bytes every written, non-row-pointer map of `r` covers over all
// its iterations (clamped to the array), when they add up to at least
// `min_bytes`; empty otherwise.
std::vector<HostRange> written_host_ranges(const hce_region &r, std::size_t min_bytes);

// Populates the pages of `ranges` writable, in pieces shared by the calling
// thread's OpenMP team.  Returns the bytes populated; 0 where the kernel
// refuses (EINVAL, a kernel before 5.14: not asked again in this process).
// The memory's contents do not change.
std::size_t populate_for_writing(const std::vector<HostRange> &ranges);

} // namespace hce
