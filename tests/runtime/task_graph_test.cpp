// nowait regions as a task graph (hce_co_exec_nowait / hce_taskwait) on
// simulated accelerators: random DAGs of vector add, scale and matrix
// product regions over random data, under each mapper.  Checked: the result
// equals a sequential execution of the same regions in submission order,
// every pair of conflicting regions ran in order (from the recorded start
// and finish times), independent regions overlap on different devices, and
// reductions are folded at the taskwait.
#include "tasks/device_claims.hpp"
#include "tasks/task_runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <thread>

using namespace hce_test;

namespace {

constexpr int64_t kM = 32; // matrices kM x kM; vectors of kM*kM, kM rows

struct ScaleArgs {
  double s;
};

// Row-wise variants: iteration r handles row r (kM elements).
void vadd_cpu(int64_t lb, int64_t ub, void *const *p, const void *, void *) {
  const double *a = (const double *)p[0], *b = (const double *)p[1];
  double *c = (double *)p[2];
  for (int64_t r = lb; r < ub; ++r)
    for (int64_t j = 0; j < kM; ++j)
      c[r * kM + j] = a[r * kM + j] + b[r * kM + j];
}
void scale_cpu(int64_t lb, int64_t ub, void *const *p, const void *args, void *) {
  const double s = ((const ScaleArgs *)args)->s;
  const double *a = (const double *)p[0];
  double *b = (double *)p[1];
  for (int64_t r = lb; r < ub; ++r)
    for (int64_t j = 0; j < kM; ++j)
      b[r * kM + j] = s * a[r * kM + j];
}
void matmul_cpu(int64_t lb, int64_t ub, void *const *p, const void *, void *) {
  const double *a = (const double *)p[0], *b = (const double *)p[1];
  double *c = (double *)p[2];
  for (int64_t r = lb; r < ub; ++r)
    for (int64_t j = 0; j < kM; ++j) {
      double s = 0;
      for (int64_t k = 0; k < kM; ++k)
        s += a[r * kM + k] * b[k * kM + j];
      c[r * kM + j] = s / kM;
    }
}
void dot_cpu(int64_t lb, int64_t ub, void *const *p, const void *, void *red) {
  const double *a = (const double *)p[0], *b = (const double *)p[1];
  double s = *(double *)red;
  for (int64_t r = lb; r < ub; ++r)
    for (int64_t j = 0; j < kM; ++j)
      s += a[r * kM + j] * b[r * kM + j];
  *(double *)red = s;
}

void *site_vadd, *site_scale, *site_matmul, *site_dot;

hce_map whole(const char *name, void *host, int kind) {
  hce_map m = row_map(name, host, kind, kM);
  m.scale = 0;
  m.len = kM * kM;
  return m;
}

// One region of the random graph: which arrays it reads and writes.
struct Op {
  int kind; // 0 vadd, 1 scale, 2 matmul
  int in0, in1, out;
  double s;
  bool explicit_deps;
  const char *devices = nullptr; // a devices(...) clause, or none
};

void run_sequential(const Op &op, std::vector<std::vector<double>> &arr) {
  void *p[3] = {arr[size_t(op.in0)].data(),
                op.kind == 1 ? arr[size_t(op.out)].data() : arr[size_t(op.in1)].data(),
                arr[size_t(op.out)].data()};
  ScaleArgs sa{op.s};
  if (op.kind == 0)
    vadd_cpu(0, kM, p, nullptr, nullptr);
  else if (op.kind == 1)
    scale_cpu(0, kM, p, &sa, nullptr);
  else
    matmul_cpu(0, kM, p, nullptr, nullptr);
}

// Builds the region on this stack frame and submits it: the runtime must
// have copied everything by the time this returns (the frame is reused).
void submit(const Op &op, std::vector<std::vector<double>> &arr) {
  hce_region r{};
  hce_map m[3];
  ScaleArgs sa{op.s};
  r.iterations = kM;
  r.maps = m;
  if (op.kind == 0) {
    r.name = "vadd";
    m[0] = row_map("a", arr[size_t(op.in0)].data(), HCE_MAP_TO, kM);
    m[1] = row_map("b", arr[size_t(op.in1)].data(), HCE_MAP_TO, kM);
    m[2] = row_map("c", arr[size_t(op.out)].data(), HCE_MAP_FROM, kM);
    r.num_maps = 3;
    r.cpu = vadd_cpu;
    r.site = &site_vadd;
  } else if (op.kind == 1) {
    r.name = "scale";
    m[0] = row_map("a", arr[size_t(op.in0)].data(), HCE_MAP_TO, kM);
    m[1] = row_map("b", arr[size_t(op.out)].data(), HCE_MAP_FROM, kM);
    r.num_maps = 2;
    r.args = &sa;
    r.args_size = sizeof sa;
    r.cpu = scale_cpu;
    r.site = &site_scale;
  } else {
    r.name = "matmul";
    m[0] = row_map("a", arr[size_t(op.in0)].data(), HCE_MAP_TO, kM);
    m[1] = whole("b", arr[size_t(op.in1)].data(), HCE_MAP_TO);
    m[2] = row_map("c", arr[size_t(op.out)].data(), HCE_MAP_FROM, kM);
    r.num_maps = 3;
    r.cpu = matmul_cpu;
    r.site = &site_matmul;
  }
  r.devices = op.devices;
  hce_depend d[3];
  int nd = 0;
  if (op.explicit_deps) {
    d[nd++] = {arr[size_t(op.in0)].data(), HCE_DEP_IN};
    if (op.kind != 1)
      d[nd++] = {arr[size_t(op.in1)].data(), HCE_DEP_IN};
    d[nd++] = {arr[size_t(op.out)].data(), HCE_DEP_OUT};
  }
  ASSERT_EQ(hce_co_exec_nowait(&r, nd, d), 0);
  // Scribble over what the runtime had to copy.
  std::memset(m, 0xAB, sizeof m);
  sa.s = -12345;
}

std::set<int> touched(const Op &op, bool writes) {
  if (writes)
    return {op.out};
  if (op.kind == 1)
    return {op.in0};
  return {op.in0, op.in1};
}

bool conflict(const Op &a, const Op &b) {
  for (int x : touched(a, true))
    if (touched(b, true).count(x) || touched(b, false).count(x))
      return true;
  for (int x : touched(b, true))
    if (touched(a, false).count(x))
      return true;
  return false;
}

void random_graph_test(const std::string &mapper, unsigned seed, bool in_data_region) {
  setenv("HCE_TASK_MAP", mapper.c_str(), 1);
  // Modelled iteration times (deterministic durations): sim:0 twice as fast
  // as sim:1, the CPU measured.
  use_devices("cpu,sim:0,sim:1",
              "sim:0=speed:2,iter_time:2e-4,bw:4e9;sim:1=speed:1,iter_time:2e-4,bw:2e9");
  setenv("HCE_MIN_SHARE", "0", 1);
  std::mt19937 gen(seed);
  const int num_arrays = 6;
  std::vector<std::vector<double>> arr, ref;
  for (int i = 0; i < num_arrays; ++i)
    arr.push_back(random_vector(size_t(kM * kM), seed * 100 + unsigned(i)));
  ref = arr;
  std::vector<Op> ops;
  const int n = 12 + int(gen() % 12);
  for (int i = 0; i < n; ++i) {
    Op op;
    op.kind = int(gen() % 3);
    op.in0 = int(gen() % num_arrays);
    op.in1 = int(gen() % num_arrays);
    do
      op.out = int(gen() % num_arrays);
    while (op.out == op.in0 || op.out == op.in1);
    op.s = 0.5 + double(gen() % 100) / 100;
    op.explicit_deps = gen() % 2;
    // A third of the regions restricted to some devices: the CPU (faster
    // than the modelled sims, it would otherwise take most regions), one
    // sim, or both sims.
    static const char *const restrict_to[] = {"cpu", "sim:1", "sim:0,sim:1"};
    if (gen() % 3 == 0)
      op.devices = restrict_to[gen() % 3];
    ops.push_back(op);
  }
  std::vector<hce_map> dm;
  if (in_data_region) {
    for (int i = 0; i < num_arrays; ++i)
      dm.push_back(whole("x", arr[size_t(i)].data(), HCE_MAP_TOFROM));
    ASSERT_EQ(hce_data_begin(int(dm.size()), dm.data()), 0);
  }
  for (const Op &op : ops)
    submit(op, arr);
  ASSERT_EQ(hce_taskwait(), 0);
  std::vector<hce::tasks::TaskRecord> recs = hce::tasks::last_graph();
  if (in_data_region)
    ASSERT_EQ(hce_data_end(), 0);
  for (const Op &op : ops)
    run_sequential(op, ref);
  for (int i = 0; i < num_arrays; ++i)
    for (size_t e = 0; e < arr[size_t(i)].size(); ++e)
      ASSERT_EQ(arr[size_t(i)][e], ref[size_t(i)][e])
          << mapper << " seed " << seed << " array " << i << " element " << e;
  // Conflicting regions ran in submission order.
  ASSERT_EQ(recs.size(), ops.size());
  std::set<std::string> used;
  for (size_t j = 0; j < ops.size(); ++j) {
    EXPECT_TRUE(recs[j].ok && recs[j].ran);
    for (const std::string &d : recs[j].devices) {
      used.insert(d);
      if (ops[j].devices)
        EXPECT_NE(std::string(ops[j].devices).find(d), std::string::npos)
            << mapper << ": task " << j << " ran on " << d << ", outside devices("
            << ops[j].devices << ")";
    }
    for (size_t i = 0; i < j; ++i)
      if (conflict(ops[i], ops[j]))
        EXPECT_LE(recs[i].finish, recs[j].start)
            << mapper << ": task " << i << " and " << j << " conflict";
  }
  EXPECT_GE(used.size(), 2u) << mapper << ": the graph ran on one device only";
  hce_finalize();
  unsetenv("HCE_TASK_MAP");
}

} // namespace

