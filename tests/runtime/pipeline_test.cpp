// The three-way pipeline (HCE paper Fig. 8 / Alg. 4) on simulated
// accelerators: upload of chunk k+1, compute of chunk k and download of
// chunk k-1 overlap, results stay correct, and a failure in the middle of
// the pipeline loses nothing.
#include "chunk_loop.hpp"
#include "clock.hpp"
#include "region_device_work.hpp"
#include "runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

namespace {

struct Args {
  int64_t n;
};

// C = A + B row-wise, with some arithmetic so compute takes a while.
void rows_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *A = static_cast<const double *>(ptrs[0]);
  const double *B = static_cast<const double *>(ptrs[1]);
  double *C = static_cast<double *>(ptrs[2]);
  const int64_t n = static_cast<const Args *>(args)->n;
  for (int64_t i = lb; i < ub; ++i)
    for (int64_t j = 0; j < n; ++j)
      C[i * n + j] = A[i * n + j] + B[i * n + j];
}

struct Rows {
  int64_t m, n;
  std::vector<double> a, b, c;
  hce_map maps[3];
  Args args;
  void *site = nullptr;
  hce_region region{};
  Rows(int64_t m_, int64_t n_, const char *schedule, const char *co)
      : m(m_), n(n_), a(hce_test::random_vector(size_t(m * n), 3)),
        b(hce_test::random_vector(size_t(m * n), 4)), c(size_t(m * n), 0.0) {
    maps[0] = hce_test::row_map("A", a.data(), HCE_MAP_TO, n);
    maps[1] = hce_test::row_map("B", b.data(), HCE_MAP_TO, n);
    maps[2] = hce_test::row_map("C", c.data(), HCE_MAP_FROM, n);
    args.n = n;
    region.name = "rows";
    region.schedule = schedule;
    region.co = co;
    region.iterations = m;
    region.chunk = m / 16; // 16 chunks: enough to fill the pipeline
    region.num_maps = 3;
    region.maps = maps;
    region.args = &args;
    region.cpu = rows_cpu;
    region.site = &site;
  }
  void run() {
    std::fill(c.begin(), c.end(), 0.0);
    EXPECT_EQ(hce_co_exec(&region), 0);
    for (size_t k = 0; k < c.size(); ++k)
      if (c[k] != a[k] + b[k]) {
        ADD_FAILURE() << "element " << k << " wrong";
        break;
      }
  }
};

// Equal chunks handed out as soon as asked (lookahead allowed): isolates the
// pipeline mechanics from any scheduler's chunk-size policy.
class FixedChunks final : public hce::Scheduler {
public:
  explicit FixedChunks(int64_t chunk, bool steady = false)
      : chunk_(chunk), steady_(steady) {}
  bool steady_chunk_costs() const override { return steady_; }
  bool placing_data(int) const override { return placing; }
  bool placing = false;     // placing_data()'s answer
  std::vector<double> seen; // complete()'s seconds
  std::string_view name() const override { return "fixed"; }
  void begin(const hce::SchedParams &p) override {
    w_ = p.iterations;
    next_ = 0;
  }
  hce::Decision next(int) override {
    if (next_ >= w_)
      return hce::Decision::done();
    int64_t lb = next_;
    next_ = std::min(w_, next_ + chunk_);
    return hce::Decision::run(lb, next_);
  }
  void complete(int, hce::Range, double seconds) override { seen.push_back(seconds); }
  void drop(int) override { next_ = w_; }

private:
  int64_t chunk_, w_ = 0, next_ = 0;
  bool steady_;
};

// Runs `w` (its stages set) on sim:0 alone, one iteration per chunk, under
// `sched` when given.
hce::ChunkLoopResult run_one_per_chunk(int64_t iterations, hce::ChunkWorker w,
                                       FixedChunks *given = nullptr,
                                       std::vector<hce::ChunkWorker> *ran = nullptr) {
  hce_test::use_devices("sim:0");
  FixedChunks own(1);
  FixedChunks &sched = given ? *given : own;
  hce::SchedParams p;
  p.iterations = iterations;
  p.num_devices = 1;
  p.lookahead = w.pipelined;
  sched.begin(p);
  std::vector<hce::ChunkWorker> workers{std::move(w)};
  workers[0].device = 1; // sim:0 (device 0 is always the CPU)
  workers[0].abandon = [](int) {};
  hce::ChunkLoopResult res =
      hce::run_chunk_loop(hce::Runtime::get(), sched, workers, "fixed");
  if (ran)
    *ran = std::move(workers);
  return res;
}

