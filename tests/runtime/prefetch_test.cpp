// Copies in the background (DataEnv::prefetch): after its share of an
// execution, an accelerator gets the rest of the data region's arrays the
// region reads, so that a later execution that gives it more of the loop
// finds them there.  The copies are valid only once landed and only where
// nobody wrote meanwhile.  A sim reads the host's bytes when a copy is
// queued and writes them into its memory only when the copy is waited for
// (SimDevice::wait_background): a copy of values changed since, or one that
// lands over a newer upload, shows up in the results.
#include "data_env.hpp"
#include "runtime.hpp"
#include "sim_device.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <utility>


namespace {

constexpr int kSimHolder = 2; // sim:0 is device 1, holder 1 + 1 (0: the host)

// y = f x + g elementwise; with `in_place`, x = f x + g.
struct Axpb {
  double f, g;
  bool in_place;
};
void axpb(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const auto *a = static_cast<const Axpb *>(args);
  double *x = static_cast<double *>(ptrs[0]);
  double *y = a->in_place ? x : static_cast<double *>(ptrs[1]);
  for (int64_t i = lb; i < ub; ++i)
    y[i] = x[i] * a->f + a->g;
}

// A region of `axpb` over [0, iterations), static, on every device.
hce_region axpb_region(const char *name, int64_t iterations, int num_maps, hce_map *maps,
                       const Axpb *args = nullptr) {
  hce_region r{};
  r.name = name;
  r.schedule = "static";
  r.iterations = iterations;
  r.num_maps = num_maps;
  r.maps = maps;
  r.args = args;
  r.cpu = axpb;
  return r;
}

// x and y of n doubles, whole, in one data region; regions over them.
class XY {
public:
  explicit XY(int64_t n, uint64_t seed)
      : n_(n), x(hce_test::random_vector(size_t(n), seed)), y(size_t(n), -5.0) {
    whole_[0] = hce_test::row_map("x", x.data(), HCE_MAP_TOFROM, 1);
    whole_[1] = hce_test::row_map("y", y.data(), HCE_MAP_TOFROM, 1);
    for (hce_map &m : whole_) {
      m.scale = 0;
      m.len = n;
    }
  }
  void begin() { ASSERT_EQ(hce_data_begin(2, whole_), 0); }
  void end() { ASSERT_EQ(hce_data_end(), 0); }
  // One execution on `devices` (static: equal shares in device order, the
  // CPU's first), of y = f x + g, or x = f x + g in place.
  void run(void **site, const char *devices, Axpb a) {
    hce_map maps[2] = {hce_test::row_map("x", x.data(), HCE_MAP_TO, 1),
                       hce_test::row_map("y", y.data(), HCE_MAP_FROM, 1)};
    int num_maps = 2;
    if (a.in_place) {
      maps[0].kind = HCE_MAP_TOFROM;
      num_maps = 1;
    }
    hce_region r = axpb_region(devices, n_, num_maps, maps, &a);
    r.devices = devices;
    r.site = site;
    ASSERT_EQ(hce_co_exec(&r), 0);
  }

private:
  int64_t n_;
  hce_map whole_[2];

public:
  std::vector<double> x, y;
};

hce::SimDevice &sim0() {
  auto *sim = dynamic_cast<hce::SimDevice *>(hce::Runtime::get().devices()[1].get());
  EXPECT_NE(sim, nullptr);
  return *sim;
}

} // namespace

