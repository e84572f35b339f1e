// A call site's cached plan (runtime/src/site_plan.hpp): the second and
// later executions of a site reuse what does not change, and any change to
// the descriptor (trip count, array pointer, map, clause) makes a new plan.
// Every execution is checked against a sequential reference, and the
// simulated devices must have worked.
#include "runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

namespace {

struct ShiftArgs {
  int64_t shift;
};

// out[i] = 2 * in[i + shift] + i: the CPU variant the translator would emit
// for map(to: in[i + shift:1]) map(from: out[i:1]).
void shift_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *in = static_cast<const double *>(ptrs[0]);
  double *out = static_cast<double *>(ptrs[1]);
  const int64_t s = static_cast<const ShiftArgs *>(args)->shift;
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    out[i] = 2.0 * in[i + s] + double(i);
}

// One descriptor of the site "shifted", rebuilt for every execution the way
// generated code fills its descriptor: the site slot stays the same.
struct Shifted {
  std::vector<double> in, out;
  hce_map maps[2];
  ShiftArgs args{0};
  hce_region region{};

  Shifted(int64_t n, int64_t shift, unsigned seed, void **site, const char *schedule,
          const char *devices = nullptr)
      : in(hce_test::random_vector(size_t(n + shift), seed)), out(size_t(n), -7.0) {
    maps[0] = hce_test::row_map("in", in.data(), HCE_MAP_TO, 1);
    maps[0].offset = shift;
    maps[1] = hce_test::row_map("out", out.data(), HCE_MAP_FROM, 1);
    args.shift = shift;
    region.name = "shifted";
    region.schedule = schedule;
    region.devices = devices;
    region.iterations = n;
    region.num_maps = 2;
    region.maps = maps;
    region.args = &args;
    region.args_size = sizeof args;
    region.cpu = shift_cpu;
    region.site = site;
  }
  int64_t first_wrong() const {
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i] != 2.0 * in[i + size_t(args.shift)] + double(i))
        return int64_t(i);
    return -1;
  }
};

class SitePlan : public testing::Test {
protected:
  void SetUp() override {
    hce_test::use_devices("cpu,sim:0", "sim=bw:1e12,lat:0");
    setenv("HCE_MIN_SHARE", "0", 1); // read when the runtime starts
  }
  void TearDown() override {
    hce_finalize();
    unsetenv("HCE_MIN_SHARE");
  }
  // Runs `t` on the site and checks the result and that sim:0 worked.
  void run(Shifted &t, void **site, const char *what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(hce_co_exec(&t.region), 0);
    EXPECT_EQ(t.first_wrong(), -1);
    EXPECT_GT(hce_last_iterations(site, "sim:0"), 0) << "sim:0 did no work";
    EXPECT_EQ(hce_last_iterations(site, "cpu") + hce_last_iterations(site, "sim:0"),
              t.region.iterations);
  }
  const hce::SiteState &state(void **site) {
    return *static_cast<const hce::SiteState *>(*site);
  }
};

TEST_F(SitePlan, SecondExecutionWithAnotherTripCount) {
  void *site = nullptr;
  Shifted a(1000, 0, 1, &site, "static");
  run(a, &site, "n = 1000");
  Shifted b(700, 0, 2, &site, "static");
  run(b, &site, "n = 700");
  Shifted c(1300, 0, 3, &site, "static");
  run(c, &site, "n = 1300");
  EXPECT_EQ(state(&site).stats.executions, 3);
}

TEST_F(SitePlan, SecondExecutionWithAnotherArray) {
  void *site = nullptr;
  Shifted a(900, 0, 4, &site, "static");
  run(a, &site, "first arrays");
  Shifted b(900, 0, 5, &site, "static"); // same shape, other pointers
  ASSERT_NE(a.in.data(), b.in.data());
  run(b, &site, "other arrays");
  // The first arrays again, with new contents (in place: same pointers).
  const std::vector<double> fresh = hce_test::random_vector(a.in.size(), 6);
  std::copy(fresh.begin(), fresh.end(), a.in.begin());
  a.out.assign(a.out.size(), -7.0);
  run(a, &site, "first arrays again");
}

