// The page prefaulter (page_prefaulter.hpp): it faults in the pages it is
// given, on its threads, one job at a time, and never changes what a page
// holds -- not even while another thread writes the same pages.
#include "page_prefaulter.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
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

// ahead() puts its pieces before those no thread took yet, begins a job
// where none runs, and is not a job: start() still joins a job only ahead()
// began (an accelerator's chunk before the CPU's team retired).
TEST(PagePrefaulter, AheadGoesFirstAndAWholeJobJoinsIt) {
  hce::PagePrefaulter pf;
  Mapping m(192 * kMiB);
  ASSERT_NE(m.p, MAP_FAILED);
  require_support(pf, {m.p + 191 * kMiB, 4096});
  const uint64_t jobs = pf.jobs();
  // One thread over the first 160 MiB, then 4 MiB at the end ahead of it:
  // they exist before most of the 160 do.
  ASSERT_TRUE(pf.start({{m.p, 160 * kMiB}}, 1));
  ASSERT_TRUE(pf.ahead({{m.p + 184 * kMiB, 4 * kMiB}}, 1));
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (resident_pages(m, 184 * kMiB, 4 * kMiB) < 4 * kMiB / page &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  ASSERT_EQ(resident_pages(m, 184 * kMiB, 4 * kMiB), 4 * kMiB / page);
  EXPECT_LT(resident_pages(m, 0, 160 * kMiB), 80 * kMiB / page)
      << "the pieces ahead() gave waited behind the job's";
  EXPECT_EQ(pf.finish(true), 164 * kMiB);
  EXPECT_EQ(pf.jobs(), jobs + 1);
  EXPECT_EQ(pf.aheads(), 1u);
  // A job ahead() began: start() joins it, once; ahead() goes on adding.
  ASSERT_TRUE(pf.ahead({{m.p + 160 * kMiB, 4 * kMiB}}, 2));
  EXPECT_EQ(pf.jobs(), jobs + 1);
  ASSERT_TRUE(pf.start({{m.p + 164 * kMiB, 8 * kMiB}}, 2));
  EXPECT_FALSE(pf.start({{m.p + 172 * kMiB, 4 * kMiB}}, 2));
  ASSERT_TRUE(pf.ahead({{m.p + 176 * kMiB, 4 * kMiB}}, 1));
  EXPECT_EQ(pf.finish(true), 16 * kMiB);
  EXPECT_EQ(pf.jobs(), jobs + 2);
  EXPECT_EQ(resident_pages(m, 160 * kMiB, 12 * kMiB), 12 * kMiB / page);
  EXPECT_EQ(resident_pages(m, 176 * kMiB, 4 * kMiB), 4 * kMiB / page);
  EXPECT_FALSE(pf.ahead({}, 1));
  EXPECT_FALSE(pf.ahead({{m.p, kMiB}}, 0));
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
