// Advice to the kernel about host memory a region will write first.
#pragma once

#include <cstddef>
#include <vector>

namespace hce {

// A range of host memory.
struct HostRange {
  char *p = nullptr;
  size_t bytes = 0;
};

// The host's page size (4 KiB where sysconf does not say).
size_t host_page_size();

// The runs of huge-page blocks (2 MiB on x86-64) wholly inside [p, p +
// bytes) none of whose pages exist yet (mincore), in address order, into
// `out` (cleared first).  Empty where the range is not all mapped from its
// first block on (what is mapped before the gap is kept).
void untouched_blocks(void *p, size_t bytes, std::vector<HostRange> &out);

// Asks for transparent huge pages (madvise MADV_HUGEPAGE) on the huge-page
// blocks (2 MiB on x86-64) wholly inside [p, p + bytes) that have no page
// yet (mincore), when `bytes` is at least kHugeAdviceMinBytes.  An output
// array the program never touched (blackscholes' call/put, fresh from
// malloc) is faulted in by whatever writes it first: the CPU's chunks, or a
// download from a GPU, whose copy into 4 KiB pages ran at 10 GB/s by 8
// threads on the H200 against 18 into huge pages and 42 into pages that
// exist (bench/host_fault_bench.cpp, call PB).  Blocks with a page already
// are left alone; nothing changes where the kernel's THP setting is
// `never`; failures are ignored (it is advice).  Returns whether the kernel
// took the advice for some block.
bool advise_huge_pages(void *p, size_t bytes);
// The same advice on runs untouched_blocks() found.
bool advise_huge_pages(const std::vector<HostRange> &untouched);

// Host memory of the runtime's own (staging slots it page-locks): `bytes`
// rounded up to whole huge pages, aligned to one and advised huge pages, so
// that faulting it in is a fault per huge page, not per 4 KiB page (most of
// making the staging pool's 16 MiB, call ID).  nullptr if there is no
// memory; `bytes` is set to what was allocated.  Free with std::free.
char *alloc_on_huge_pages(size_t &bytes);

inline constexpr size_t kHugePageBytes = size_t(2) << 20; // when the kernel does not say
inline constexpr size_t kHugeAdviceMinBytes = size_t(8) << 20;

} // namespace hce