TEST_F(SitePlan, SecondExecutionWithAnotherMap) {
  void *site = nullptr;
  Shifted a(800, 0, 7, &site, "static");
  run(a, &site, "in[i:1]");
  Shifted b(797, 3, 8, &site, "static"); // in[i + 3:1]
  run(b, &site, "in[i + 3:1]");
  // Same arrays, the map's offset changed in place.
  b.maps[0].offset = 1;
  b.args.shift = 1;
  b.region.iterations = 796;
  b.out.assign(b.out.size(), -7.0);
  ASSERT_EQ(hce_co_exec(&b.region), 0);
  for (int64_t i = 0; i < 796; ++i)
    ASSERT_EQ(b.out[size_t(i)], 2.0 * b.in[size_t(i + 1)] + double(i)) << i;
  EXPECT_EQ(b.out[796], -7.0) << "an iteration past the new trip count ran";
  EXPECT_GT(hce_last_iterations(&site, "sim:0"), 0) << "sim:0 did no work";
}

TEST_F(SitePlan, SecondExecutionWithOtherClauses) {
  void *site = nullptr;
  Shifted a(1000, 0, 9, &site, "static");
  run(a, &site, "static");
  Shifted b(1000, 0, 10, &site, "fdets");
  run(b, &site, "fdets");
  EXPECT_EQ(state(&site).schedule, "fdets");
  // devices(sim:0): the CPU must not work any more.
  Shifted c(1000, 0, 11, &site, "static", "sim:0");
  ASSERT_EQ(hce_co_exec(&c.region), 0);
  EXPECT_EQ(c.first_wrong(), -1);
  EXPECT_EQ(hce_last_iterations(&site, "sim:0"), 1000);
  EXPECT_EQ(hce_last_iterations(&site, "cpu"), 0);
  // And back to both devices.
  Shifted d(1000, 0, 12, &site, "static");
  run(d, &site, "both again");
}

TEST_F(SitePlan, ANewShapeKeepsThePlan) {
  // lud's shape: the trip count and the maps' offsets change every
  // execution (same arrays), nothing else.  The devices and the schedule
  // are kept (the plan's version stays); each execution runs its own trip
  // count and offset.
  void *site = nullptr;
  Shifted a(1000, 4, 15, &site, "static");
  run(a, &site, "n = 1000, shift 4");
  const uint64_t version = state(&site).plan.version;
  for (int64_t n : {999, 640, 3, 1000}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const int64_t shift = n % 5;
    a.region.iterations = n;
    a.maps[0].offset = shift;
    a.args.shift = shift;
    a.out.assign(a.out.size(), -7.0);
    ASSERT_EQ(hce_co_exec(&a.region), 0);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(a.out[size_t(i)], 2.0 * a.in[size_t(i + shift)] + double(i)) << i;
    for (size_t i = size_t(n); i < a.out.size(); ++i)
      ASSERT_EQ(a.out[i], -7.0) << "an iteration past the trip count ran: " << i;
    EXPECT_GT(hce_last_iterations(&site, "sim:0"), 0) << "sim:0 did no work";
    EXPECT_EQ(state(&site).plan.version, version) << "a new plan";
    EXPECT_EQ(state(&site).plan.params.iterations, n);
  }
}

// out[i] = 2 * in[i] + i under map(tofrom: out[i:len]): with len 2 the
// iterations share elements, merged home by twin and diff, which the CPU
// (writing host memory directly) must not take part in.
void doubled_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *) {
  const double *in = static_cast<const double *>(ptrs[0]);
  double *out = static_cast<double *>(ptrs[1]);
  for (int64_t i = lb; i < ub; ++i)
    out[i] = 2.0 * in[i] + double(i);
}