// Seconds to run 12 chunks whose three stages each take 3 ms.
double run_fixed_stages(bool pipelined, int64_t *completed) {
  hce::ChunkWorker w;
  w.pipelined = pipelined;
  w.upload = w.compute = w.download = [](hce::Range, int, std::string &) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    return true;
  };
  hce::ChunkLoopResult res = run_one_per_chunk(12, std::move(w));
  *completed = res.completed.total_length();
  return res.wall;
}

TEST(Pipeline, OverlapsUploadComputeAndDownload) {
  // Sequential: 12 x (3+3+3) ms = 108 ms.  Pipelined: (12+2) x 3 = 42 ms.
  // The pipelined run's best of three: its stage threads wake from their
  // sleeps late on a loaded machine (70-74 ms in 2 of ~80 repetitions on
  // the 2-core VM beside a build), which only ever adds; a worker that does
  // not overlap its stages takes ~108 ms every time.
  int64_t done_seq = 0, done_pipe = 0;
  double seq = run_fixed_stages(false, &done_seq);
  double pipe = run_fixed_stages(true, &done_pipe);
  EXPECT_EQ(done_seq, 12);
  EXPECT_EQ(done_pipe, 12);
  for (int again = 0; again < 2 && !(pipe < 0.6 * seq); ++again) {
    pipe = std::min(pipe, run_fixed_stages(true, &done_pipe));
    EXPECT_EQ(done_pipe, 12);
  }
  EXPECT_GT(seq, 0.100);
  EXPECT_LT(pipe, 0.6 * seq) << "pipelined " << pipe << " s, sequential " << seq << " s";
}

// The stages' start and end times of each chunk of a sequential worker
// that may switch to the pipeline (ChunkWorker::pipeline_when_compute_bound),
// its stages taking up/comp/down ms.
struct StageTimes {
  std::mutex m;
  std::vector<std::pair<double, double>> up, comp, down;
};
void run_switching(int up, int comp, int down, StageTimes &t, int64_t *completed,
                   bool after_first = false) {
  auto timed = [&t](int ms, std::vector<std::pair<double, double>> *into) {
    return [&t, ms, into](hce::Range, int, std::string &) {
      const double a = hce::now_seconds();
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      if (into) {
        std::lock_guard<std::mutex> lock(t.m);
        into->push_back({a, hce::now_seconds()});
      }
      return true;
    };
  };
  hce::ChunkWorker w;
  w.pipeline_when_compute_bound = true;
  w.pipeline_after_first = after_first;
  w.upload = timed(up, &t.up);
  w.compute = timed(comp, &t.comp);
  w.download = timed(down, &t.down);
  *completed = run_one_per_chunk(8, std::move(w)).completed.total_length();
}

// An upload that began before the previous chunk's compute ended.
int overlaps(const StageTimes &t) {
  int n = 0;
  for (size_t k = 1; k < t.up.size() && k <= t.comp.size(); ++k)
    n += t.up[k].first < t.comp[k - 1].second;
  return n;
}

// A compute-bound chunk after the first switches a sequential worker to
// the pipeline: the later uploads run beside the kernels (the H200's cold
// gemm).  The first chunk does not decide (its first launch may outlast
// tiny copies), and a copy-bound worker stays sequential (blackscholes,
// whose uploads and downloads share the staging threads).
TEST(Pipeline, ASequentialWorkerPipelinesOnceComputeBound) {
  {
    StageTimes t;
    int64_t done = 0;
    // Margins wide enough for a loaded machine, whose 1 ms sleeps take
    // several: a 20 ms compute stays over twice a pair of overslept copies.
    run_switching(1, 20, 1, t, &done);
    EXPECT_EQ(done, 8);
    ASSERT_EQ(t.up.size(), 8u);
    // Chunks 0 and 1 ran in turn (1 decided); from chunk 2 on, pipelined.
    EXPECT_GE(t.up[1].first, t.comp[0].second);
    EXPECT_GE(t.up[2].first, t.comp[1].second);
    EXPECT_GE(overlaps(t), 4);
  }
  {
    StageTimes t;
    int64_t done = 0;
    run_switching(10, 1, 10, t, &done); // a 1 ms compute would need 40 to switch
    EXPECT_EQ(done, 8);
    EXPECT_EQ(overlaps(t), 0);
  }
}

