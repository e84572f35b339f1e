// advise_huge_pages(): huge pages only for 2 MiB blocks nothing touched yet
// (host_pages.hpp), and a region's written arrays keep their values.
#include "host_pages.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

// Whether the kernel would take MADV_HUGEPAGE at all (THP built in and not
// `never`): the advice is then expected to be taken.
bool thp_available() {
  std::string line;
  std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), line);
  return !line.empty() && line.find("[never]") == std::string::npos;
}

using Mapping = hce_test::FreshMapping;

TEST(HostPages, FreshMemoryIsAdvised) {
  Mapping m(size_t(32) << 20);
  ASSERT_NE(m.p, MAP_FAILED);
  EXPECT_EQ(hce::advise_huge_pages(m.p + 123, m.bytes - 123), thp_available());
  std::memset(m.p, 0x5a, m.bytes); // still ordinary memory
  for (size_t off = 0; off < m.bytes; off += 4096)
    ASSERT_EQ(m.p[off], 0x5a);
}

TEST(HostPages, TouchedMemoryIsLeftAlone) {
  Mapping m(size_t(32) << 20);
  ASSERT_NE(m.p, MAP_FAILED);
  // One byte per 64 KiB: every 2 MiB block has a page already.
  for (size_t off = 0; off < m.bytes; off += 65536)
    m.p[off] = 1;
  EXPECT_FALSE(hce::advise_huge_pages(m.p, m.bytes));
  // A block untouched among touched ones is advised.
  Mapping n(size_t(32) << 20);
  ASSERT_NE(n.p, MAP_FAILED);
  for (size_t off = 0; off < n.bytes / 2; off += 4096)
    n.p[off] = 1;
  EXPECT_EQ(hce::advise_huge_pages(n.p, n.bytes), thp_available());
}

// THPeligible of the mapping that holds `p` (/proc/self/smaps), -1 where
// the kernel does not say.
int thp_eligible(const void *p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > 8)
      inside = uintptr_t(p) >= lo && uintptr_t(p) < hi;
    else if (inside && line.rfind("THPeligible:", 0) == 0)
      return std::atoi(line.c_str() + 12);
  }
  return -1;
}

// The runtime's own staging slots: whole huge pages, aligned to one, advised.
TEST(HostPages, TheRuntimesArenasAreOnHugePages) {
  size_t bytes = (size_t(3) << 20) + 5;
  char *p = hce::alloc_on_huge_pages(bytes);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(bytes, size_t(4) << 20);
  EXPECT_EQ(uintptr_t(p) % hce::kHugePageBytes, 0u);
  std::memset(p, 0x3c, bytes);
  for (size_t off = 0; off < bytes; off += 4096)
    ASSERT_EQ(p[off], 0x3c);
  if (thp_available() && thp_eligible(p) >= 0)
    EXPECT_EQ(thp_eligible(p), 1) << "the arena was not advised huge pages";
  std::free(p);
}

// untouched_blocks(): the aligned huge-page blocks no page of exists, as
// runs in address order.
TEST(HostPages, UntouchedBlocksAreTheRunsNothingTouched) {
  const size_t huge = size_t(2) << 20;
  Mapping m(size_t(40) << 20);
  ASSERT_NE(m.p, MAP_FAILED);
  char *lo = reinterpret_cast<char *>((uintptr_t(m.p) + huge - 1) & ~(huge - 1));
  std::vector<hce::HostRange> runs;
  hce::untouched_blocks(lo, 16 * huge, runs);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].p, lo);
  EXPECT_EQ(runs[0].bytes, 16 * huge);
  // One byte in blocks 3 and 4, one in block 10: three runs.
  lo[3 * huge + 5] = 1;
  lo[4 * huge] = 1;
  lo[10 * huge + huge - 1] = 1;
  hce::untouched_blocks(lo + 1, 16 * huge - 1, runs); // block 0 not whole
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].p, lo + huge);
  EXPECT_EQ(runs[0].bytes, 2 * huge);
  EXPECT_EQ(runs[1].p, lo + 5 * huge);
  EXPECT_EQ(runs[1].bytes, 5 * huge);
  EXPECT_EQ(runs[2].p, lo + 11 * huge);
  EXPECT_EQ(runs[2].bytes, 5 * huge);
  hce::untouched_blocks(lo, huge - 1, runs); // no whole block
  EXPECT_TRUE(runs.empty());
}

TEST(HostPages, SmallArraysAreLeftAlone) {
  Mapping m(hce::kHugeAdviceMinBytes);
  ASSERT_NE(m.p, MAP_FAILED);
  EXPECT_FALSE(hce::advise_huge_pages(m.p, hce::kHugeAdviceMinBytes - 1));
  EXPECT_FALSE(hce::advise_huge_pages(m.p, 0));
}

// y[i*n + j] = 2 x[i*n + j] + 1, the CPU variant.
void scale_rows(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *x = static_cast<const double *>(ptrs[0]);
  double *y = static_cast<double *>(ptrs[1]);
  const int64_t n = *static_cast<const int64_t *>(args);
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] = 2 * x[i * n + j] + 1;
}

// A region whose output is memory the program never touched (malloc's
// fresh pages, here an mmap): the data layer advises it, the CPU and a
// simulated device write it, every element is right.
TEST(HostPages, RegionWritesAnUntouchedOutput) {
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e12,lat:0");
  const int64_t m = 1536, n = 2048; // 24 MiB of doubles
  std::vector<double> x = hce_test::random_vector(size_t(m * n), 7);
  Mapping y(size_t(m * n) * sizeof(double));
  ASSERT_NE(y.p, MAP_FAILED);
  double *yd = reinterpret_cast<double *>(y.p);
  hce_map maps[2] = {hce_test::row_map("x", x.data(), HCE_MAP_TO, n),
                     hce_test::row_map("y", yd, HCE_MAP_FROM, n)};
  void *site = nullptr;
  hce_region r{};
  r.name = "scale_rows";
  r.schedule = "static";
  r.iterations = m;
  r.num_maps = 2;
  r.maps = maps;
  r.args = &n;
  r.args_size = sizeof n;
  r.cpu = scale_rows;
  r.site = &site;
  ASSERT_EQ(hce_co_exec(&r), 0);
  for (int64_t k = 0; k < m * n; ++k)
    ASSERT_EQ(yd[k], 2 * x[size_t(k)] + 1) << "element " << k;
  EXPECT_GT(hce_last_iterations(&site, "sim:0"), 0);
  EXPECT_EQ(hce_last_iterations(&site, "cpu") + hce_last_iterations(&site, "sim:0"), m);
}

} // namespace
