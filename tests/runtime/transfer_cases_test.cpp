// Transfer planning: the HCE paper's six upload cases (Fig. 6, Algorithm 1)
// and six download cases (Fig. 7, Algorithm 2), checked against the
// generalised interval-set planner (ArrayResidency), plus residency scenarios
// and a Jacobi-like sweep over three simulated devices with real buffers.
#include "data/footprint.hpp"
#include "data/paper_cases.hpp"
#include "data/transfer_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using hce::ArrayResidency;
using hce::footprint;
using hce::incremental_download;
using hce::IntervalSet;
using hce::kHost;
using hce::MapShape;
using hce::Transfer;
namespace paper = hce::paper;

namespace {

// The paper's setting: element index == iteration index (map X[i:1]).
constexpr MapShape kIdentity{1, 0, 1, 1, 0};
constexpr int64_t kW = 100;
constexpr int kDev = 2; // device D_2 of three (the paper's i)

IntervalSet range_fp(paper::DeviceRange r, int64_t extent) {
  return footprint(kIdentity, r.begin, r.end + 1, extent);
}

// Algorithm 1 vs. the generalised plan, for device i when the ratios move
// from R_prev to R_curr.  Returns the plan so the test can state it.
IntervalSet check_upload(const std::vector<double> &R_prev,
                         const std::vector<double> &R_curr, int want_case) {
  paper::Result r = paper::alg1_upload(kW, kDev, R_prev, R_curr);
  EXPECT_EQ(r.case_no, want_case);

  // Generalised: D_i holds (valid) what it processed last time; it needs
  // the footprint of its current range.
  ArrayResidency res(static_cast<int>(R_prev.size()), kW);
  res.mark_valid(kDev, range_fp(paper::subarray(kW, R_prev, kDev), kW));
  IntervalSet needed = range_fp(paper::subarray(kW, R_curr, kDev), kW);
  IntervalSet up = res.plan_upload(kDev, needed);
  EXPECT_EQ(up, paper::to_set(r));
  // And it can all come from the host, in one transfer.
  IntervalSet unsourced;
  const int host_only[] = {kHost};
  auto ts = res.plan_fetch(kDev, needed, host_only, &unsourced);
  EXPECT_TRUE(unsourced.empty());
  if (!up.empty()) {
    EXPECT_EQ(ts.size(), 1u);
    EXPECT_EQ(ts[0], (Transfer{kHost, kDev, up}));
  } else {
    EXPECT_TRUE(ts.empty());
  }
  return up;
}

// Algorithm 2 vs. the generalised plan, for device i after it wrote its
// current range, when its next range is known.
IntervalSet check_download(const std::vector<double> &R_curr,
                           const std::vector<double> &R_next, int want_case) {
  paper::Result r = paper::alg2_download(kW, kDev, R_curr, R_next);
  EXPECT_EQ(r.case_no, want_case);

  ArrayResidency res(static_cast<int>(R_curr.size()), kW);
  IntervalSet written = range_fp(paper::subarray(kW, R_curr, kDev), kW);
  IntervalSet next = range_fp(paper::subarray(kW, R_next, kDev), kW);
  res.mark_valid(kDev, written); // uploaded (map tofrom)
  res.mark_written(kDev, written);
  EXPECT_EQ(res.host_stale(res.universe()), written);
  IntervalSet down =
      res.plan_download(kDev, incremental_download(written, next));
  EXPECT_EQ(down, paper::to_set(r));
  // Eager mode would take everything the device wrote.
  EXPECT_EQ(res.plan_download(kDev, written), written);
  // After the download the host is stale exactly where the device will
  // write again next time.
  res.mark_valid(kHost, down);
  EXPECT_EQ(res.host_stale(res.universe()), written & next);
  return down;
}

// ---- Fig. 6: upload cases (three devices, W = 100, device D_2) ----------

TEST(UploadCases, Case1_CurrEntirelyBeforePrev) {
  // prev [60,79], curr [20,39]: nothing reusable, upload all of curr.
  EXPECT_EQ(check_upload({0.6, 0.2, 0.2}, {0.2, 0.2, 0.6}, 1),
            IntervalSet(20, 40));
}

TEST(UploadCases, Case2_CurrOverlapsPrevStart) {
  // prev [40,79], curr [30,59]: upload [30,39].
  EXPECT_EQ(check_upload({0.4, 0.4, 0.2}, {0.3, 0.3, 0.4}, 2),
            IntervalSet(30, 40));
}

TEST(UploadCases, Case3_CurrCoversPrev) {
  // prev [40,59], curr [30,69]: upload [30,39] and [60,69].
  EXPECT_EQ(check_upload({0.4, 0.2, 0.4}, {0.3, 0.4, 0.3}, 3),
            (IntervalSet{{30, 40}, {60, 70}}));
}

TEST(UploadCases, Case4_CurrInsidePrev) {
  // prev [30,69], curr [40,59]: nothing to upload.
  EXPECT_EQ(check_upload({0.3, 0.4, 0.3}, {0.4, 0.2, 0.4}, 4), IntervalSet());
}

TEST(UploadCases, Case5_CurrOverlapsPrevEnd) {
  // prev [30,59], curr [40,79]: upload [60,79].
  EXPECT_EQ(check_upload({0.3, 0.3, 0.4}, {0.4, 0.4, 0.2}, 5),
            IntervalSet(60, 80));
}

TEST(UploadCases, Case6_CurrEntirelyAfterPrev) {
  // prev [20,39], curr [60,79]: upload all of curr.
  EXPECT_EQ(check_upload({0.2, 0.2, 0.6}, {0.6, 0.2, 0.2}, 6),
            IntervalSet(60, 80));
}

TEST(UploadCases, FirstExecutionUploadsEverything) {
  // Algorithm 3 l.1: R_prev = 0, so the previous range is empty.
  paper::Result r = paper::alg1_upload(kW, kDev, {0, 0, 0}, {0.3, 0.3, 0.4});
  EXPECT_EQ(paper::to_set(r), IntervalSet(30, 60));
  ArrayResidency res(3, kW);
  EXPECT_EQ(res.plan_upload(kDev, IntervalSet(30, 60)), IntervalSet(30, 60));
}

// ---- Fig. 7: download cases ----------------------------------------------

TEST(DownloadCases, Case1_NextEntirelyBeforeCurr) {
  // curr [60,79], next [20,39]: download all of curr.
  EXPECT_EQ(check_download({0.6, 0.2, 0.2}, {0.2, 0.2, 0.6}, 1),
            IntervalSet(60, 80));
}

TEST(DownloadCases, Case2_NextOverlapsCurrStart) {
  // curr [40,79], next [30,59]: download [60,79].
  EXPECT_EQ(check_download({0.4, 0.4, 0.2}, {0.3, 0.3, 0.4}, 2),
            IntervalSet(60, 80));
}

TEST(DownloadCases, Case3_NextCoversCurr) {
  // curr [40,59], next [30,69]: nothing to download.
  EXPECT_EQ(check_download({0.4, 0.2, 0.4}, {0.3, 0.4, 0.3}, 3), IntervalSet());
}

TEST(DownloadCases, Case4_NextInsideCurr) {
  // curr [30,69], next [40,59]: download [30,39] and [60,69].
  EXPECT_EQ(check_download({0.3, 0.4, 0.3}, {0.4, 0.2, 0.4}, 4),
            (IntervalSet{{30, 40}, {60, 70}}));
}

TEST(DownloadCases, Case5_NextOverlapsCurrEnd) {
  // curr [30,59], next [40,79]: download [30,39].
  EXPECT_EQ(check_download({0.3, 0.3, 0.4}, {0.4, 0.4, 0.2}, 5),
            IntervalSet(30, 40));
}

TEST(DownloadCases, Case6_NextEntirelyAfterCurr) {
  // curr [20,39], next [60,79]: download all of curr.
  EXPECT_EQ(check_download({0.2, 0.2, 0.6}, {0.6, 0.2, 0.2}, 6),
            IntervalSet(20, 40));
}

TEST(DownloadCases, LastExecutionDownloadsEverything) {
  // Algorithm 3 l.23: R_next = 0 in the last execution.
  paper::Result r = paper::alg2_download(kW, kDev, {0.3, 0.3, 0.4}, {0, 0, 0});
  EXPECT_EQ(paper::to_set(r), IntervalSet(30, 60));
}

// ---- exhaustive equivalence on small ranges ------------------------------

TEST(PaperEquivalence, AllRangePairsUpToTwelve) {
  // Every pair of (possibly empty) inclusive ranges in [0, 12).
  for (int64_t pb = 0; pb <= 12; ++pb)
    for (int64_t pe = pb - 1; pe < 12; ++pe)
      for (int64_t cb = 0; cb <= 12; ++cb)
        for (int64_t ce = cb - 1; ce < 12; ++ce) {
          paper::DeviceRange a{pb, pe}, b{cb, ce};
          IntervalSet A = paper::to_set(a), B = paper::to_set(b);
          paper::Result up = paper::alg1_upload(a, b);
          ASSERT_EQ(paper::to_set(up), A.missing(B))
              << "prev [" << pb << "," << pe << "] curr [" << cb << "," << ce
              << "]";
          // Algorithm 2 with (curr, next) = (a, b).
          paper::Result down = paper::alg2_download(a, b);
          ASSERT_EQ(paper::to_set(down), incremental_download(A, B))
              << "curr [" << pb << "," << pe << "] next [" << cb << "," << ce
              << "]";
          if (!A.empty() && !B.empty()) {
            ASSERT_GE(up.case_no, 1);
            ASSERT_GE(down.case_no, 1);
          }
        }
}

// Algorithm 3 end to end, with real data: device 1 is the CPU (it works on
// host memory, holder 0); devices 2..p are accelerators whose transfers come
// from Algorithms 1/2 in the paper and from ArrayResidency here.  Every
// execution, every accelerator's plan must equal the paper's, and the data
// must come out right.
TEST(PaperEquivalence, Algorithm3RandomRatios) {
  std::mt19937_64 g(11);
  for (int trial = 0; trial < 60; ++trial) {
    int p = 2 + static_cast<int>(g() % 3);
    int64_t W = 50 + static_cast<int64_t>(g() % 500);
    int execs = 2 + static_cast<int>(g() % 6);
    auto random_ratios = [&] {
      std::vector<double> r(static_cast<size_t>(p));
      double sum = 0;
      for (double &x : r)
        sum += (x = 0.05 + std::uniform_real_distribution<double>(0, 1)(g));
      for (double &x : r)
        x /= sum;
      return r;
    };
    // R[0] = 0 (before the first execution), R[1..execs], R[execs+1] = 0.
    std::vector<std::vector<double>> R(static_cast<size_t>(execs) + 2);
    R[0].assign(static_cast<size_t>(p), 0.0);
    for (int t = 1; t <= execs; ++t)
      R[static_cast<size_t>(t)] = random_ratios();
    R[static_cast<size_t>(execs) + 1].assign(static_cast<size_t>(p), 0.0);

    // Holder h's memory: holder 0 = host; accelerator D_i is holder i-1.
    std::vector<std::vector<double>> mem(
        static_cast<size_t>(p),
        std::vector<double>(static_cast<size_t>(W),
                            std::numeric_limits<double>::quiet_NaN()));
    std::vector<double> ref(static_cast<size_t>(W));
    for (int64_t e = 0; e < W; ++e)
      ref[static_cast<size_t>(e)] = mem[0][static_cast<size_t>(e)] =
          static_cast<double>(e % 17) + 0.5;
    ArrayResidency res(p - 1, W);
    auto copy = [&](int src, int dst, const IntervalSet &s) {
      for (const hce::Interval &iv : s)
        for (int64_t e = iv.lo; e < iv.hi; ++e)
          mem[static_cast<size_t>(dst)][static_cast<size_t>(e)] =
              mem[static_cast<size_t>(src)][static_cast<size_t>(e)];
    };

    for (int t = 1; t <= execs; ++t) {
      const auto &Rp = R[static_cast<size_t>(t) - 1];
      const auto &Rc = R[static_cast<size_t>(t)];
      const auto &Rn = R[static_cast<size_t>(t) + 1];
      // Uploads (all before any kernel writes, as the devices run at once).
      for (int i = 2; i <= p; ++i) {
        int h = i - 1;
        IntervalSet needed = range_fp(paper::subarray(W, Rc, i), W);
        IntervalSet up = res.plan_upload(h, needed);
        ASSERT_EQ(up, paper::to_set(paper::alg1_upload(W, i, Rp, Rc)))
            << "trial " << trial << " exec " << t << " device " << i;
        ASSERT_TRUE(res.valid(kHost).contains(up));
        copy(kHost, h, up);
        res.mark_valid(h, up);
      }
      // Kernels: x = 0.5*x + t.
      for (int i = 1; i <= p; ++i) {
        int h = i == 1 ? kHost : i - 1;
        paper::DeviceRange r = paper::subarray(W, Rc, i);
        for (int64_t e = r.begin; e <= r.end; ++e) {
          double &x = mem[static_cast<size_t>(h)][static_cast<size_t>(e)];
          ASSERT_FALSE(std::isnan(x)) << "device " << i << " read poison";
          x = 0.5 * x + t;
        }
        res.mark_written(h, range_fp(r, W));
      }
      for (double &x : ref)
        x = 0.5 * x + t;
      // Downloads.
      for (int i = 2; i <= p; ++i) {
        int h = i - 1;
        IntervalSet written = range_fp(paper::subarray(W, Rc, i), W);
        IntervalSet next = range_fp(paper::subarray(W, Rn, i), W);
        IntervalSet down =
            res.plan_download(h, incremental_download(written, next));
        ASSERT_EQ(down, paper::to_set(paper::alg2_download(W, i, Rc, Rn)));
        copy(h, kHost, down);
        res.mark_valid(kHost, down);
      }
    }
    ASSERT_TRUE(res.host_stale(res.universe()).empty());
    ASSERT_EQ(mem[0], ref);
  }
}

// ---- beyond the paper: halos ------------------------------------------------

TEST(Generalised, HaloUploadIsFootprintDifference) {
  // Jacobi reads A[i-1:3]; the paper's ranges are iterations, ours are
  // elements: the halo is included, the reuse is the same.
  MapShape halo{1, -1, 3, 1, 0};
  ArrayResidency res(1, 1000);
  res.mark_valid(1, footprint(halo, 100, 200, 1000)); // [99, 201)
  IntervalSet up = res.plan_upload(1, footprint(halo, 150, 260, 1000));
  EXPECT_EQ(up, IntervalSet(201, 261)); // Case 5, shifted by the halo
  res.mark_valid(1, up);
  // Shrinking the range (Case 4): nothing moves.
  EXPECT_TRUE(res.plan_upload(1, footprint(halo, 160, 250, 1000)).empty());
}

// ---- ArrayResidency scenarios --------------------------------------------

TEST(ArrayResidency, StartsHostValid) {
  ArrayResidency res(2, 100);
  EXPECT_EQ(res.valid(kHost), IntervalSet(0, 100));
  EXPECT_TRUE(res.valid(1).empty());
  EXPECT_EQ(res.holders_of(IntervalSet(0, 100)), std::vector<int>{kHost});
  ArrayResidency unknown(1);
  EXPECT_EQ(unknown.valid(kHost),
            IntervalSet(0, std::numeric_limits<int64_t>::max()));
  ArrayResidency scratch(1, 100, /*host_valid=*/false);
  EXPECT_EQ(scratch.unheld(IntervalSet(0, 100)), IntervalSet(0, 100));
}

TEST(ArrayResidency, WriteOnDev1InvalidatesDev2AndHost) {
  ArrayResidency res(2, 100);
  res.mark_valid(1, IntervalSet(0, 60));
  res.mark_valid(2, IntervalSet(40, 100));
  res.mark_written(1, IntervalSet(40, 60));
  EXPECT_EQ(res.valid(1), IntervalSet(0, 60));
  EXPECT_EQ(res.valid(2), IntervalSet(60, 100));
  EXPECT_EQ(res.valid(kHost), (IntervalSet{{0, 40}, {60, 100}}));
  EXPECT_EQ(res.holders_of(IntervalSet(40, 60)), std::vector<int>{1});
  EXPECT_EQ(res.holders_of(IntervalSet(0, 10)), (std::vector<int>{kHost, 1}));
  EXPECT_EQ(res.holders_of(IntervalSet(65, 70)), (std::vector<int>{kHost, 2}));
  EXPECT_TRUE(res.holders_of(IntervalSet(30, 70)).empty()); // nobody has all
  auto cov = res.coverage_of(IntervalSet(30, 70));
  ASSERT_EQ(cov.size(), 3u);
  EXPECT_EQ(cov[kHost], (IntervalSet{{30, 40}, {60, 70}}));
  EXPECT_EQ(cov[1], IntervalSet(30, 60));
  EXPECT_EQ(cov[2], IntervalSet(60, 70));
  EXPECT_TRUE(res.unheld(IntervalSet(0, 100)).empty());
}

TEST(ArrayResidency, WriteToElementsNotUploadedStillCounts) {
  // map(from:): the device writes what it never received.
  ArrayResidency res(1, 100);
  res.mark_written(1, IntervalSet(10, 20));
  EXPECT_EQ(res.valid(1), IntervalSet(10, 20));
  EXPECT_EQ(res.plan_download(1, IntervalSet(0, 100)), IntervalSet(10, 20));
}

TEST(ArrayResidency, DownloadGivesExactlyTheStalePart) {
  ArrayResidency res(2, 100);
  res.mark_valid(1, IntervalSet(0, 60));
  res.mark_written(1, IntervalSet(20, 30));
  res.mark_written(2, IntervalSet(50, 70));
  // Dev 1 holds [0,50) valid; of that the host lacks only [20,30).
  EXPECT_EQ(res.valid(1), IntervalSet(0, 50));
  EXPECT_EQ(res.plan_download(1, IntervalSet(0, 100)), IntervalSet(20, 30));
  // Only the wanted part, and never what dev 1 does not hold.
  EXPECT_EQ(res.plan_download(1, IntervalSet(25, 60)), IntervalSet(25, 30));
  EXPECT_EQ(res.plan_download(2, IntervalSet(0, 100)), IntervalSet(50, 70));
  EXPECT_EQ(res.host_stale(IntervalSet(0, 100)),
            (IntervalSet{{20, 30}, {50, 70}}));
  res.mark_valid(kHost, IntervalSet(20, 30));
  EXPECT_TRUE(res.plan_download(1, IntervalSet(0, 100)).empty());
  EXPECT_EQ(res.host_stale(IntervalSet(0, 100)), IntervalSet(50, 70));
}

TEST(ArrayResidency, ReuploadAfterInvalidationMovesOnlyTheMissingPart) {
  ArrayResidency res(2, 100);
  res.mark_valid(2, IntervalSet(0, 100));
  res.mark_written(1, IntervalSet(40, 60));     // dev 2 loses [40,60)
  res.mark_written(kHost, IntervalSet(90, 95)); // host writes: update to()
  EXPECT_EQ(res.valid(2), (IntervalSet{{0, 40}, {60, 90}, {95, 100}}));
  IntervalSet needed(30, 100);
  EXPECT_EQ(res.plan_upload(2, needed), (IntervalSet{{40, 60}, {90, 95}}));
  // Host first, then the peer: the host is stale on [40,60), dev 1 has it.
  const int order[] = {kHost, 1};
  IntervalSet unsourced;
  auto ts = res.plan_fetch(2, needed, order, &unsourced);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts[0], (Transfer{kHost, 2, IntervalSet(90, 95)}));
  EXPECT_EQ(ts[1], (Transfer{1, 2, IntervalSet(40, 60)}));
  EXPECT_TRUE(unsourced.empty());
  // Host only (no peer access): [40,60) must first come back from dev 1.
  const int host_only[] = {kHost};
  ts = res.plan_fetch(2, needed, host_only, &unsourced);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(unsourced, IntervalSet(40, 60));
  EXPECT_EQ(res.plan_download(1, unsourced), IntervalSet(40, 60));
  for (const Transfer &t : res.plan_fetch(2, needed, order))
    res.mark_valid(2, t.elems);
  EXPECT_TRUE(res.plan_upload(2, needed).empty());
}