// Where the device's uploads and downloads run at once
// (ChunkWorker::pipeline_after_first: a CUDA GPU and its staging pool), a
// copy-bound worker switches too, after its second chunk as a compute-bound
// one does: then a chunk's download runs beside the next one's upload (the
// H200's cold blackscholes and matadd, call BB).
TEST(Pipeline, ACopyBoundWorkerPipelinesWhereCopiesOverlap) {
  StageTimes t;
  int64_t done = 0;
  run_switching(10, 1, 10, t, &done, /*after_first=*/true);
  EXPECT_EQ(done, 8);
  ASSERT_EQ(t.up.size(), 8u);
  ASSERT_EQ(t.down.size(), 8u);
  // Chunks 0 and 1 ran in turn; from chunk 2 on, pipelined.
  EXPECT_GE(t.up[1].first, t.down[0].second);
  EXPECT_GE(t.up[2].first, t.down[1].second);
  // Downloads beside later uploads: chunk k+1's upload began before chunk
  // k's download ended.
  int beside = 0;
  for (size_t k = 2; k + 1 < t.up.size(); ++k)
    beside += t.up[k + 1].first < t.down[k].second;
  EXPECT_GE(beside, 3);
}

// One chunk for the host (device slot 0), the rest one iteration at a time
// for the accelerator (slot 1).
class HostOnceThenAccelerator final : public hce::Scheduler {
public:
  std::string_view name() const override { return "host-once"; }
  void begin(const hce::SchedParams &p) override {
    w_ = p.iterations;
    next_ = 1;
  }
  hce::Decision next(int device) override {
    if (device == 0) {
      if (host_given_)
        return hce::Decision::done();
      host_given_ = true;
      return hce::Decision::run(0, 1);
    }
    if (next_ >= w_)
      return hce::Decision::done();
    ++next_;
    return hce::Decision::run(next_ - 1, next_);
  }
  void complete(int, hce::Range, double) override {}
  void drop(int) override {}

private:
  int64_t w_ = 0, next_ = 1;
  bool host_given_ = false;
};

// ... but not while a host device computes: the accelerator's chunks go
// in turn until the CPU's one long chunk is done, pipelined after.
TEST(Pipeline, ACopyBoundWorkerPipelinesOnlyOnceNoHostComputes) {
  hce_test::use_devices("cpu,sim:0");
  StageTimes t;
  double host_end = 0;
  auto timed = [&t](int ms, std::vector<std::pair<double, double>> *into) {
    return [&t, ms, into](hce::Range, int, std::string &) {
      const double a = hce::now_seconds();
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      std::lock_guard<std::mutex> lock(t.m);
      into->push_back({a, hce::now_seconds()});
      return true;
    };
  };
  std::vector<hce::ChunkWorker> workers(2);
  hce::ChunkWorker &host = workers[0], &acc = workers[1];
  host.device = 0;
  host.upload = host.download = [](hce::Range, int, std::string &) { return true; };
  host.compute = [&host_end](hce::Range, int, std::string &) {
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    host_end = hce::now_seconds();
    return true;
  };
  acc.device = 1;
  acc.pipeline_when_compute_bound = acc.pipeline_after_first = true;
  acc.upload = timed(6, &t.up);
  acc.compute = timed(1, &t.comp);
  acc.download = timed(6, &t.down);
  for (hce::ChunkWorker &w : workers)
    w.abandon = [](int) {};
  HostOnceThenAccelerator sched;
  hce::SchedParams p;
  p.iterations = 24;
  p.num_devices = 2;
  sched.begin(p);
  const hce::ChunkLoopResult res =
      hce::run_chunk_loop(hce::Runtime::get(), sched, workers, "host-once");
  EXPECT_EQ(res.completed.total_length(), 24);
  ASSERT_EQ(t.up.size(), 23u);
  ASSERT_EQ(t.down.size(), 23u);
  int before = 0, after = 0;
  for (size_t k = 0; k + 1 < t.up.size(); ++k) {
    const bool beside = t.up[k + 1].first < t.down[k].second;
    (t.up[k + 1].first < host_end ? before : after) += beside;
  }
  EXPECT_EQ(before, 0) << "pipelined beside the host's chunk";
  EXPECT_GE(after, 3) << "not pipelined once the host was done";
}

