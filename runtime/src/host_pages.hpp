// Advice to the kernel about host memory a region will write first.
#pragma once

#include <cstddef>

namespace hce {

// Asks for transparent huge pages (madvise MADV_HUGEPAGE) on the 2 MiB
// pages wholly inside [p, p + bytes), when that is at least kMinBytes.  An
// output array the program never touched (blackscholes' call/put, matadd's
// C, fresh from malloc) is faulted in by whatever writes it first: the CPU's
// chunks, or a download from a GPU, whose copy into 4 KiB pages ran at
// 9 GB/s on the H200 against ~30 GB/s into pages that exist.  A 2 MiB page
// is one fault instead of 512.  Only 2 MiB blocks with no page yet are
// advised; nothing changes for pages that exist, or
// where the kernel's THP setting is `never`; failures are ignored (advice).
// Returns whether the kernel took the advice.
bool advise_huge_pages(void *p, size_t bytes);

inline constexpr size_t kHugePageBytes = size_t(2) << 20;
inline constexpr size_t kHugeAdviceMinBytes = size_t(8) << 20;

} // namespace hce