// The CPU computes the first half of y = 2x, sim:0 the second; sim:0 then
// gets the CPU's half of x in the background, and holds all of x once its
// next chunk has waited for the copy: none of it is uploaded again.  The
// wait shows in the statistics (background_wait_seconds): the copy is slow
// (512 KiB at 20 MB/s, ~26 ms).
TEST(Prefetch, TheRestOfAReadArrayReachesTheAcceleratorInTheBackground) {
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:2e7,lat:0");
  const int64_t n = 1 << 16;
  XY d(n, 81);
  const std::vector<double> x0 = d.x;
  d.begin();
  void *both = nullptr, *sim = nullptr;
  d.run(&both, "cpu,sim:0", {2, 0, false});
  EXPECT_EQ(hce_last_iterations(&both, "sim:0"), n / 2);
  hce::DataEnv &data = hce::Runtime::get().data();
  EXPECT_FALSE(data.valid_on(d.x.data(), kSimHolder).overlaps(0, n / 2))
      << "valid on sim:0 before the copy was waited for";
  d.run(&sim, "sim:0", {3, 1, false});
  EXPECT_EQ(hce_last_iterations(&sim, "sim:0"), n);
  EXPECT_TRUE(data.valid_on(d.x.data(), kSimHolder).contains(0, n));
  // The CPU's half of x, and of y (a `from` map that does not say it
  // writes every element needs the current values of those it does not).
  EXPECT_EQ(sim0().background_bytes(), long(n * sizeof(double)))
      << "the CPU's halves of x and y, once";
  // (The site's slot holds its state: Runtime::site.)
  const auto *st = static_cast<const hce::SiteState *>(sim);
  ASSERT_NE(st, nullptr);
  const hce::DeviceStats &on_sim = st->stats.devices.at("sim:0");
  EXPECT_EQ(on_sim.bytes_to_device, 0u) << "sim:0 uploaded x although it had it";
  EXPECT_GT(on_sim.background_wait_seconds, 0) << "the wait was not counted";
  EXPECT_LE(on_sim.background_wait_seconds, on_sim.busy_seconds);
  if (hce_test::timing_checks())
    EXPECT_GT(on_sim.background_wait_seconds, 0.01);
  EXPECT_EQ(static_cast<const hce::SiteState *>(both)
                ->stats.devices.at("cpu")
                .background_wait_seconds,
            0)
      << "the host waits for no copy";
  d.end();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(d.y[size_t(i)], 3 * x0[size_t(i)] + 1) << i;
}

// The program changes x on the host (and says so: hce_update) after sim:0
// queued its copy of the CPU's half: the copy brings the old values, which
// must not count; sim:0's next chunks upload the new ones after it landed.
TEST(Prefetch, ACopyOfValuesChangedSinceIsNotUsed) {
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e10,lat:0");
  const int64_t n = 1 << 15;
  XY d(n, 82);
  d.begin();
  void *both = nullptr, *sim1 = nullptr, *sim2 = nullptr;
  d.run(&both, "cpu,sim:0", {2, 0, false});
  for (double &v : d.x)
    v += 1;
  hce_map x_map = hce_test::row_map("x", d.x.data(), HCE_MAP_TO, 1);
  x_map.scale = 0; // the whole array
  x_map.len = n;
  ASSERT_EQ(hce_update(1, &x_map, 1), 0);
  d.run(&sim1, "sim:0", {3, 0, false});
  hce_map y_map = hce_test::row_map("y", d.y.data(), HCE_MAP_FROM, 1);
  y_map.scale = 0;
  y_map.len = n;
  ASSERT_EQ(hce_update(1, &y_map, 0), 0); // (results stay on sim:0 till then)
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(d.y[size_t(i)], 3 * d.x[size_t(i)]) << i << ": sim:0 read an old x";
  d.run(&sim2, "sim:0", {4, 0, false}); // (after any late landing)
  d.end();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(d.y[size_t(i)], 4 * d.x[size_t(i)]) << i << ": sim:0 read an old x";
  EXPECT_GT(sim0().background_bytes(), 0) << "no copy in the background was made";
}

