// The page prefaulter (page_prefaulter.hpp): it faults in the pages it is
// given, on its threads, one job at a time, and never changes what a page
// holds -- not even while another thread writes the same pages.
#include "page_prefaulter.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <thread>
#include <vector>

namespace {

using Mapping = hce_test::FreshMapping;

// Pages of [m.p + off, m.p + off + n) that exist.
size_t resident_pages(const Mapping &m, size_t off, size_t n) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> v((n + page - 1) / page);
  if (mincore(m.p + off, n, v.data()) != 0)
    return 0;
  size_t k = 0;
  for (unsigned char c : v)
    k += c & 1;
  return k;
}

constexpr size_t kMiB = size_t(1) << 20;

// The kernel must know MADV_POPULATE_WRITE (Linux 5.14) for these tests
// to mean anything; the development and CI machines run 6.x.
void require_support(hce::PagePrefaulter &pf, const hce::HostRange &probe) {
  ASSERT_TRUE(pf.start({probe}, 1));
  pf.finish(true);
  ASSERT_TRUE(pf.supported()) << "this kernel refuses MADV_POPULATE_WRITE";
}

TEST(PagePrefaulter, FaultsInItsRangesAndKeepsWhatPagesHold) {
  hce::PagePrefaulter pf;
  Mapping m(64 * kMiB);
  ASSERT_NE(m.p, MAP_FAILED);
  require_support(pf, {m.p, 4096});
  // Every third MiB written first: it must keep its bytes.
  std::vector<double> pattern = hce_test::random_vector(kMiB / sizeof(double), 3);
  for (size_t mib = 0; mib < 64; mib += 3)
    std::memcpy(m.p + mib * kMiB, pattern.data(), kMiB);
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  ASSERT_LT(resident_pages(m, 0, m.bytes), m.bytes / page);
  const size_t before = pf.total_bytes();
  // Two ranges, the second not page-aligned at its end.
  ASSERT_TRUE(pf.start({{m.p, 40 * kMiB}, {m.p + 40 * kMiB, 24 * kMiB - 100}}, 3));
  EXPECT_EQ(pf.finish(true), 64 * kMiB - 100);
  EXPECT_EQ(pf.total_bytes() - before, 64 * kMiB - 100);
  EXPECT_EQ(resident_pages(m, 0, m.bytes), m.bytes / page);
  for (size_t mib = 0; mib < 64; ++mib) {
    if (mib % 3 == 0) {
      ASSERT_EQ(std::memcmp(m.p + mib * kMiB, pattern.data(), kMiB), 0) << "MiB " << mib;
    } else {
      for (size_t off = 0; off < kMiB; off += 512)
        ASSERT_EQ(m.p[mib * kMiB + off], 0) << "MiB " << mib;
    }
  }
}

// Another thread writes the pages while they are faulted in (a download
// beside the prefaulter): every byte it wrote is there after both.
TEST(PagePrefaulter, AWriterBesideItKeepsEveryByte) {
  hce::PagePrefaulter pf;
  Mapping m(96 * kMiB);
  ASSERT_NE(m.p, MAP_FAILED);
  require_support(pf, {m.p + 95 * kMiB, 4096});
  std::vector<double> data = hce_test::random_vector(m.bytes / sizeof(double), 11);
  ASSERT_TRUE(pf.start({{m.p, m.bytes}}, 4));
  std::thread writer([&] { std::memcpy(m.p, data.data(), m.bytes); });
  writer.join();
  pf.finish(true);
  EXPECT_EQ(std::memcmp(m.p, data.data(), m.bytes), 0);
}

TEST(PagePrefaulter, OneJobAtATime) {
  hce::PagePrefaulter pf;
  Mapping m(32 * kMiB);
  ASSERT_NE(m.p, MAP_FAILED);
  EXPECT_EQ(pf.finish(), 0u); // nothing started
  EXPECT_FALSE(pf.start({{m.p, m.bytes}}, 0));
  EXPECT_FALSE(pf.start({}, 2));
  ASSERT_TRUE(pf.start({{m.p, 16 * kMiB}}, 2));
  EXPECT_FALSE(pf.start({{m.p + 16 * kMiB, 16 * kMiB}}, 2));
  pf.finish(true);
  ASSERT_TRUE(pf.start({{m.p + 16 * kMiB, 16 * kMiB}}, 2));
  EXPECT_LE(pf.finish(), 16 * kMiB); // what no thread took yet is dropped
  ASSERT_TRUE(pf.start({{m.p + 16 * kMiB, 16 * kMiB}}, 2));
  const size_t done = pf.finish(true);
  if (pf.supported())
    EXPECT_EQ(done, 16 * kMiB);
}

// Memory that is not mapped is skipped, not a crash; the next job runs.
TEST(PagePrefaulter, UnmappedMemoryIsSkipped) {
  hce::PagePrefaulter pf;
  Mapping m(32 * kMiB);
  ASSERT_NE(m.p, MAP_FAILED);
  require_support(pf, {m.p, 4096});
  ASSERT_EQ(munmap(m.p + 8 * kMiB, 8 * kMiB), 0);
  ASSERT_TRUE(pf.start({{m.p + 8 * kMiB, 8 * kMiB}, {m.p + 16 * kMiB, 8 * kMiB}}, 2));
  EXPECT_EQ(pf.finish(true), 8 * kMiB);
  EXPECT_TRUE(pf.supported());
  munmap(m.p, 8 * kMiB);
  munmap(m.p + 16 * kMiB, 16 * kMiB);
  m.p = static_cast<char *>(MAP_FAILED);
}

} // namespace
