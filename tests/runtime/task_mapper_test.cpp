// The task mappers on hand-made graphs with scripted device speeds, against
// the definitions of the task-mapping seed
// (/work/shared/seeds/task-mapping-cpu-gpu-starpu.txt): Eqs. (1)-(6), the
// ReadyQueue order and threshold of Algorithms 1 and 2, the §4.3
// partition rule, and the HEFT baseline.
#include "tasks/dispatcher.hpp"
#include "tasks/mapper.hpp"
#include "profile/profile_store.hpp"
#include "tasks/perf_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace hce::tasks;

namespace {

// A CPU (host memory) and one GPU-like device with a 1 GB/s link and no
// latency: moving 1e9 bytes between them takes 1 s.
MapGraph cpu_gpu() {
  MapGraph g;
  g.devices.push_back({"cpu", true, 0, 0});
  g.devices.push_back({"gpu", false, 1e9, 0});
  return g;
}

} // namespace

// The worked example of §4.1 (seed lines 150-152): C = 5.68 s on the CPU,
// 4.22 s on the GPU: F_cpu = 1, F_gpu = 5.68/4.22 = 1.35, H = 1.35.
TEST(TaskMapper, HeterogeneityRatioOfTheSeedsExample) {
  MapGraph g = cpu_gpu();
  MapTask &t = g.add_task(0, "t", {5.68, 4.22});
  EXPECT_DOUBLE_EQ(favorite_ratio(t, 0), 1.0);
  EXPECT_NEAR(favorite_ratio(t, 1), 1.346, 1e-3);
  EXPECT_NEAR(heterogeneity_ratio(t), 1.346, 1e-3);
  // A device that cannot run the task is no one's favourite.
  MapTask &u = g.add_task(1, "u", {2.0, kCannotRun});
  EXPECT_EQ(favorite_ratio(u, 1), 0);
  EXPECT_DOUBLE_EQ(heterogeneity_ratio(u), 1.0);
}

// Alg. 1 lines 3-8: largest H first; a new task goes before queued tasks of
// equal H.
TEST(TaskMapper, ReadyQueueByHeterogeneityRatio) {
  MapGraph g = cpu_gpu();
  g.add_task(0, "h1.2", {1.2, 1.0});
  g.add_task(1, "h3", {3.0, 1.0});
  g.add_task(2, "h1.2b", {1.0, 1.2});
  g.add_task(3, "h2", {1.0, 2.0});
  auto m = make_mapper("ratio");
  Dispatcher d(g, *m, 1);
  for (int i = 0; i < 4; ++i)
    d.push_ready(i);
  EXPECT_EQ(d.ready_queue(), (std::vector<int>{1, 3, 2, 0}));
}

// Eq. (6) by hand: rank(A) = mean C_A + max_k (Eq. (5) T(e_Ak) + mean C_k).
TEST(TaskMapper, StructureRankEquation6) {
  MapGraph g = cpu_gpu();
  g.add_task(0, "A", {2, 4}); // mean 3
  g.add_task(1, "B", {1, 3}); // mean 2
  g.add_task(2, "C", {1, 1}); // mean 1
  g.add_edge(0, 1, 1e9);      // T over the 4 pairs: (0 + 1 + 1 + 0)/4 = 0.5
  g.add_edge(0, 2, 4e9);      // (0 + 4 + 4 + 0)/4 = 2
  EXPECT_DOUBLE_EQ(mean_transfer_time(g, 1e9), 0.5);
  // max(0.5 + 2, 2 + 1) = 3
  EXPECT_DOUBLE_EQ(structure_rank(g, 0), 3 + 3);
  EXPECT_DOUBLE_EQ(structure_rank(g, 1), 2);
}

// HEFT's upward rank follows the whole path; Alg. 2's rank one edge.
TEST(TaskMapper, UpwardRankIsRecursiveStructureRankIsNot) {
  MapGraph g = cpu_gpu();
  g.add_task(0, "A", {1, 1});
  g.add_task(1, "B", {2, 2});
  g.add_task(2, "C", {4, 4});
  g.add_edge(0, 1, 0);
  g.add_edge(1, 2, 0);
  EXPECT_DOUBLE_EQ(structure_rank(g, 0), 1 + 2);
  EXPECT_DOUBLE_EQ(upward_rank(g, 0), 1 + 2 + 4);
}