// The CPU writes x in place while sim:0's copy of it is on its way: the
// CPU's chunk, done, must void the copy of what it wrote, although the
// host held x alone when the chunk began (so the chunk took its pointers
// without any bookkeeping).  Driven step by step through the data layer,
// as the chunk loop would interleave them under eft (a device out of
// chunks queues its copies while the others still run theirs).
TEST(Prefetch, ACopyOfRowsAnotherDeviceIsWritingIsNotUsed) {
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e10,lat:0");
  const int64_t n = 1 << 14;
  XY d(n, 83);
  const std::vector<double> x0 = d.x;
  d.begin();
  hce_map x_map = hce_test::row_map("x", d.x.data(), HCE_MAP_TOFROM, 1);
  Axpb plus_one{1, 1, true};
  hce_region r = axpb_region("x_plus_one", n, 1, &x_map, &plus_one);
  hce::DataEnv &data = hce::Runtime::get().data();
  std::string why;
  ASSERT_TRUE(data.begin_region(r, why)) << why;
  std::vector<void *> ptrs;
  hce::DataEnv::ChunkHold hold;
  hce::TransferCounts counts;
  const hce::Range cpu_rows{0, n / 2};
  ASSERT_TRUE(data.acquire(0, r, cpu_rows, ptrs, hold, counts, why)) << why;
  ASSERT_EQ(data.prefetch(1, r, counts), size_t(n) * sizeof(double)) << "all of x";
  axpb(cpu_rows.lb, cpu_rows.ub, ptrs.data(), &plus_one, nullptr); // the CPU's chunk
  ASSERT_TRUE(data.release(0, r, cpu_rows, hce::CoMode::Incremental, hold, counts, why))
      << why;
  ASSERT_TRUE(data.end_region(r, why)) << why;
  void *sim = nullptr;
  d.run(&sim, "sim:0", {3, 0, false});
  d.end();
  EXPECT_EQ(sim0().background_bytes(), long(n * sizeof(double))) << "the copy landed";
  for (int64_t i = 0; i < n; ++i) {
    const double x1 = x0[size_t(i)] + (i < n / 2 ? 1 : 0); // the CPU's half changed
    ASSERT_EQ(d.x[size_t(i)], x1) << i;
    ASSERT_EQ(d.y[size_t(i)], 3 * x1) << i << ": sim:0 read an old x";
  }
}

// A chunk waits for copies in the background only when it touches their
// elements: sim:0's next chunk over its own half goes on while the CPU's
// half is on its way; one over the CPU's half waits for it.
TEST(Prefetch, AChunkWaitsOnlyForCopiesOfWhatItTouches) {
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e10,lat:0");
  const int64_t n = 1 << 14;
  XY d(n, 86);
  const std::vector<double> x0 = d.x;
  d.begin();
  void *both = nullptr;
  d.run(&both, "cpu,sim:0", {2, 0, false}); // sim:0 queues the CPU's half
  ASSERT_EQ(hce_last_iterations(&both, "sim:0"), n / 2);
  ASSERT_EQ(sim0().background_bytes(), 0) << "landed before anyone waited";
  hce_map maps[2] = {hce_test::row_map("x", d.x.data(), HCE_MAP_TO, 1),
                     hce_test::row_map("y", d.y.data(), HCE_MAP_FROM, 1)};
  hce_region r = axpb_region("xy", n, 2, maps);
  hce::DataEnv &data = hce::Runtime::get().data();
  std::string why;
  ASSERT_TRUE(data.begin_region(r, why)) << why;
  for (const hce::Range range : {hce::Range{n / 2, n}, hce::Range{0, n / 2}}) {
    std::vector<void *> ptrs;
    hce::DataEnv::ChunkHold hold;
    hce::TransferCounts counts;
    ASSERT_TRUE(data.acquire(1, r, range, ptrs, hold, counts, why)) << why;
    if (range.lb > 0)
      EXPECT_EQ(sim0().background_bytes(), 0) << "a chunk of sim:0's own half waited";
    else
      EXPECT_GT(sim0().background_bytes(), 0) << "a chunk of the CPU's half did not wait";
    EXPECT_EQ(counts.to_device, 0u) << "uploaded what was resident or on its way";
    data.abandon(hold);
  }
  ASSERT_TRUE(data.end_region(r, why)) << why;
  d.end();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(d.y[size_t(i)], 2 * x0[size_t(i)]) << i;
}