TEST(ArrayResidency, InvalidateAndRelease) {
  ArrayResidency res(1, 100);
  res.mark_valid(1, IntervalSet(0, 100));
  res.invalidate(1, IntervalSet(10, 20));
  EXPECT_EQ(res.valid(1), (IntervalSet{{0, 10}, {20, 100}}));
  EXPECT_EQ(res.valid(kHost), IntervalSet(0, 100)); // untouched
  res.release(1);
  EXPECT_TRUE(res.valid(1).empty());
}

TEST(ArrayResidency, BadHolderThrows) {
  ArrayResidency res(2, 100);
  EXPECT_THROW(res.valid(3), std::out_of_range);
  EXPECT_THROW(res.mark_written(-1, IntervalSet(0, 1)), std::out_of_range);
  const int order[] = {7};
  EXPECT_THROW(res.plan_fetch(1, IntervalSet(0, 1), order), std::out_of_range);
}

// ---- a Jacobi-like sweep over three simulated devices ----------------------
//
// 1-D Jacobi, two arrays swapped every sweep: dst[i] = (src[i-1] + src[i] +
// src[i+1]) / 3 for i in [1, N-1).  Normalised k = i - 1, W = N - 2:
//   read  src[k : 3]     -> MapShape{1, 0, 3}
//   write dst[k+1 : 1]   -> MapShape{1, 1, 1}
// Three devices split [0, W) in thirds whose borders wobble by up to 8
// iterations each sweep.  Devices have their own (NaN-poisoned) buffers;
// every planned transfer really copies, and the result must equal the
// sequential reference bit for bit.