TEST_F(SitePlan, ANewShapeWhoseIterationsShareWrittenElementsChoosesTheDevicesAgain) {
  const int64_t n = 900;
  const std::vector<double> in = hce_test::random_vector(size_t(n), 31);
  std::vector<double> out(size_t(n + 1), -7.0);
  hce_map maps[2] = {
      hce_test::row_map("in", const_cast<double *>(in.data()), HCE_MAP_TO, 1),
      hce_test::row_map("out", out.data(), HCE_MAP_TOFROM, 1)};
  void *site = nullptr;
  hce_region r{};
  r.name = "doubled";
  r.schedule = "static";
  r.iterations = n;
  r.num_maps = 2;
  r.maps = maps;
  r.cpu = doubled_cpu;
  r.site = &site;
  auto check = [&](const char *what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(hce_co_exec(&r), 0);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(out[size_t(i)], 2.0 * in[size_t(i)] + double(i)) << i;
    EXPECT_EQ(out[size_t(n)], -7.0);
    EXPECT_GT(hce_last_iterations(&site, "sim:0"), 0) << "sim:0 did no work";
  };
  check("out[i:1]");
  EXPECT_GT(hce_last_iterations(&site, "cpu"), 0) << "the CPU did no work";
  out.assign(out.size(), -7.0);
  maps[1].len = 2; // only the shape changes; the writes now overlap
  check("out[i:2]");
  EXPECT_EQ(hce_last_iterations(&site, "cpu"), 0)
      << "the CPU took part in a merge by diff";
  EXPECT_EQ(hce_last_iterations(&site, "sim:0"), n);
}

TEST_F(SitePlan, ReusedPlanFollowsTheDataRegion) {
  // FDETS inside a data region runs as fdets_inc (decided per execution,
  // not cached): the same descriptor in and out of a data region.
  void *site = nullptr;
  Shifted a(1000, 0, 13, &site, "fdets");
  hce_map whole[2] = {a.maps[0], a.maps[1]};
  for (hce_map &m : whole) {
    m.kind = HCE_MAP_TOFROM;
    m.scale = 0;
    m.len = 1000;
  }
  run(a, &site, "outside");
  EXPECT_EQ(state(&site).schedule, "fdets");
  ASSERT_EQ(hce_data_begin(2, whole), 0);
  for (int k = 0; k < 3; ++k) {
    a.out.assign(a.out.size(), -7.0);
    ASSERT_EQ(hce_co_exec(&a.region), 0);
    EXPECT_EQ(state(&site).schedule, "fdets_inc");
  }
  ASSERT_EQ(hce_data_end(), 0);
  EXPECT_EQ(a.first_wrong(), -1);
  a.out.assign(a.out.size(), -7.0);
  run(a, &site, "outside again");
  EXPECT_EQ(state(&site).schedule, "fdets");
}

TEST_F(SitePlan, ReloadedSettingsMakeANewPlan) {
  // static on the clause: every execution gives sim:0 its fixed share.  The
  // adaptive scheduler is the reloaded one, so it runs once, at its first
  // execution at this site, where every named device gets an iteration;
  // a second FDETS execution may leave a slow sim:0 out on a loaded machine.
  void *site = nullptr;
  Shifted a(1000, 0, 14, &site, "static");
  run(a, &site, "clause");
  EXPECT_EQ(state(&site).schedule, "static");
  setenv("HCE_SCHEDULE", "fdets", 1);
  run(a, &site, "HCE_SCHEDULE set, not reloaded");
  EXPECT_EQ(state(&site).schedule, "static") << "settings are read once, at start-up";
  std::string why;
  ASSERT_TRUE(hce::Runtime::get().reload_settings(why)) << why;
  run(a, &site, "reloaded");
  EXPECT_EQ(state(&site).schedule, "fdets");
  unsetenv("HCE_SCHEDULE");
  ASSERT_TRUE(hce::Runtime::get().reload_settings(why)) << why;
  run(a, &site, "unset and reloaded");
  EXPECT_EQ(state(&site).schedule, "static");
}

} // namespace