// The CPU rewrites the first quarter of x while sim:0's copy of the first
// half is on its way, then sim:0 reads that quarter: it uploads the new
// values, and the old ones on their way must land before, not over them
// (what will count of the copy shrank; what it writes did not).
TEST(Prefetch, ACopyLandsBeforeANewerUploadOfTheSameElements) {
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e10,lat:0");
  const int64_t n = 1 << 14;
  XY d(n, 87);
  const std::vector<double> x0 = d.x;
  d.begin();
  void *both = nullptr, *cpu = nullptr, *quarter = nullptr, *sim = nullptr;
  d.run(&both, "cpu,sim:0", {2, 0, false}); // sim:0 queues x[0, n/2)
  ASSERT_EQ(sim0().background_bytes(), 0);
  // x = x + 1 on the CPU's first quarter, then y = 3x on sim:0's.
  hce_map x_inout = hce_test::row_map("x", d.x.data(), HCE_MAP_TOFROM, 1);
  Axpb plus_one{1, 1, true};
  hce_region r = axpb_region("x_plus_one", n / 4, 1, &x_inout, &plus_one);
  r.devices = "cpu";
  r.site = &cpu;
  ASSERT_EQ(hce_co_exec(&r), 0);
  hce_map xy[2] = {hce_test::row_map("x", d.x.data(), HCE_MAP_TO, 1),
                   hce_test::row_map("y", d.y.data(), HCE_MAP_FROM, 1)};
  Axpb three{3, 0, false};
  r.name = "quarter";
  r.devices = "sim:0";
  r.num_maps = 2;
  r.maps = xy;
  r.args = &three;
  r.site = &quarter;
  ASSERT_EQ(hce_co_exec(&r), 0);
  d.run(&sim, "sim:0", {4, 0, false}); // reads all of x on sim:0 again
  d.end();
  for (int64_t i = 0; i < n; ++i) {
    const double x1 = x0[size_t(i)] + (i < n / 4 ? 1 : 0);
    ASSERT_EQ(d.x[size_t(i)], x1) << i;
    ASSERT_EQ(d.y[size_t(i)], 4 * x1) << i << ": sim:0 read an old x";
  }
}

// A GPU copies in the background only from registered memory, and the
// registration of a data region's arrays stops between two pieces once
// the execution's work is done (Device::kPinPieceBytes): what is pinned
// goes, the rest at a later execution.  sim:0 pins 24 s/GiB (0.75 s a
// piece); its preparation is told after the first piece that the work is
// done, as the chunk loop tells it when the CPU has done it all.
TEST(Prefetch, OnlyWhatIsPinnedIsCopied) {
  hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e11,lat:0,pin:24");
  const int64_t n = int64_t(5) << 22; // 40 MiB: a piece and 8 MiB
  XY d(n, 85);
  const std::vector<double> x0 = d.x;
  d.begin();
  hce_map x_map = hce_test::row_map("x", d.x.data(), HCE_MAP_TO, 1);
  hce::DataEnv &data = hce::Runtime::get().data();
  hce_region r = axpb_region("x_read", n, 1, &x_map);
  std::string why;
  ASSERT_TRUE(data.begin_region(r, why)) << why;
  hce::TransferCounts counts;
  bool stop = false;
  data.prepare(1, r, counts, [&] { return !std::exchange(stop, true); });
  EXPECT_EQ(sim0().pinned_bytes(), hce::Device::kPinPieceBytes) << "one piece pinned";
  const int64_t pinned = int64_t(hce::Device::kPinPieceBytes / sizeof(double));
  EXPECT_EQ(data.prefetch(1, r, counts), hce::Device::kPinPieceBytes);
  ASSERT_TRUE(data.end_region(r, why)) << why;
  void *sim = nullptr;
  d.run(&sim, "sim:0", {2, 0, false}); // lands what came, uploads the rest
  EXPECT_EQ(sim0().background_bytes(), long(pinned * int64_t(sizeof(double))));
  d.end();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(d.y[size_t(i)], 2 * x0[size_t(i)]) << i;
}