// A worker whose chunks upload for 40 ms and compute for 2.
hce::ChunkWorker slow_upload_worker() {
  hce::ChunkWorker w;
  w.upload = [](hce::Range, int, std::string &) {
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    return true;
  };
  w.compute = [](hce::Range, int, std::string &) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return true;
  };
  w.download = [](hce::Range, int, std::string &) { return true; };
  return w;
}

// Two one-iteration chunks of `w` under `sched`: each one's whole time, as
// the worker counts it, and the time the scheduler was told; empty if they
// did not both run.
std::vector<std::pair<double, double>> two_chunks(hce::ChunkWorker w,
                                                  FixedChunks &sched) {
  std::vector<hce::ChunkWorker> ran;
  EXPECT_EQ(run_one_per_chunk(2, std::move(w), &sched, &ran).completed.total_length(), 2);
  std::vector<std::pair<double, double>> times;
  if (ran.size() != 1 || ran[0].chunk_times.size() != 2 || sched.seen.size() != 2)
    return times;
  for (size_t k = 0; k < 2; ++k)
    times.push_back({ran[0].chunk_times[k].second, sched.seen[k]});
  return times;
}

// A chunk's first uploads of a data region's elements (three quarters of
// its 40 ms upload here) are one-time work: a scheduler that models steady
// costs (eft) is told the chunk's time without them, the others (the
// papers' schedulers) the whole of it, as the worker's own times say.
TEST(ChunkLoop, AChunksFirstUploadsAreLeftOutOfItsSteadyCost) {
  for (bool steady : {false, true}) {
    SCOPED_TRACE(steady ? "steady costs" : "whole chunks");
    hce::ChunkWorker w = slow_upload_worker();
    w.first_upload_share = [](int) { return 0.75; };
    FixedChunks sched(1, steady);
    const std::vector<std::pair<double, double>> times = two_chunks(std::move(w), sched);
    ASSERT_EQ(times.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      const double whole = times[k].first;
      EXPECT_GE(whole, 0.042) << "chunk " << k;
      if (steady) // less 0.75 of an upload of 40 ms or more
        EXPECT_LE(times[k].second, whole - 0.030) << "chunk " << k;
      else
        EXPECT_DOUBLE_EQ(times[k].second, whole) << "chunk " << k;
    }
  }
}

// A device alone in the execution that places its mode's data
// (Scheduler::placing_data): every upload of a data region's elements (nine
// tenths of the 40 ms upload here, a quarter of them first ones) is left out
// of its steady cost, where otherwise only the first ones are.
TEST(ChunkLoop, APlacingDevicesDataRegionUploadsAreLeftOutOfItsSteadyCost) {
  for (bool placing : {false, true}) {
    SCOPED_TRACE(placing ? "placing" : "steady");
    hce::ChunkWorker w = slow_upload_worker();
    w.first_upload_share = [](int) { return 0.25; };
    w.placed_upload_share = [](int) { return 0.9; };
    FixedChunks sched(1, true);
    sched.placing = placing;
    const std::vector<std::pair<double, double>> times = two_chunks(std::move(w), sched);
    ASSERT_EQ(times.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      const double whole = times[k].first;
      EXPECT_GE(whole, 0.042) << "chunk " << k;
      if (placing) // less 0.9 of an upload of 40 ms or more
        EXPECT_LE(times[k].second, whole - 0.036) << "chunk " << k;
      else // less a quarter of it: its compute, and more than a tenth of the upload
        EXPECT_GE(times[k].second, 0.1 * (whole - 0.002)) << "chunk " << k;
      EXPECT_LE(times[k].second, whole - 0.010) << "chunk " << k;
    }
  }
}

