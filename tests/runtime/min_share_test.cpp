// HCE_MIN_SHARE at the region (region_exec.cpp plan_schedule,
// slow_devices.hpp): a papers' scheduler's region leaves out a device far
// too slow to help after two executions that measured it, runs the one
// device left in one chunk (no packets to balance), and tries the device
// again 16 executions later.  Every execution's result is checked.
#include "runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace {

void twice_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *) {
  const double *x = static_cast<const double *>(ptrs[0]);
  double *y = static_cast<double *>(ptrs[1]);
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i) {
    // Some work (v stays x[i] exactly), so that the CPU does not finish an
    // execution before the sim's controller has asked for its packet.
    double v = x[i];
    for (int k = 0; k < 64; ++k)
      v = 0.5 * v + 0.5 * x[i];
    y[i] = 2 * v + 1;
  }
}

const hce::SiteState *site(const char *name) {
  for (const hce::SiteState *s : hce::Runtime::get().sites())
    if (s->name == name)
      return s;
  return nullptr;
}

class MinShare : public ::testing::Test {
protected:
  void TearDown() override { hce_finalize(); }
};

TEST_F(MinShare, ASlowDeviceIsLeftOutAndTheOtherRunsOneChunk) {
  // sim:0 takes 20 us an iteration: under 1% of what the CPU does.
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e12,lat:0,iter_time:2e-5");
  const int64_t n = 1 << 15;
  std::vector<double> x = hce_test::random_vector(size_t(n), 11);
  std::vector<double> y(static_cast<size_t>(n), 0.0);
  hce_map maps[2] = {hce_test::row_map("x", x.data(), HCE_MAP_TO, 1),
                     hce_test::row_map("y", y.data(), HCE_MAP_FROM, 1)};
  void *handle = nullptr;
  hce_region r{};
  r.name = "twice";
  r.schedule = "hguided";
  r.iterations = n;
  r.num_maps = 2;
  r.maps = maps;
  r.cpu = twice_cpu;
  r.site = &handle;
  int64_t cpu_chunks = 0;
  int left_at = -1; // the first execution without sim:0
  for (int exec = 0; exec < 26; ++exec) {
    std::fill(y.begin(), y.end(), 0.0);
    ASSERT_EQ(hce_co_exec(&r), 0);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(y[size_t(i)], 2 * x[size_t(i)] + 1)
          << "execution " << exec << ", element " << i;
    const hce::SiteState *s = site("twice");
    ASSERT_NE(s, nullptr);
    const hce::DeviceStats &cpu = s->stats.devices.at("cpu");
    const int64_t chunks = cpu.chunks - cpu_chunks;
    cpu_chunks = cpu.chunks;
    const bool alone = s->stats.schedule == "static";
    if (left_at < 0 && alone)
      left_at = exec;
    if (left_at < 0) {
      // Executions 1 and 2 measure it (the first also places the data);
      // one the CPU finished before sim:0 asked measures nothing.
      EXPECT_EQ(s->stats.schedule, "hguided");
      ASSERT_LT(exec, 6) << "sim:0 never left out";
    } else if (exec < left_at + 16) { // left out until its retry
      EXPECT_TRUE(alone) << "execution " << exec;
      EXPECT_EQ(s->stats.devices.at("sim:0").last_iterations, 0) << "execution " << exec;
      EXPECT_EQ(cpu.last_iterations, n) << "execution " << exec;
      EXPECT_EQ(chunks, 1) << "execution " << exec << ": the CPU alone in one chunk";
    } else if (exec == left_at + 16) {
      EXPECT_EQ(s->stats.schedule, "hguided") << "tried again 16 executions later";
    }
  }
  EXPECT_GE(left_at, 3) << "left out before two executions measured it";
}

} // namespace
