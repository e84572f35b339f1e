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

// An inner region reads and writes the host's memory, inline: inside a
// data region it must read what a device wrote (brought home first), and
// what it writes must reach the devices (their copies stale).  It read the
// old host copy of an array sim:0 had doubled, silently, before
// DataEnv::inline_begin / inline_end.
constexpr int64_t kLen = 1500;
double *g_src = nullptr, *g_dst = nullptr;

// x[i] *= 2.
void double_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *) {
  double *x = static_cast<double *>(ptrs[0]);
  for (int64_t i = lb; i < ub; ++i)
    x[i] *= 2.0;
}
// The inner loops: the sum of src, and dst = src + 1.
void sum_src_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *red) {
  const double *src = static_cast<const double *>(ptrs[0]);
  for (int64_t i = lb; i < ub; ++i)
    *static_cast<double *>(red) += src[i];
}
void copy_plus_one_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *) {
  const double *src = static_cast<const double *>(ptrs[0]);
  double *dst = static_cast<double *>(ptrs[1]);
  for (int64_t i = lb; i < ub; ++i)
    dst[i] = src[i] + 1.0;
}
hce_region plain_region(const char *name, const char *devices, int64_t w, hce_map *maps,
                        int num_maps, hce_cpu_variant cpu) {
  hce_region r{};
  r.name = name;
  r.schedule = "static";
  r.devices = devices;
  r.iterations = w;
  r.num_maps = num_maps;
  r.maps = maps;
  r.cpu = cpu;
  return r;
}
// The outer loop's body, on the CPU: out[i] = sum(src), then (i == 0)
// dst = src + 1, each an inner co_exec loop over the whole arrays.
void outer_inline_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *) {
  double *out = static_cast<double *>(ptrs[0]);
  for (int64_t i = lb; i < ub; ++i) {
    double sum = 0;
    hce_map src = hce_test::row_map("src", g_src, HCE_MAP_TO, 1);
    hce_reduction red{"sum", &sum, HCE_RED_ADD, HCE_TYPE_F64, 0};
    hce_region r = plain_region("inner_sum", nullptr, kLen, &src, 1, sum_src_cpu);
    r.num_reductions = 1;
    r.reductions = &red;
    hce_co_exec_or_exit(&r);
    out[i] = sum;
    if (i == 0) {
      hce_map maps[2] = {hce_test::row_map("src", g_src, HCE_MAP_TO, 1),
                         hce_test::row_map("dst", g_dst, HCE_MAP_FROM, 1)};
      hce_region w =
          plain_region("inner_copy", nullptr, kLen, maps, 2, copy_plus_one_cpu);
      hce_co_exec_or_exit(&w);
    }
  }
}

TEST(Nested, AnInnerRegionSeesWhatDevicesHoldAndTheySeeItsWrites) {
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e12,lat:0");
  std::vector<double> src = hce_test::random_vector(size_t(kLen), 21);
  std::vector<double> dst = hce_test::random_vector(size_t(kLen), 22), out(4, -1.0);
  const std::vector<double> src0 = src;
  g_src = src.data();
  g_dst = dst.data();
  hce_map whole[2] = {hce_test::row_map("src", src.data(), HCE_MAP_TOFROM, 1),
                      hce_test::row_map("dst", dst.data(), HCE_MAP_TOFROM, 1)};
  for (hce_map &m : whole) {
    m.scale = 0;
    m.len = kLen;
  }
  ASSERT_EQ(hce_data_begin(2, whole), 0);
  // sim:0 doubles src (the host's copy goes stale) and takes a copy of dst.
  hce_map src_map = hce_test::row_map("src", src.data(), HCE_MAP_TOFROM, 1);
  hce_region twice = plain_region("twice", "sim:0", kLen, &src_map, 1, double_cpu);
  ASSERT_EQ(hce_co_exec(&twice), 0);
  hce_map dst_map = hce_test::row_map("dst", dst.data(), HCE_MAP_TOFROM, 1);
  hce_region dst_twice =
      plain_region("dst_twice", "sim:0", kLen, &dst_map, 1, double_cpu);
  ASSERT_EQ(hce_co_exec(&dst_twice), 0);
  // The CPU's outer loop: its inner loops read src and rewrite dst.
  hce_map out_map = hce_test::row_map("out", out.data(), HCE_MAP_FROM, 1);
  hce_region outer =
      plain_region("outer_inline", "cpu", 4, &out_map, 1, outer_inline_cpu);
  ASSERT_EQ(hce_co_exec(&outer), 0);
  // sim:0 doubles dst again: the inner loop's values, not its old copy.
  ASSERT_EQ(hce_co_exec(&dst_twice), 0);
  ASSERT_EQ(hce_data_end(), 0);
  double sum = 0;
  for (double v : src0)
    sum += 2.0 * v;
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_NEAR(out[size_t(i)], sum, 1e-9)
        << "outer iteration " << i << " read src's old copy";
  for (int64_t i = 0; i < kLen; ++i) {
    ASSERT_EQ(src[size_t(i)], 2.0 * src0[size_t(i)]) << i;
    ASSERT_EQ(dst[size_t(i)], 2.0 * (2.0 * src0[size_t(i)] + 1.0))
        << i << ": sim:0 kept its copy of dst from before the inner loop wrote it";
  }
}

} // namespace