// Outside a data region nothing stays on the device: nothing is copied in
// the background.  Nor without the communication optimisation.
TEST(Prefetch, NothingIsCopiedOutsideADataRegionOrWithoutCo) {
  for (const char *co : {"incremental", "none"}) {
    SCOPED_TRACE(co);
    hce_test::use_devices("cpu,sim:0", "sim:0=bw:1e10,lat:0");
    hce_test::ScopedEnv mode("HCE_CO", co);
    const int64_t n = 1 << 14;
    XY d(n, 84);
    const std::vector<double> x0 = d.x;
    void *outside = nullptr, *inside = nullptr;
    d.run(&outside, "cpu,sim:0", {2, 0, false});
    EXPECT_EQ(sim0().background_bytes(), 0);
    d.begin();
    d.run(&inside, "cpu,sim:0", {2, 0, false});
    d.run(&inside, "cpu,sim:0", {2, 0, false});
    d.end();
    EXPECT_EQ(sim0().background_bytes() > 0, std::string(co) == "incremental");
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(d.y[size_t(i)], 2 * x0[size_t(i)]) << i;
  }
}

// A failed device's windows are freed (DataEnv::evict) only once no other
// device's chunk copies from them.  sim:0 holds the only valid copy of
// x[0, n/2) and has x[n/2, n) on its way in the background (its epilogue
// in the first execution: DataEnv::prefetch); while the
// eviction waits for that copy to land (52 ms at 5 MB/s), sim:1's chunk
// fetches x[0, n/2) from sim:0's window (52 ms more).  The eviction went
// on once the copy had landed and freed the window under the fetch: its
// pin count went below zero, and sim:0's next window waited for ever (the
// fault matrix's jacobi2d under schedule(profile), sim:0 failing).
TEST(Prefetch, AnEvictedWindowIsFreedOnlyOnceNoFetchUsesIt) {
  hce_test::use_devices("sim:0,sim:1", "sim:0=bw:5e6,lat:0");
  const int64_t n = 1 << 16; // halves of 256 KiB
  XY d(n, 89);
  const std::vector<double> x0 = d.x;
  d.begin();
  void *both = nullptr, *doubled = nullptr, *again = nullptr;
  // Both read x: sim:0's window of x is [0, n), and after its half the
  // other goes to it in the background (52 ms).
  hce_map x_in = hce_test::row_map("x", d.x.data(), HCE_MAP_TO, 1);
  hce_region read = axpb_region("x_read", n, 1, &x_in);
  read.cpu = [](int64_t, int64_t, void *const *, const void *, void *) {};
  read.devices = "sim:0,sim:1";
  read.site = &both;
  ASSERT_EQ(hce_co_exec(&read), 0);
  // x = 2x on sim:0's half: valid there only.
  hce_map x_inout = hce_test::row_map("x", d.x.data(), HCE_MAP_TOFROM, 1);
  Axpb twice{2, 0, true};
  hce_region r = axpb_region("x_twice", n / 2, 1, &x_inout, &twice);
  r.devices = "sim:0";
  r.site = &doubled;
  ASSERT_EQ(hce_co_exec(&r), 0);
  hce::DataEnv &data = hce::Runtime::get().data();
  ASSERT_EQ(data.valid_on(d.x.data(), 0).overlaps(0, n / 2), false);
  std::string why;
  hce::TransferCounts counts;
  // sim:0 evicted while sim:1's chunk of a region reading x[0, n/2)
  // fetches it from sim:0.
  std::string evict_why;
  bool evicted = false;
  std::jthread evict([&] { evicted = data.evict(1, r, evict_why); });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  hce_region first = axpb_region("x_first_half", n / 2, 1, &x_in);
  ASSERT_TRUE(data.begin_region(first, why)) << why;
  std::vector<void *> ptrs;
  hce::DataEnv::ChunkHold hold;
  ASSERT_TRUE(data.acquire(2, first, hce::Range{0, n / 2}, ptrs, hold, counts, why))
      << why;
  ASSERT_TRUE(data.release(2, first, hce::Range{0, n / 2}, hce::CoMode::Incremental, hold,
                           counts, why))
      << why;
  ASSERT_TRUE(data.end_region(first, why)) << why;
  evict.join();
  EXPECT_TRUE(evicted) << evict_why;
  ASSERT_EQ(data.window_pins(d.x.data(), 1), 0) << "a pin outlived sim:0's window";
  d.run(&again, "sim:0,sim:1", {3, 0, false}); // y = 3x, sim:0 again
  d.end();
  for (int64_t i = 0; i < n; ++i) {
    const double x1 = x0[size_t(i)] * (i < n / 2 ? 2 : 1);
    ASSERT_EQ(d.x[size_t(i)], x1) << i;
    ASSERT_EQ(d.y[size_t(i)], 3 * x1) << i;
  }
}

