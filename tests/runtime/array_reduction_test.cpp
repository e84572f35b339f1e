// Issue 11, point 1: array reductions, reduction(OP: hist[0:K]), combined
// across chunks and devices, so a histogram needs no atomics.  Every
// operator the scalar reductions support, every scheduler, on cpu + two
// simulated devices, against the sequential loop; the variants are shaped
// like the translator's (the private array found through the slot's offset,
// OpenMP's own array-section reduction inside).
#include "test_support.hpp"

#include "sched/scheduler.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int64_t K = 37; // bins

struct Args {
  int op; // HCE_RED_* for the generic kernel
};

template <typename T> T *array_slot(void *red, int i) {
  int64_t off;
  std::memcpy(&off, static_cast<char *>(red) + 8 * i, sizeof off);
  return reinterpret_cast<T *>(static_cast<char *>(red) + off);
}

// hist[bin[k]] += 1; weight[bin[k]] += w[k]  (reduction(+: hist[0:K], weight[0:K]))
void histogram_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *red) {
  const int *bin = static_cast<const int *>(ptrs[0]);
  const double *w = static_cast<const double *>(ptrs[1]);
  int64_t *hist = array_slot<int64_t>(red, 0);
  double *weight = array_slot<double>(red, 1);
#pragma omp parallel for reduction(+ : hist [0:K], weight [0:K])
  for (int64_t k = lb; k < ub; ++k) {
    hist[bin[k]] += 1;
    weight[bin[k]] += w[k];
  }
}

uint64_t apply(int op, uint64_t a, uint64_t b) {
  switch (op) {
  case HCE_RED_ADD: return a + b;
  case HCE_RED_MUL: return a * b;
  case HCE_RED_MIN: return std::min(a, b);
  case HCE_RED_MAX: return std::max(a, b);
  case HCE_RED_BAND: return a & b;
  case HCE_RED_BOR: return a | b;
  case HCE_RED_BXOR: return a ^ b;
  case HCE_RED_LAND: return a && b;
  case HCE_RED_LOR: return a || b;
  }
  return 0;
}

uint64_t identity(int op) {
  switch (op) {
  case HCE_RED_MUL:
  case HCE_RED_LAND: return 1;
  case HCE_RED_MIN:
  case HCE_RED_BAND: return ~uint64_t(0);
  default: return 0;
  }
}

// acc[bin[k]] = acc[bin[k]] OP v[k], for any operator (u64).
void generic_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *red) {
  const int *bin = static_cast<const int *>(ptrs[0]);
  const uint64_t *v = static_cast<const uint64_t *>(ptrs[1]);
  const int op = static_cast<const Args *>(args)->op;
  uint64_t *acc = array_slot<uint64_t>(red, 0);
  for (int64_t k = lb; k < ub; ++k)
    acc[bin[k]] = apply(op, acc[bin[k]], v[k]);
}

hce_map map_of(const char *name, void *host, size_t elem, int64_t n) {
  hce_map m{};
  m.name = name;
  m.host = host;
  m.elem_size = elem;
  m.kind = HCE_MAP_TO;
  m.scale = 1;
  m.len = 1;
  m.blocks = 1;
  m.extent = n;
  return m;
}

std::vector<std::string> schedulers() {
  std::vector<std::string> out;
  for (const std::string &s : hce::scheduler_names())
    if (s != "fdets_inc")
      out.push_back(s);
  return out;
}