// Definition 4/5: EFT = T_Avail + MDAC + C; the predecessor's device and the
// bytes on the edge decide.
TEST(TaskMapper, EarliestFinishTimeWithMdac) {
  MapGraph g = cpu_gpu();
  g.add_task(0, "P", {1, 1});
  g.add_task(1, "T", {2.0, 1.5});
  g.add_edge(0, 1, 1e9); // 1 s from the CPU to the GPU
  MapState s;
  s.now = 0;
  s.avail = {0, 0};
  s.placed_on[0] = {0}; // P ran on the CPU
  EXPECT_DOUBLE_EQ(mdac(g, 1, 1, s), 1.0);
  EXPECT_DOUBLE_EQ(mdac(g, 1, 0, s), 0.0);
  EXPECT_DOUBLE_EQ(eft(g, 1, 0, s), 2.0);
  EXPECT_DOUBLE_EQ(eft(g, 1, 1, s), 2.5);
  Placement p = eft_placement(g, 1, s);
  EXPECT_EQ(p.devices, std::vector<int>{0}); // the data is on the CPU
  // With P on the GPU the GPU wins.
  s.placed_on[0] = {1};
  EXPECT_EQ(eft_placement(g, 1, s).devices, std::vector<int>{1});
  // A busy GPU (free at t=3) loses again.
  s.avail = {0, 3};
  EXPECT_EQ(eft_placement(g, 1, s).devices, std::vector<int>{0});
}

// Alg. 1 lines 9-12: no more than thr tasks in the device queues.
TEST(TaskMapper, ThresholdHoldsTasksInTheReadyQueue) {
  MapGraph g = cpu_gpu();
  for (int i = 0; i < 5; ++i)
    g.add_task(i, "t", {1, 1});
  auto m = make_mapper("ratio");
  m->partition.enabled = false;
  Dispatcher d(g, *m, 2);
  for (int i = 0; i < 5; ++i)
    d.push_ready(i);
  EXPECT_EQ(d.dispatch(0).size(), 2u);
  EXPECT_EQ(d.ready_queue().size(), 3u);
  EXPECT_TRUE(d.dispatch(0).empty());
  d.on_start(4, 0);
  d.on_finish(4, 1);
  EXPECT_EQ(d.dispatch(1).size(), 1u);
  // HEFT (the baseline) is greedy.
  auto h = make_mapper("heft");
  Dispatcher dh(g, *h, h->threshold(2));
  for (int i = 0; i < 5; ++i)
    dh.push_ready(i);
  EXPECT_EQ(dh.dispatch(0).size(), 5u);
}

// The orders differ where the seed says they should: with one task at a
// time, ratio takes the most heterogeneous task first, rank the one with the
// heaviest successor.
TEST(TaskMapper, RatioAndRankPickDifferentTasksFirst) {
  MapGraph g = cpu_gpu();
  g.add_task(0, "X", {8, 1}); // H = 8, mean 4.5, no successor
  g.add_task(1, "Y", {2, 2}); // H = 1, mean 2, successor of mean 10
  g.add_task(2, "Z", {10, 10});
  g.add_edge(1, 2, 0);
  for (auto name : {"ratio", "rank"}) {
    auto m = make_mapper(name);
    m->partition.enabled = false;
    SimResult r = simulate(g, *m, 1);
    ASSERT_EQ(r.order.size(), 3u);
    EXPECT_EQ(r.order[0].id, std::string(name) == "ratio" ? 0 : 1) << name;
  }
}