TEST(Pipeline, EverySchedulerGivesTheRightResultPipelined) {
  for (const char *schedule :
       {"static", "quick", "split", "hguided", "logfit", "fdets", "adets", "auto"}) {
    SCOPED_TRACE(schedule);
    hce_test::use_devices("cpu,sim:0,sim:1", "sim=bw:1e10,lat:0;sim:1=speed:0.5");
    Rows t(300, 64, schedule, "pipelined");
    t.run();
    t.run(); // re-execution: the scheduler's learnt state, same windows
  }
}

TEST(Pipeline, FailureInTheMiddleLosesNothing) {
  for (const char *fault : {"fail_compute:3", "fail_upload:4", "fail_download:2"}) {
    SCOPED_TRACE(fault);
    hce_test::use_devices("sim:0", std::string("sim:0=bw:1e10,lat:0,") + fault);
    Rows t(400, 32, "adets", "pipelined");
    testing::internal::CaptureStderr();
    t.run();
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("sim:0 failed"), std::string::npos) << err;
  }
}

} // namespace

// A chunk that computed before a later chunk's kernel failed is still
// downloaded and counted complete: its kernel wrote the device's copy.
// Dropped instead, an update in place in a data region came home through
// the rescue and ran again on the CPU -- applied twice, status 0 (the fault
// matrix's inplace_data, adets, fail_compute:3, once in 20 under ASan).
// Chunk 0's download holds the downloader while chunk 1 computes and chunk
// 2's kernel fails.
TEST(Pipeline, AChunkThatComputedBeforeAFailureIsStillReleased) {
  hce::ChunkWorker w;
  w.pipelined = true;
  std::mutex m;
  std::vector<int64_t> downloaded;
  w.upload = [](hce::Range, int, std::string &) { return true; };
  w.compute = [](hce::Range r, int, std::string &why) {
    if (r.lb != 2)
      return true;
    why = "injected kernel failure";
    return false;
  };
  w.download = [&](hce::Range r, int, std::string &) {
    if (r.lb == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::lock_guard<std::mutex> lock(m);
    downloaded.push_back(r.lb);
    return true;
  };
  const hce::ChunkLoopResult res = run_one_per_chunk(6, std::move(w));
  EXPECT_EQ(downloaded, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(res.completed.total_length(), 2) << "a chunk that computed was dropped";
}

namespace {

// a[i] = 2 * a[i] + 1 row-wise: an update in place, which a re-run after
// its results came home would apply twice.
void inplace_rows(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  double *a = static_cast<double *>(ptrs[0]);
  const int64_t n = static_cast<const Args *>(args)->n;
  for (int64_t i = lb * n; i < ub * n; ++i)
    a[i] = a[i] * 2.0 + 1.0;
}

} // namespace

// A chunk too big for the device's memory runs in pieces in the upload
// stage, each piece's results released home.  When a chunk ahead of it
// fails, the pipeline's compute stage abandons it before its download stage
// would complete it: the rescue must report its pieces as finished.  It
// reported none (the chunk counted as whole only at the end of its upload
// stage), and the CPU ran them again: the fault matrix's inplace,
// mem:20000,fail_compute:3, eft, pipelined ended wrong with status 0, about
// once in 3000 runs.
TEST(Pipeline, AChunkRunInPiecesAndAbandonedReportsItsPiecesHome) {
  hce_test::use_devices("sim:0", "sim:0=bw:1e12,lat:0,mem:20000");
  const int64_t m = 300, n = 24; // 57,600 bytes: pieces of at most 20,000
  std::vector<double> a = hce_test::random_vector(size_t(m * n), 11);
  std::vector<double> expect = a;
  for (double &v : expect)
    v = v * 2.0 + 1.0;
  hce_map maps[1] = {hce_test::row_map("a", a.data(), HCE_MAP_TOFROM, n)};
  const Args args{n};
  void *site = nullptr;
  hce_region r =
      hce_test::region_of("pieces", maps, 1, m, args, inplace_rows, &site, "static");
  hce::Runtime &rt = hce::Runtime::get();
  std::string why;
  ASSERT_TRUE(rt.data().begin_region(r, why)) << why;
  hce::RegionDeviceWork work(rt, r, 1, hce::CoMode::Pipelined); // sim:0
  ASSERT_TRUE(work.upload({0, m}, 0, why)) << why;
  work.abandon(0); // what the compute stage does once a chunk ahead failed
  std::vector<hce::Range> finished;
  EXPECT_EQ(work.rescue(finished), "");
  hce::IntervalSet home;
  for (const hce::Range &p : finished)
    home.add(p.lb, p.ub);
  EXPECT_EQ(home.total_length(), m) << "pieces whose results are home would run again";
  ASSERT_TRUE(rt.data().end_region(r, why)) << why;
  EXPECT_EQ(a, expect);
}

// The thread running the loop spins for its learned time only when it takes
// no core from the devices' threads (controller.hpp): never beside the CPU
// team, and not when the accelerators' threads fill the cores.
TEST(ChunkLoop, TheWaiterSpinsLongOnlyWithACoreOfItsOwn) {
  using Budget = hce::SpinBackoff::Budget;
  hce_test::use_devices("cpu,sim:0");
  const hce::Runtime &rt = hce::Runtime::get();
  ASSERT_EQ(rt.devices().size(), 2u);
  std::vector<hce::ChunkWorker> sim_only(1);
  sim_only[0].device = 1;
  EXPECT_EQ(hce::waiter_spin(rt, sim_only, 2), Budget::Learned);
  EXPECT_EQ(hce::waiter_spin(rt, sim_only, 1), Budget::Short); // no core left
  std::vector<hce::ChunkWorker> both(2);
  both[0].device = 0;
  both[1].device = 1;
  EXPECT_EQ(hce::waiter_spin(rt, both, 16), Budget::Short); // the CPU team runs
  both[0].idle = true; // left out: its team does not run
  EXPECT_EQ(hce::waiter_spin(rt, both, 16), Budget::Learned);
  sim_only[0].pipelined = true; // three stream threads
  EXPECT_EQ(hce::waiter_spin(rt, sim_only, 3), Budget::Short);
  EXPECT_EQ(hce::waiter_spin(rt, sim_only, 4), Budget::Learned);
  hce_finalize();
}

// A site's workers are reset at each execution (ExecutionRun::reset): every
// hook the last execution bound is gone and every count is zero, so that a
// device idle now runs nothing of what it was given before.
TEST(ChunkLoop, AResetWorkerIsANewOne) {
  hce::ChunkWorker w;
  w.device = 2;
  w.pipelined = w.pipeline_when_compute_bound = w.pipeline_after_first = w.idle = true;
  w.upload = w.compute = w.download = [](hce::Range, int, std::string &) { return true; };
  w.abandon = [](int) {};
  w.first_upload_share = w.placed_upload_share = [](int) { return 0.5; };
  w.prologue = [](const std::function<bool()> &) {};
  w.epilogue = w.retired = w.paused = w.lending_ended = [] {};
  w.on_failure = [] { return std::string(); };
  w.finished_by_rescue.push_back({1, 2});
  w.iterations = 7;
  w.chunks = 3;
  w.busy = w.finish = w.compute_busy = 1.5;
  w.chunk_times.push_back({7, 1.5});
  w.reset();
  EXPECT_EQ(w.device, 0);
  EXPECT_FALSE(w.pipelined || w.pipeline_when_compute_bound || w.pipeline_after_first ||
               w.idle);
  EXPECT_FALSE(w.upload || w.compute || w.download || w.abandon || w.first_upload_share ||
               w.placed_upload_share || w.prologue || w.epilogue || w.retired ||
               w.paused || w.lending_ended || w.on_failure);
  EXPECT_TRUE(w.finished_by_rescue.empty());
  EXPECT_TRUE(w.chunk_times.empty());
  EXPECT_EQ(w.iterations, 0);
  EXPECT_EQ(w.chunks, 0);
  EXPECT_EQ(w.busy + w.finish + w.compute_busy, 0);
}