struct JacobiStats {
  int64_t up = 0, peer = 0, down = 0; // elements moved
  int64_t naive = 0; // upload every footprint, download every write
};

JacobiStats run_jacobi(bool incremental, bool peer_copies, uint64_t seed) {
  constexpr int64_t N = 3000, W = N - 2;
  constexpr int ndev = 3, sweeps = 60;
  constexpr MapShape rd{1, 0, 3, 1, 0}, wr{1, 1, 1, 1, 0};
  std::mt19937_64 g(seed);
  auto wobble = [&g] {
    return std::uniform_int_distribution<int64_t>(-8, 8)(g);
  };
  // ranges[t][d] for t in [0, sweeps]; the last row is empty (no next).
  std::vector<std::vector<hce::Interval>> ranges(sweeps + 1);
  for (int t = 0; t < sweeps; ++t) {
    int64_t b1 = W / 3 + wobble(), b2 = 2 * W / 3 + wobble();
    ranges[static_cast<size_t>(t)] = {{0, b1}, {b1, b2}, {b2, W}};
  }
  ranges[sweeps] = {{0, 0}, {0, 0}, {0, 0}};

  // mem[a][h]: array a on holder h (0 = host).
  std::vector<std::vector<double>> mem[2];
  std::vector<double> ref[2];
  std::mt19937_64 gd(seed + 1);
  for (int a = 0; a < 2; ++a) {
    mem[a].assign(ndev + 1, std::vector<double>(
                                N, std::numeric_limits<double>::quiet_NaN()));
    ref[a].resize(N);
    for (int64_t e = 0; e < N; ++e)
      ref[a][static_cast<size_t>(e)] = mem[a][0][static_cast<size_t>(e)] =
          std::uniform_real_distribution<double>(-1, 1)(gd);
  }
  ArrayResidency res[2] = {ArrayResidency(ndev, N), ArrayResidency(ndev, N)};
  JacobiStats st;
  auto copy = [&](int a, const Transfer &t) {
    for (const hce::Interval &iv : t.elems)
      for (int64_t e = iv.lo; e < iv.hi; ++e)
        mem[a][static_cast<size_t>(t.dst)][static_cast<size_t>(e)] =
            mem[a][static_cast<size_t>(t.src)][static_cast<size_t>(e)];
    res[a].mark_valid(t.dst, t.elems);
  };

  for (int t = 0; t < sweeps; ++t) {
    int src = t % 2, dst = 1 - src;
    for (int d = 1; d <= ndev; ++d) {
      hce::Interval r = ranges[static_cast<size_t>(t)][d - 1];
      IntervalSet needed = footprint(rd, r.lo, r.hi, N);
      IntervalSet writes = footprint(wr, r.lo, r.hi, N);
      st.naive += needed.total_length() + writes.total_length();
      // Make the read footprint valid on d.
      std::vector<int> order{kHost};
      if (peer_copies)
        for (int o = 1; o <= ndev; ++o)
          if (o != d)
            order.push_back(o);
      IntervalSet unsourced;
      auto ts = res[src].plan_fetch(d, needed, order, &unsourced);
      if (!unsourced.empty()) {
        // No peer path: bring the stale part home first, from its holder.
        auto cov = res[src].coverage_of(unsourced);
        for (int o = 1; o <= ndev; ++o) {
          IntervalSet part = res[src].plan_download(o, cov[o]);
          if (part.empty())
            continue;
          copy(src, Transfer{o, kHost, part});
          st.down += part.total_length();
        }
        EXPECT_TRUE(res[src].unheld(unsourced).empty());
        ts = res[src].plan_fetch(d, needed, order, &unsourced);
        EXPECT_TRUE(unsourced.empty());
      }
      for (const Transfer &tr : ts) {
        copy(src, tr);
        (tr.src == kHost ? st.up : st.peer) += tr.elems.total_length();
      }
      // Compute on d's own buffers.
      const auto &in = mem[src][static_cast<size_t>(d)];
      auto &out = mem[dst][static_cast<size_t>(d)];
      for (int64_t k = r.lo; k < r.hi; ++k) {
        size_t i = static_cast<size_t>(k + 1);
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3;
      }
      res[dst].mark_written(d, writes);
      // Results home: all of it, or only what d won't rewrite next time it
      // writes this array (two sweeps on).
      IntervalSet wanted = writes;
      if (incremental) {
        hce::Interval rn =
            ranges[static_cast<size_t>(std::min(t + 2, sweeps))][d - 1];
        wanted = incremental_download(writes, footprint(wr, rn.lo, rn.hi, N));
      }
      IntervalSet down = res[dst].plan_download(d, wanted);
      copy(dst, Transfer{d, kHost, down});
      st.down += down.total_length();
    }
    // Sequential reference.
    for (int64_t i = 1; i < N - 1; ++i) {
      size_t u = static_cast<size_t>(i);
      ref[dst][u] = (ref[src][u - 1] + ref[src][u] + ref[src][u + 1]) / 3;
    }
  }
  // End of the data region: everything back.
  for (int a = 0; a < 2; ++a) {
    for (int d = 1; d <= ndev; ++d) {
      IntervalSet down = res[a].plan_download(d, res[a].valid(d));
      copy(a, Transfer{d, kHost, down});
      st.down += down.total_length();
      res[a].release(d);
    }
    EXPECT_TRUE(res[a].host_stale(res[a].universe()).empty());
    EXPECT_EQ(res[a].valid(kHost), IntervalSet(0, N));
    EXPECT_EQ(mem[a][0], ref[a]) << "array " << a;
  }
  return st;
}