// A failure's eviction brings home only the arrays of the region that
// failed: another data region's array, valid on the device alone, stays
// there and its host copy is not written -- that region's thread may be
// writing it (DataRegionSoak with two threads: a download home beside the
// host's write lost it, one run in ~100).
TEST(Prefetch, AFailuresEvictionLeavesOtherRegionsArraysAlone) {
  hce_test::use_devices("sim:0,sim:1", "sim=bw:1e10,lat:0");
  const int64_t n = 1 << 12;
  XY mine(n, 91), other(n, 92);
  const std::vector<double> other_x0 = other.x;
  mine.begin();
  other.begin();
  void *site_mine = nullptr, *site_other = nullptr;
  // x = 2x on sim:0 in both: valid there only.
  Axpb twice{2, 0, true};
  hce_map mine_x = hce_test::row_map("x", mine.x.data(), HCE_MAP_TOFROM, 1);
  hce_map other_x = hce_test::row_map("x", other.x.data(), HCE_MAP_TOFROM, 1);
  hce_region rm = axpb_region("mine_twice", n, 1, &mine_x, &twice);
  rm.devices = "sim:0";
  rm.site = &site_mine;
  ASSERT_EQ(hce_co_exec(&rm), 0);
  hce_region ro = axpb_region("other_twice", n, 1, &other_x, &twice);
  ro.devices = "sim:0";
  ro.site = &site_other;
  ASSERT_EQ(hce_co_exec(&ro), 0);
  hce::DataEnv &data = hce::Runtime::get().data();
  // (Holders: the host 0, then the devices from 1 -- the CPU, sim:0 -- as
  // DataEnv::valid_on counts them; devices from 0 for evict().)
  ASSERT_FALSE(data.valid_on(other.x.data(), 0).overlaps(0, n)) << "other's x went home";
  std::string why;
  ASSERT_TRUE(data.valid_on(other.x.data(), 2).contains(0, n))
      << "other's x not on sim:0";
  ASSERT_TRUE(data.evict(1, rm, why)) << why;
  EXPECT_FALSE(data.valid_on(mine.x.data(), 2).overlaps(0, n)) << "mine stayed on sim:0";
  EXPECT_TRUE(data.valid_on(mine.x.data(), 0).contains(0, n)) << "mine did not come home";
  EXPECT_TRUE(data.valid_on(other.x.data(), 2).contains(0, n)) << "other's x left sim:0";
  EXPECT_EQ(other.x, other_x0) << "other's host copy was written";
  other.end();
  mine.end();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(other.x[size_t(i)], 2 * other_x0[size_t(i)]) << i;
}