// §4.3: partition only above the threshold and only when it pays.
TEST(TaskMapper, PartitionRule) {
  MapGraph g;
  g.devices.push_back({"cpu", true, 0, 0});
  g.devices.push_back({"sim:0", false, 1e12, 0});
  g.add_task(0, "big", {1.0, 1.0});
  g.add_task(1, "small", {0.01, 0.01});
  MapState s;
  s.avail = {0, 0};
  PartitionParams pp; // 0.02 s
  Placement big = apply_partition_rule(g, 0, s, eft_placement(g, 0, s), pp);
  EXPECT_TRUE(big.partitioned);
  EXPECT_EQ(big.devices, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(big.est_finish, 0.5);
  Placement small = apply_partition_rule(g, 1, s, eft_placement(g, 1, s), pp);
  EXPECT_FALSE(small.partitioned);
  // The second device is busy until t=10: waiting for it does not pay.
  s.avail = {0, 10};
  Placement busy = apply_partition_rule(g, 0, s, eft_placement(g, 0, s), pp);
  EXPECT_FALSE(busy.partitioned);
  EXPECT_EQ(busy.devices, std::vector<int>{0});
  pp.enabled = false;
  s.avail = {0, 0};
  EXPECT_FALSE(apply_partition_rule(g, 0, s, eft_placement(g, 0, s), pp).partitioned);
}

// The cost model: exact for one size, the a*D^b fit for several.
TEST(TaskMapper, PerfModelFitsPowerLaw) {
  PerfModel m;
  m.record("k", "cpu", 100, 1.0);
  EXPECT_NEAR(m.predict("k", "cpu", 200), 2.0, 1e-12);
  m.record("k", "cpu", 200, 4.0); // t = 1e-4 * D^2
  m.record("k", "cpu", 400, 16.0);
  double a = 0, b = 0;
  ASSERT_TRUE(m.fit("k", "cpu", a, b));
  EXPECT_NEAR(b, 2.0, 1e-9);
  EXPECT_NEAR(m.predict("k", "cpu", 300), 9.0, 1e-6);
  // Another device: scaled by the speed hints.
  m.set_speed_hint("sim:0", 4);
  EXPECT_NEAR(m.predict("k", "sim:0", 300), 9.0 / 4, 1e-6);
  m.set_iteration_time("sim:1", 1e-3);
  EXPECT_NEAR(m.predict("other", "sim:1", 50), 0.05, 1e-12);
}

// Simulated runs of random DAGs: every mapper respects every edge and runs
// every task once; the makespan is at least the critical path.
// With HCE_PROFILE set, a region the profile store has measured is costed
// from it before any task ran (and only then: without HCE_PROFILE the
// nominal fallback stays, so other tests are not affected).
TEST(TaskMapper, PerfModelUsesTheProfileStore) {
  hce::profile::shutdown_global();
  hce::tasks::PerfModel m;
  m.set_speed_hint("cpu", 1);
  const double nominal = m.predict("profiled_region", "cpu", 2000);
  EXPECT_NEAR(nominal, 2000 * 1e-8, 1e-12);
  setenv("HCE_PROFILE", "/nonexistent-dir/hce-profile-test", 1); // never saved
  hce::profile::shutdown_global(); // HCE_PROFILE is read when the store loads
  hce::profile::Sample s;
  s.iterations = 1000;
  s.exec_s = 0.4;
  s.xfer_s = 0.1;
  hce::profile::global().record("profiled_region", "cpu", s);
  // One sample: the line through it and (0, 0).
  EXPECT_NEAR(m.predict("profiled_region", "cpu", 2000), 1.0, 1e-9);
  EXPECT_NEAR(m.predict("other_region", "cpu", 2000), nominal, 1e-12);
  // The model's own history still comes first.
  m.record("profiled_region", "cpu", 2000, 0.25);
  EXPECT_NEAR(m.predict("profiled_region", "cpu", 2000), 0.25, 1e-9);
  hce::profile::global().clear();
  unsetenv("HCE_PROFILE");
  hce::profile::shutdown_global();
}

TEST(TaskMapper, SimulatedRandomGraphsRespectDependences) {
  std::mt19937 gen(7);
  for (int trial = 0; trial < 20; ++trial) {
    MapGraph g;
    g.devices.push_back({"cpu", true, 0, 0});
    g.devices.push_back({"sim:0", false, 1e9, 1e-5});
    g.devices.push_back({"sim:1", false, 5e8, 1e-5});
    const int n = 5 + int(gen() % 20);
    std::uniform_real_distribution<double> c(0.001, 0.1);
    for (int i = 0; i < n; ++i)
      g.add_task(i, "t", {c(gen), c(gen), (gen() % 5 == 0) ? kCannotRun : c(gen)});
    for (int i = 1; i < n; ++i)
      for (int j = 0; j < i; ++j)
        if (gen() % 4 == 0)
          g.add_edge(j, i, double(gen() % 1000000));
    for (const std::string &name : mapper_names()) {
      auto m = make_mapper(name);
      SimResult r = simulate(g, *m, m->threshold(3));
      ASSERT_EQ(int(r.order.size()), n) << name;
      for (const auto &[id, t] : g.tasks) {
        const SimTask *st = r.find(id);
        ASSERT_NE(st, nullptr);
        for (int p : t.preds)
          EXPECT_LE(r.find(p)->finish, st->start) << name << " task " << id;
        if (st->devices.size() == 1)
          EXPECT_TRUE(std::isfinite(t.cost[size_t(st->devices[0])])) << name;
      }
      // No two tasks on one device at once.
      for (const SimTask &a : r.order)
        for (const SimTask &b : r.order)
          if (a.id < b.id)
            for (int q : a.devices)
              for (int w : b.devices)
                if (q == w)
                  EXPECT_TRUE(a.finish <= b.start || b.finish <= a.start) << name;
    }
  }
}