TEST(JacobiSweep, IncrementalWithPeerCopiesMovesFarLess) {
  JacobiStats inc = run_jacobi(/*incremental=*/true, /*peer=*/true, 5);
  JacobiStats eager = run_jacobi(/*incremental=*/false, /*peer=*/true, 5);
  int64_t moved_inc = inc.up + inc.peer + inc.down;
  int64_t moved_eager = eager.up + eager.peer + eager.down;
  RecordProperty("moved_incremental", static_cast<int>(moved_inc));
  RecordProperty("moved_eager", static_cast<int>(moved_eager));
  RecordProperty("naive", static_cast<int>(inc.naive));
  // Residency alone avoids re-uploads; incremental downloads avoid most of
  // the rest.
  EXPECT_LT(moved_eager * 10, inc.naive * 6)
      << moved_eager << " vs naive " << inc.naive;
  EXPECT_LT(moved_inc * 20, inc.naive)
      << moved_inc << " vs naive " << inc.naive;
  EXPECT_LT(moved_inc, moved_eager);
  EXPECT_GT(inc.peer, 0);   // halos of stale rows came from the neighbours
  EXPECT_EQ(eager.peer, 0); // eager mode keeps the host current
}

TEST(JacobiSweep, IncrementalWithoutPeerCopiesStillCorrect) {
  for (uint64_t seed : {1ull, 2ull, 3ull}) {
    JacobiStats st = run_jacobi(/*incremental=*/true, /*peer=*/false, seed);
    EXPECT_EQ(st.peer, 0);
    EXPECT_LT((st.up + st.down) * 10, st.naive);
  }
}

} // namespace

