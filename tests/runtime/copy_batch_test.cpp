// A chunk's copies to and from a device are one batch, waited for once
// (Device::begin_copies / finish_copies; on the H200 a CUDA copy's
// cudaStreamSynchronize took ~6 us of its ~9, call YB).  A simulated device
// performs a batch's memcpys only when it finishes, so a chunk that used a
// copy before its batch landed would compute on poison: random data against
// a sequential reference catches it.
#include "runtime.hpp"
#include "sim_device.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

struct Args {
  int64_t n; // row length
};

// w[i] = x[i] + 2 y[i] + 3 z[i], row by row: three arrays read per chunk.
void combine_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *x = static_cast<const double *>(ptrs[0]);
  const double *y = static_cast<const double *>(ptrs[1]);
  const double *z = static_cast<const double *>(ptrs[2]);
  double *w = static_cast<double *>(ptrs[3]);
  const int64_t n = static_cast<const Args *>(args)->n;
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    for (int64_t j = 0; j < n; ++j)
      w[i * n + j] = x[i * n + j] + 2.0 * y[i * n + j] + 3.0 * z[i * n + j];
}

struct Problem {
  int64_t m = 257, n = 33;
  std::vector<double> x = hce_test::random_vector(size_t(m * n), 71);
  std::vector<double> y = hce_test::random_vector(size_t(m * n), 72);
  std::vector<double> z = hce_test::random_vector(size_t(m * n), 73);
  std::vector<double> reference() const {
    std::vector<double> w(x.size());
    for (size_t k = 0; k < w.size(); ++k)
      w[k] = x[k] + 2.0 * y[k] + 3.0 * z[k];
    return w;
  }
};

// Runs the region once; returns the iterations the simulated devices did.
int64_t run_combine(Problem &p, std::vector<double> &w, const std::string &schedule) {
  hce_map maps[4] = {hce_test::row_map("x", p.x.data(), HCE_MAP_TO, p.n),
                     hce_test::row_map("y", p.y.data(), HCE_MAP_TO, p.n),
                     hce_test::row_map("z", p.z.data(), HCE_MAP_TO, p.n),
                     hce_test::row_map("w", w.data(), HCE_MAP_FROM, p.n)};
  Args args{p.n};
  void *site = nullptr;
  hce_region r =
      hce_test::region_of("combine", maps, 4, p.m, args, combine_cpu, &site, schedule);
  EXPECT_EQ(hce_co_exec(&r), 0);
  return hce_test::sim_iterations(&site);
}

TEST(CopyBatch, AChunksUploadsOfSeveralArraysAreOneBatch) {
  hce_test::use_devices("sim:0", "sim=bw:1e12,lat:0");
  Problem p;
  std::vector<double> w(p.x.size(), -7.0);
  run_combine(p, w, "static");
  ASSERT_EQ(w, p.reference());
  hce::SimDevice *sim = nullptr;
  for (const auto &d : hce::Runtime::get().devices())
    if (!sim)
      sim = dynamic_cast<hce::SimDevice *>(d.get());
  ASSERT_NE(sim, nullptr);
  // Every chunk uploads x, y and z (one batch) and downloads w (another).
  EXPECT_GT(sim->batches(), 0);
  EXPECT_GE(sim->batched_copies(), 3 * (sim->batches() / 2))
      << sim->batches() << " batches of " << sim->batched_copies() << " copies";
  EXPECT_LT(sim->batches(), sim->batched_copies());
}

TEST(CopyBatch, EverySchedulerGetsLandedCopiesOnTwoSimsAndTheCpu) {
  Problem p;
  const std::vector<double> ref = p.reference();
  for (const std::string &schedule : hce::scheduler_names()) {
    SCOPED_TRACE(schedule);
    hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:2e9,lat:2e-5");
    setenv("HCE_MIN_SHARE", "0", 1);
    std::vector<double> w(p.x.size(), -7.0);
    const int64_t on_sims = run_combine(p, w, schedule);
    unsetenv("HCE_MIN_SHARE");
    ASSERT_EQ(w, ref);
    if (schedule == "static")
      EXPECT_GT(on_sims, 0) << "no simulated device did any work";
  }
}

} // namespace