TEST(DeviceClaims, EveryDeviceOfALongListIsHeldUntilLetGo) {
  // A claim keeps its first devices in place and the rest in a list: one
  // held in either, or added later, is not given to another claim.
  // (Devices 100-120: no runtime's.)
  std::vector<int> many(10);
  std::iota(many.begin(), many.end(), 100);
  std::atomic<int> got{0};
  std::vector<std::thread> others;
  {
    hce::tasks::DeviceClaim held(many, nullptr);
    held.add(120);
    held.add(100); // held already: no wait
    for (int d : {100, 107, 109, 120})
      others.emplace_back([&, d] {
        hce::tasks::DeviceClaim c(std::vector<int>{d}, nullptr);
        got.fetch_add(1);
      });
    hce::tasks::DeviceClaim free_one(std::vector<int>{115}, nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(got.load(), 0) << "a held device was claimed again";
  }
  for (std::thread &t : others)
    t.join();
  EXPECT_EQ(got.load(), 4);
}

TEST(TaskGraph, RandomGraphsRatio) {
  for (unsigned seed = 1; seed <= 3; ++seed)
    random_graph_test("ratio", seed, false);
}
TEST(TaskGraph, RandomGraphsRank) {
  for (unsigned seed = 4; seed <= 6; ++seed)
    random_graph_test("rank", seed, false);
}
TEST(TaskGraph, RandomGraphsHeft) {
  for (unsigned seed = 7; seed <= 9; ++seed)
    random_graph_test("heft", seed, false);
}
// Inside a data region the results stay on the devices between regions:
// the data layer must keep them coherent while regions run at once.
TEST(TaskGraph, RandomGraphsInDataRegion) {
  random_graph_test("ratio", 11, true);
  random_graph_test("rank", 12, true);
  random_graph_test("heft", 13, true);
}

// Independent regions run at the same time on different devices.
TEST(TaskGraph, IndependentRegionsOverlap) {
  setenv("HCE_TASK_PARTITION", "off", 1);
  use_devices("sim:0,sim:1", "sim=iter_time:3e-3");
  std::vector<std::vector<double>> arr;
  for (unsigned i = 0; i < 4; ++i)
    arr.push_back(random_vector(size_t(kM * kM), 50 + i));
  auto ref = arr;
  Op a{1, 0, 0, 1, 2.0, false}, b{1, 2, 2, 3, 3.0, false};
  submit(a, arr);
  submit(b, arr);
  ASSERT_EQ(hce_taskwait(), 0);
  auto recs = hce::tasks::last_graph();
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_NE(recs[0].devices, recs[1].devices);
  EXPECT_LT(recs[0].start, recs[1].finish);
  EXPECT_LT(recs[1].start, recs[0].finish);
  run_sequential(a, ref);
  run_sequential(b, ref);
  EXPECT_EQ(arr, ref);
  hce_finalize();
  unsetenv("HCE_TASK_PARTITION");
}

// A large region is co-executed across devices when the partition rule
// says it pays, and stays correct.
TEST(TaskGraph, PartitionedRegionCoExecutes) {
  setenv("HCE_TASK_PARTITION", "0.01", 1);
  use_devices("sim:0,sim:1", "sim=iter_time:2e-3");
  std::vector<std::vector<double>> arr;
  for (unsigned i = 0; i < 3; ++i)
    arr.push_back(random_vector(size_t(kM * kM), 70 + i));
  auto ref = arr;
  Op mm{2, 0, 1, 2, 1.0, false};
  submit(mm, arr);
  ASSERT_EQ(hce_taskwait(), 0);
  auto recs = hce::tasks::last_graph();
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_TRUE(recs[0].partitioned);
  EXPECT_EQ(recs[0].devices.size(), 2u);
  run_sequential(mm, ref);
  EXPECT_EQ(arr, ref);
  hce_finalize();
  unsetenv("HCE_TASK_PARTITION");
}

// Reductions of nowait regions reach their variables at the taskwait, the
// original value included.
TEST(TaskGraph, ReductionsFoldAtTaskwait) {
  use_devices("cpu,sim:0", "sim:0=iter_time:1e-4");
  auto a = random_vector(size_t(kM * kM), 90);
  auto b = random_vector(size_t(kM * kM), 91);
  double sum = 1.5, expect = 0;
  for (size_t i = 0; i < a.size(); ++i)
    expect += a[i] * b[i];
  for (int rep = 0; rep < 3; ++rep) {
    hce_region r{};
    hce_map m[2] = {row_map("a", a.data(), HCE_MAP_TO, kM),
                    row_map("b", b.data(), HCE_MAP_TO, kM)};
    hce_reduction red{"sum", &sum, HCE_RED_ADD, HCE_TYPE_F64};
    r.name = "dot";
    r.iterations = kM;
    r.num_maps = 2;
    r.maps = m;
    r.num_reductions = 1;
    r.reductions = &red;
    r.cpu = dot_cpu;
    r.site = &site_dot;
    ASSERT_EQ(hce_co_exec_nowait(&r, 0, nullptr), 0);
  }
  EXPECT_EQ(sum, 1.5); // not before the taskwait
  ASSERT_EQ(hce_taskwait(), 0);
  EXPECT_NEAR(sum, 1.5 + 3 * expect, 1e-9 * (1 + std::abs(expect)));
  hce_finalize();
}

// A failed region: taskwait reports it and its consumers do not run.
TEST(TaskGraph, MalformedDependenceIsRejected) {
  use_devices("cpu");
  hce_region r{};
  r.name = "bad";
  r.iterations = 1;
  r.cpu = vadd_cpu;
  hce_depend d{nullptr, 7};
  EXPECT_NE(hce_co_exec_nowait(&r, 1, &d), 0);
  EXPECT_NE(hce_co_exec_nowait(&r, -1, nullptr), 0);
  EXPECT_EQ(hce_taskwait(), 0);
  hce_finalize();
}