namespace {

// The worked example of docs/data-layer.md.
TEST(Generalised, DocsWorkedExample) {
  MapShape readA{1, -1, 3, 1, 0}, writeB{1, 0, 1, 1, 0};
  ArrayResidency A(3, 100), B(3, 100);
  A.mark_valid(2, footprint(readA, 30, 60, 100));
  EXPECT_EQ(A.valid(2), IntervalSet(29, 61));
  IntervalSet needed = footprint(readA, 40, 80, 100);
  EXPECT_EQ(needed, IntervalSet(39, 81));
  EXPECT_EQ(A.plan_upload(2, needed), IntervalSet(61, 81));
  EXPECT_EQ(paper::to_set(
                paper::alg1_upload(100, 2, {0.3, 0.3, 0.4}, {0.4, 0.4, 0.2})),
            IntervalSet(60, 80));
  A.mark_written(3, IntervalSet(70, 75));
  const int order[] = {kHost, 1, 3};
  auto ts = A.plan_fetch(2, needed, order);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts[0], (Transfer{kHost, 2, IntervalSet{{61, 70}, {75, 81}}}));
  EXPECT_EQ(ts[1], (Transfer{3, 2, IntervalSet(70, 75)}));

  IntervalSet w = footprint(writeB, 40, 80, 100);
  B.mark_written(2, w);
  IntervalSet wanted = incremental_download(w, footprint(writeB, 30, 60, 100));
  EXPECT_EQ(wanted, IntervalSet(60, 80));
  EXPECT_EQ(B.plan_download(2, wanted), IntervalSet(60, 80));
  EXPECT_EQ(
      paper::alg2_download(100, 2, {0.4, 0.4, 0.2}, {0.3, 0.3, 0.4}).case_no,
      2);
  B.mark_valid(kHost, IntervalSet(60, 80));
  EXPECT_EQ(B.host_stale(B.universe()), IntervalSet(40, 60));
}

} // namespace