// A chunk whose data cannot all be found (lost with a failed device) gives
// up the fetches it planned before it found out: they are not on their way
// home any more.  y's only copy is on sim:2 and x was lost when sim:0 failed
// to send it home; sim:1's chunk reading y and x planned y's fetch, then
// failed on x, and left y's elements marked on their way: the host's next
// fetch of y waited for them for ever.  The data region's end then says x
// was lost (it returned 0 with the host's older x).
TEST(Prefetch, AChunkThatCannotFindItsDataGivesUpItsPlannedFetches) {
  hce_test::use_devices("sim:0,sim:1,sim:2",
                        "sim=bw:1e10,lat:0;sim:0=fail_download:1,sticky:1");
  const int64_t n = 1 << 12;
  XY d(n, 90);
  const std::vector<double> y0 = d.y;
  d.begin();
  void *on0 = nullptr, *on2 = nullptr;
  // x = 2x on sim:0, y = 2y on sim:2: each valid there only.
  hce_map x_inout = hce_test::row_map("x", d.x.data(), HCE_MAP_TOFROM, 1);
  hce_map y_inout = hce_test::row_map("y", d.y.data(), HCE_MAP_TOFROM, 1);
  Axpb twice{2, 0, true};
  hce_region r = axpb_region("x_twice", n, 1, &x_inout, &twice);
  r.devices = "sim:0";
  r.site = &on0;
  ASSERT_EQ(hce_co_exec(&r), 0);
  r = axpb_region("y_twice", n, 1, &y_inout, &twice);
  r.devices = "sim:2";
  r.site = &on2;
  ASSERT_EQ(hce_co_exec(&r), 0);
  hce::DataEnv &data = hce::Runtime::get().data();
  std::string why;
  const hce_region x_maps = axpb_region("x_maps", n, 1, &x_inout);
  ASSERT_FALSE(data.evict(1, x_maps, why)) << "sim:0's download was to fail";
  // sim:1 reads y, then x: x is valid nowhere.
  hce_map y_x[2] = {hce_test::row_map("y", d.y.data(), HCE_MAP_TO, 1),
                    hce_test::row_map("x", d.x.data(), HCE_MAP_TO, 1)};
  hce_region both = axpb_region("y_and_x", n, 2, y_x);
  ASSERT_TRUE(data.begin_region(both, why)) << why;
  std::vector<void *> ptrs;
  hce::DataEnv::ChunkHold hold;
  hce::TransferCounts counts;
  why.clear();
  EXPECT_FALSE(data.acquire(2, both, hce::Range{0, n}, ptrs, hold, counts, why));
  EXPECT_NE(why.find("valid nowhere"), std::string::npos) << why;
  ASSERT_TRUE(data.end_region(both, why)) << why;
  // The host reads y (from sim:2), on a thread of its own: the test fails
  // rather than hangs if it waits for ever.
  hce_region y_only = axpb_region("y_read", n, 1, &y_x[0]);
  ASSERT_TRUE(data.begin_region(y_only, why)) << why;
  auto fetched = std::make_shared<std::promise<bool>>();
  std::future<bool> done = fetched->get_future();
  std::thread([&data, &y_only, n, fetched] {
    std::vector<void *> p;
    hce::DataEnv::ChunkHold h;
    hce::TransferCounts c;
    std::string e;
    const bool ok =
        data.acquire(0, y_only, hce::Range{0, n}, p, h, c, e) &&
        data.release(0, y_only, hce::Range{0, n}, hce::CoMode::Incremental, h, c, e);
    fetched->set_value(ok);
  }).detach();
  ASSERT_EQ(done.wait_for(std::chrono::seconds(20)), std::future_status::ready)
      << "the host's fetch of y waited for copies that were never made";
  EXPECT_TRUE(done.get());
  ASSERT_TRUE(data.end_region(y_only, why)) << why;
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(d.y[size_t(i)], 2 * y0[size_t(i)]) << i;
  EXPECT_NE(hce_data_end(), 0) << "x was lost with sim:0";
}
