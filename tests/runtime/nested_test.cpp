// Issue 11, point 6: a co_exec loop whose body calls a function containing
// another co_exec loop used to deadlock in the device claims, even with
// HCE_DEVICES=cpu.  The inner region now runs on the calling device, inline,
// and the result matches the sequential loop nest.
#include "test_support.hpp"

#include "sched/scheduler.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

struct InnerArgs {
  const double *row;
  int64_t n;
};

// The inner loop: sum += row[j] * row[j] over one row (a reduction).
void inner_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *red) {
  const double *row = static_cast<const double *>(ptrs[0]);
  double sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (int64_t j = lb; j < ub; ++j)
    sum += row[j] * row[j];
  *static_cast<double *>(red) = sum;
}

// What the translator makes of a function holding a co_exec loop.
double row_norm2(const double *row, int64_t n) {
  double sum = 0;
  hce_map map{};
  map.name = "row";
  map.host = const_cast<double *>(row);
  map.elem_size = sizeof(double);
  map.kind = HCE_MAP_TO;
  map.scale = 1;
  map.len = 1;
  map.blocks = 1;
  hce_reduction red{"sum", &sum, HCE_RED_ADD, HCE_TYPE_F64};
  InnerArgs args{row, n};
  static void *site = nullptr;
  hce_region r{};
  r.name = "inner";
  r.iterations = n;
  r.num_maps = 1;
  r.maps = &map;
  r.num_reductions = 1;
  r.reductions = &red;
  r.args = &args;
  r.args_size = sizeof args;
  r.cpu = inner_cpu;
  r.site = &site;
  hce_co_exec_or_exit(&r);
  return sum;
}

struct OuterArgs {
  int64_t n;
};

// The outer loop: out[i] = row_norm2(a[i*n : n]).
void outer_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *a = static_cast<const double *>(ptrs[0]);
  double *out = static_cast<double *>(ptrs[1]);
  const int64_t n = static_cast<const OuterArgs *>(args)->n;
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    out[i] = row_norm2(a + i * n, n);
}

TEST(Nested, InnerRegionRunsOnTheCallingDevice) {
  const int64_t m = 120, n = 50;
  const std::vector<double> a = hce_test::random_vector(size_t(m * n), 3);
  std::vector<double> ref(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    double s = 0;
    for (int64_t j = 0; j < n; ++j)
      s += a[size_t(i * n + j)] * a[size_t(i * n + j)];
    ref[size_t(i)] = s;
  }
  for (const char *devices : {"cpu", "cpu,sim:0,sim:1", "sim:0"})
    for (const std::string &sched : hce::scheduler_names()) {
      if (sched == "fdets_inc")
        continue;
      SCOPED_TRACE(std::string(devices) + " " + sched);
      hce_test::use_devices(devices, "sim=bw:1e12,lat:0");
      std::vector<double> out(size_t(m), -1.0);
      hce_map maps[2] = {
          hce_test::row_map("a", const_cast<double *>(a.data()), HCE_MAP_TO, n),
          hce_test::row_map("out", out.data(), HCE_MAP_FROM, 1)};
      OuterArgs args{n};
      void *site = nullptr;
      hce_region r{};
      r.name = "outer";
      r.schedule = sched.c_str();
      r.iterations = m;
      r.num_maps = 2;
      r.maps = maps;
      r.args = &args;
      r.args_size = sizeof args;
      r.cpu = outer_cpu;
      r.site = &site;
      ASSERT_EQ(hce_co_exec(&r), 0);
      for (int64_t i = 0; i < m; ++i) // the same sums, in another order
        ASSERT_NEAR(out[size_t(i)], ref[size_t(i)], 1e-12 * n) << "row " << i;
      if (std::string(devices) == "sim:0")
        EXPECT_EQ(hce_last_iterations(&site, "sim:0"), m);
    }
}

} // namespace