// Copies in the background (DataEnv::prefetch): arriving elements are not
// valid until settled, and a write anywhere meanwhile -- by the host, by
// another device, by the holder itself -- or their invalidation or release
// there takes them out of what settling marks valid.
TEST(Residency, ArrivingCopiesCountOnlyWhatNobodyWroteMeanwhile) {
  ArrayResidency res(2, kW);
  const int gpu = 1, other = 2;
  res.start_arriving(gpu, IntervalSet(0, 60));
  EXPECT_FALSE(res.valid(gpu).overlaps(IntervalSet(0, 60))) << "valid before it landed";
  EXPECT_EQ(res.plan_upload(gpu, IntervalSet(0, 10)), IntervalSet(0, 10));
  res.mark_written(kHost, IntervalSet(0, 10));  // the host wrote them
  res.mark_written(other, IntervalSet(20, 30)); // another device did
  res.mark_written(gpu, IntervalSet(40, 45));   // (the holder itself)
  res.invalidate(gpu, IntervalSet(50, 55));
  IntervalSet expect(10, 20);
  expect.add(30, 40);
  expect.add(45, 50);
  expect.add(55, 60);
  EXPECT_EQ(res.arriving(gpu), expect);
  EXPECT_EQ(res.settle_arriving(gpu), expect);
  EXPECT_TRUE(res.arriving(gpu).empty());
  EXPECT_TRUE(res.valid(gpu).contains(IntervalSet(10, 20)));
  EXPECT_FALSE(res.valid(gpu).overlaps(IntervalSet(0, 10)));
  EXPECT_FALSE(res.valid(gpu).overlaps(IntervalSet(20, 30)));
  res.start_arriving(gpu, IntervalSet(60, 70));
  res.release(gpu);
  EXPECT_TRUE(res.settle_arriving(gpu).empty()) << "a released holder kept a copy";
}
