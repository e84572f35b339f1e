// Regions called by several threads of the program at once: threads of its
// own (std::thread) and the threads of an `omp parallel` that each reach
// the same co_exec call site.  An execution holds its devices and its site
// (tasks/device_claims.hpp), so calls of one site run one after another
// and calls of different sites share the devices; every result must be the
// sequential one, reductions included, under every scheduler.  (Data
// regions of several threads: DataRegion.EachThreadEndsItsOwnDataRegion.)
#include "test_support.hpp"

#include "runtime.hpp"
#include "sched/scheduler.hpp"
#include "stats.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Scale {
  double f;
};

// y = x * f + 1, and the count of positive results.
void scale_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *red) {
  const double *x = static_cast<const double *>(ptrs[0]);
  double *y = static_cast<double *>(ptrs[1]);
  const double f = static_cast<const Scale *>(args)->f;
  int64_t positive = 0;
  for (int64_t i = lb; i < ub; ++i) {
    y[i] = x[i] * f + 1.0;
    positive += y[i] > 0;
  }
  *static_cast<int64_t *>(red) += positive;
}

// One call of the region at `site` by caller `t`, its `rep`-th; counts a
// failed call or a wrong result in `wrong`.
void call(void **site, const std::string &schedule, int t, int rep,
          std::atomic<int> &wrong) {
  const int64_t n = 1000 + (rep * 37 + t * 101) % 4000;
  std::vector<double> x = hce_test::random_vector(size_t(n), unsigned(t * 1000 + rep));
  std::vector<double> y(size_t(n), -5.0);
  hce_map maps[2] = {hce_test::row_map("x", x.data(), HCE_MAP_TO, 1),
                     hce_test::row_map("y", y.data(), HCE_MAP_FROM, 1)};
  const Scale args{1.5 + t};
  int64_t positive = 3;
  hce_reduction red{"positive", &positive, HCE_RED_ADD, HCE_TYPE_I64, 0};
  hce_region r =
      hce_test::region_of("concurrent", maps, 2, n, args, scale_cpu, site, schedule);
  r.num_reductions = 1;
  r.reductions = &red;
  if (hce_co_exec(&r) != 0) {
    ++wrong;
    return;
  }
  int64_t expect = 3;
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[size_t(i)] * args.f + 1.0;
    if (y[size_t(i)] != v) {
      ++wrong;
      return;
    }
    expect += v > 0;
  }
  wrong += positive != expect;
}

class ConcurrentCallers : public testing::TestWithParam<std::string> {
protected:
  // The calls were co-executed, not all run where they were made: some
  // executions went through the scheduler, and the CPU and the
  // accelerators ran iterations of the region or the scheduler left them
  // out on purpose and said so (issue 15's contract: logfit's on-demand
  // chunks can all go to the fast sims before the CPU asks; which
  // accelerator works is its choice).
  static void expect_the_devices_worked() {
    std::map<std::string, int64_t> ran, left_out;
    int64_t executions = 0;
    for (const hce::SiteState *s : hce::Runtime::get().sites())
      if (s->name == "concurrent") {
        executions += s->stats.executions;
        for (const auto &[dev, d] : s->stats.devices) {
          ran[dev] += d.iterations;
          left_out[dev] += d.left_out;
        }
      }
    std::string seen = "co-executed " + std::to_string(executions) + " times;";
    for (const auto &[dev, n] : ran)
      seen += " " + dev + " ran " + std::to_string(n) + ", left out " +
              std::to_string(left_out[dev]) + ";";
    EXPECT_GT(executions, 0) << "every call ran inline, none co-executed";
    EXPECT_TRUE(ran["cpu"] > 0 || left_out["cpu"] > 0)
        << "the CPU ran no iteration and was not left out: " << seen;
    EXPECT_TRUE(ran["sim:0"] + ran["sim:1"] > 0 ||
                left_out["sim:0"] + left_out["sim:1"] > 0)
        << "no accelerator ran an iteration or was left out: " << seen;
  }
};

TEST_P(ConcurrentCallers, ThreadsOfTheProgramOnOneSiteAndOnTheirOwn) {
  hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:1e12,lat:0");
  hce_test::ScopedEnv min_share("HCE_MIN_SHARE", "0");
  void *shared_site = nullptr;
  void *own_sites[4] = {};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 40; ++rep)
        call(rep % 2 ? &own_sites[t] : &shared_site, GetParam(), t, rep, wrong);
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(wrong.load(), 0);
  expect_the_devices_worked();
  hce_finalize();
}

TEST_P(ConcurrentCallers, TheThreadsOfAnOmpParallelOnOneSite) {
  hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:1e12,lat:0");
  hce_test::ScopedEnv min_share("HCE_MIN_SHARE", "0");
  void *site = nullptr;
  std::atomic<int> wrong{0};
  const std::string schedule = GetParam();
#pragma omp parallel num_threads(4)
  for (int rep = 0; rep < 40; ++rep)
    call(&site, schedule, omp_get_thread_num(), rep, wrong);
  EXPECT_EQ(wrong.load(), 0);
  expect_the_devices_worked();
  hce_finalize();
}

// A report read while another thread executes the site (hce_print_stats,
// hce_last_iterations) sees one whole execution's statistics: the site is
// claimed for the read as an execution claims it.  Read as they were, a
// report raced with the fold (ThreadSanitizer) and could show part of an
// execution's counts.
TEST_P(ConcurrentCallers, StatisticsReadWhileTheSiteRuns) {
  hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:1e12,lat:0");
  hce_test::ScopedEnv min_share("HCE_MIN_SHARE", "0");
  const int64_t n = 3000;
  std::vector<double> x = hce_test::random_vector(size_t(n), 5);
  std::vector<double> y(x.size());
  hce_map maps[2] = {hce_test::row_map("x", x.data(), HCE_MAP_TO, 1),
                     hce_test::row_map("y", y.data(), HCE_MAP_FROM, 1)};
  const Scale args{2.0};
  const std::string schedule = GetParam();
  void *site = nullptr;
  hce_region r =
      hce_test::region_of("read", maps, 2, n, args, scale_cpu, &site, schedule);
  int64_t positive = 0;
  hce_reduction red{"positive", &positive, HCE_RED_ADD, HCE_TYPE_I64, 0};
  r.num_reductions = 1;
  r.reductions = &red;
  ASSERT_EQ(hce_co_exec(&r), 0); // (the site exists before the reader starts)
  std::atomic<bool> done{false};
  std::atomic<int> failed{0};
  std::thread runner([&] {
    for (int rep = 0; rep < 60; ++rep)
      failed += hce_co_exec(&r) != 0;
    done = true;
  });
  int reads = 0, partial = 0;
  while (!done || reads == 0) {
    for (const hce::NamedStats &ns : hce::Runtime::get().named_stats())
      if (ns.name == "read") {
        int64_t last = 0;
        for (const auto &[dev, d] : ns.stats.devices)
          last += d.last_iterations;
        partial += last != n;
      }
    const int64_t cpu = hce_last_iterations(&site, "cpu");
    partial += cpu < 0 || cpu > n;
    ++reads;
  }
  runner.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(partial, 0) << "of " << reads << " reads, some saw part of an execution";
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[size_t(i)], x[size_t(i)] * 2.0 + 1.0);
  hce_finalize();
}

INSTANTIATE_TEST_SUITE_P(EveryScheduler, ConcurrentCallers,
                         testing::ValuesIn(hce::scheduler_names()));

} // namespace