TEST(ArrayReduction, HistogramWithoutAtomicsEveryScheduler) {
  const int64_t n = 50000;
  std::mt19937 gen(17);
  std::vector<int> bin(static_cast<size_t>(n));
  std::vector<double> w(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    bin[size_t(k)] = int(gen() % K);
    w[size_t(k)] = double(gen() % 100); // integers: sums exact in any order
  }
  for (const std::string &sched : schedulers()) {
    SCOPED_TRACE(sched);
    hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:1e12,lat:0");
    setenv("HCE_MIN_SHARE", "0", 1);
    // The user's arrays start non-zero: OpenMP folds their values in.
    std::vector<int64_t> hist(size_t(K), 5), ref_hist = hist;
    std::vector<double> weight(size_t(K), 0.5), ref_weight = weight;
    for (int64_t k = 0; k < n; ++k) {
      ref_hist[size_t(bin[size_t(k)])] += 1;
      ref_weight[size_t(bin[size_t(k)])] += w[size_t(k)];
    }
    hce_map maps[2] = {map_of("bin", bin.data(), sizeof(int), n),
                       map_of("w", w.data(), sizeof(double), n)};
    hce_reduction reds[2] = {{"hist", hist.data(), HCE_RED_ADD, HCE_TYPE_I64, K},
                             {"weight", weight.data(), HCE_RED_ADD, HCE_TYPE_F64, K}};
    Args args{HCE_RED_ADD};
    void *site = nullptr;
    hce_region r{};
    r.name = "histogram";
    r.schedule = sched.c_str();
    r.iterations = n;
    r.num_maps = 2;
    r.maps = maps;
    r.num_reductions = 2;
    r.reductions = reds;
    r.args = &args;
    r.args_size = sizeof args;
    r.cpu = histogram_cpu;
    r.site = &site;
    r.ratios = "cpu=0.2,sim:0=0.4,sim:1=0.4";
    ASSERT_EQ(hce_co_exec(&r), 0);
    unsetenv("HCE_MIN_SHARE");
    EXPECT_EQ(hist, ref_hist);
    EXPECT_EQ(weight, ref_weight);
    if (sched == "static")
      EXPECT_GT(hce_last_iterations(&site, "sim:0") + hce_last_iterations(&site, "sim:1"),
                0);
  }
}

TEST(ArrayReduction, EveryOperator) {
  const int64_t n = 6000;
  std::mt19937_64 gen(23);
  std::vector<int> bin(static_cast<size_t>(n));
  std::vector<uint64_t> v(static_cast<size_t>(n));
  for (const int op : {HCE_RED_ADD, HCE_RED_MUL, HCE_RED_MIN, HCE_RED_MAX, HCE_RED_BAND,
                       HCE_RED_BOR, HCE_RED_BXOR, HCE_RED_LAND, HCE_RED_LOR}) {
    for (int64_t k = 0; k < n; ++k) {
      bin[size_t(k)] = int(gen() % K);
      uint64_t x = gen();
      // Logical operators: mostly true, some false; others: random bits.
      if (op == HCE_RED_LAND || op == HCE_RED_LOR)
        x = gen() % 50 == 0 ? 0 : x;
      if (op == HCE_RED_LOR)
        x = gen() % 50 == 0 ? x : 0;
      v[size_t(k)] = x;
    }
    for (const char *sched : {"static", "hguided", "fdets", "auto"}) {
      SCOPED_TRACE(std::to_string(op) + " " + sched);
      hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:1e12,lat:0");
      std::vector<uint64_t> acc(static_cast<size_t>(K));
      for (auto &a : acc)
        a = gen() | 1;
      std::vector<uint64_t> ref = acc;
      {
        std::vector<uint64_t> part(size_t(K), identity(op));
        for (int64_t k = 0; k < n; ++k)
          part[size_t(bin[size_t(k)])] =
              apply(op, part[size_t(bin[size_t(k)])], v[size_t(k)]);
        for (int64_t b = 0; b < K; ++b)
          ref[size_t(b)] = apply(op, ref[size_t(b)], part[size_t(b)]);
      }
      hce_map maps[2] = {map_of("bin", bin.data(), sizeof(int), n),
                         map_of("v", v.data(), sizeof(uint64_t), n)};
      hce_reduction red{"acc", acc.data(), op, HCE_TYPE_U64, K};
      Args args{op};
      void *site = nullptr;
      hce_region r{};
      r.name = "generic";
      r.schedule = sched;
      r.iterations = n;
      r.num_maps = 2;
      r.maps = maps;
      r.num_reductions = 1;
      r.reductions = &red;
      r.args = &args;
      r.args_size = sizeof args;
      r.cpu = generic_cpu;
      r.site = &site;
      ASSERT_EQ(hce_co_exec(&r), 0);
      EXPECT_EQ(acc, ref);
    }
  }
}

TEST(ArrayReduction, NowaitIsRefusedClearly) {
  hce_test::use_devices("cpu");
  std::vector<int64_t> hist(size_t(K), 0);
  std::vector<int> bin(10, 1);
  hce_map map = map_of("bin", bin.data(), sizeof(int), 10);
  hce_reduction red{"hist", hist.data(), HCE_RED_ADD, HCE_TYPE_I64, K};
  Args args{HCE_RED_ADD};
  hce_region r{};
  r.name = "nowait_hist";
  r.iterations = 10;
  r.num_maps = 1;
  r.maps = &map;
  r.num_reductions = 1;
  r.reductions = &red;
  r.args = &args;
  r.cpu = generic_cpu;
  EXPECT_NE(hce_co_exec_nowait(&r, 0, nullptr), 0);
}

} // namespace
