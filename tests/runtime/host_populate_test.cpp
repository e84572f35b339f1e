// host_populate: a written map's host range, and populating pages without
// changing what they hold.
#include "host_populate.hpp"

#include "chunk_loop.hpp"
#include "cpu_device.hpp"
#include "hce/hce.h"
#include "runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace {

using hce::HostRange;

TEST(HostPopulate, WrittenRangesAreTheFromMapsOverAllIterations) {
  static double in[1000], out[1000], both[3000];
  static double *rows[10];
  hce_map maps[4] = {
      {"in", in, sizeof(double), HCE_MAP_TO, 1, 0, 1, 1, 0, 1000, 0, 0},
      {"out", out, sizeof(double), HCE_MAP_FROM, 1, 0, 1, 1, 0, 1000, 0, 0},
      // Rows of three, the first and last clamped away: [0, 3000).
      {"both", both, sizeof(double), HCE_MAP_TOFROM | HCE_MAP_ALWAYS, 3, -1, 5, 1, 0,
       3000, 0, 0},
      {"rows", rows, sizeof(double *), HCE_MAP_FROM | HCE_MAP_ROWS, 1, 0, 1, 1, 0, 10, 0,
       1}};
  hce_region r{};
  r.iterations = 1000;
  r.num_maps = 4;
  r.maps = maps;
  std::vector<HostRange> got = hce::written_host_ranges(r, 0);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].first, reinterpret_cast<uintptr_t>(out));
  EXPECT_EQ(got[0].second, reinterpret_cast<uintptr_t>(out + 1000));
  EXPECT_EQ(got[1].first, reinterpret_cast<uintptr_t>(both));
  EXPECT_EQ(got[1].second, reinterpret_cast<uintptr_t>(both + 3000));
  // Below the threshold: nothing (faulting them as the copy writes is cheap).
  EXPECT_TRUE(hce::written_host_ranges(r, 4000 * sizeof(double) + 1).empty());
  EXPECT_EQ(hce::written_host_ranges(r, 4000 * sizeof(double)).size(), 2u);
}

// A fresh anonymous mapping (no page yet) with a few values written: after
// populate_for_writing every page is resident and every value as it was.
TEST(HostPopulate, PagesBecomeResidentAndKeepTheirContents) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t bytes = 24 << 20;
  void *p =
      mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  auto *d = static_cast<double *>(p);
  const size_t n = bytes / sizeof(double);
  std::vector<double> values = hce_test::random_vector(64, 7);
  for (size_t k = 0; k < values.size(); ++k)
    d[k * (n / values.size())] = values[k]; // one page in 48 touched
  std::vector<unsigned char> resident(bytes / page);
  ASSERT_EQ(mincore(p, bytes, resident.data()), 0);
  size_t before = 0;
  for (unsigned char c : resident)
    before += c & 1;
  ASSERT_LT(before, resident.size() / 2) << "the mapping was not fresh";
  // A range that starts and ends inside pages: they are populated whole.
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p) + 100, hi = lo + bytes - 200;
  const size_t done = hce::populate_for_writing({{lo, hi}});
  if (done == 0)
    GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux < 5.14)";
  EXPECT_EQ(done, bytes);
  ASSERT_EQ(mincore(p, bytes, resident.data()), 0);
  size_t after = 0;
  for (unsigned char c : resident)
    after += c & 1;
  EXPECT_EQ(after, resident.size());
  size_t changed = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t slot = k / (n / values.size());
    const bool written = k % (n / values.size()) == 0 && slot < values.size();
    changed += d[k] != (written ? values[slot] : 0.0);
  }
  EXPECT_EQ(changed, 0u);
  munmap(p, bytes);
}

// The CPU's team is free beside one accelerator when the CPU is among the
// workers, idle, and exactly one accelerator works.
TEST(HostPopulate, TheIdleCpuBesideOneAccelerator) {
  hce_test::use_devices("cpu,sim:0,sim:1");
  hce::Runtime &rt = hce::Runtime::get();
  ASSERT_EQ(rt.devices().size(), 3u);
  std::vector<hce::ChunkWorker> w(3);
  for (int i = 0; i < 3; ++i)
    w[size_t(i)].device = i;
  w[0].idle = true;
  w[2].idle = true;
  EXPECT_EQ(hce::idle_cpu_beside_one_accelerator(rt, w), rt.devices()[0].get());
  w[2].idle = false; // two accelerators
  EXPECT_EQ(hce::idle_cpu_beside_one_accelerator(rt, w), nullptr);
  w[2].idle = true;
  w[0].idle = false; // the CPU works
  EXPECT_EQ(hce::idle_cpu_beside_one_accelerator(rt, w), nullptr);
  w.erase(w.begin()); // the CPU not among the workers (HCE_DEVICES=sim:0)
  w[1].idle = true;
  EXPECT_EQ(hce::idle_cpu_beside_one_accelerator(rt, w), nullptr);
  hce_finalize();
}

} // namespace
