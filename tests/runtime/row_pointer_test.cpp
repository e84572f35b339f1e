// Issue 13, point 7: arrays of row pointers (`float **rows`, each row
// allocated apart, as k-means and back-propagation codes hold their data),
// mapped with HCE_MAP_ROWS as `rows[i][c0:n]`.  The CPU works on the host
// rows; a simulated accelerator, like a GPU, gets its own copies of the rows
// it needs and a table of row pointers in its own (poisoned) memory, so a
// row that was not moved, or a table entry that points at the host, gives a
// wrong answer.  Random data against a sequential reference, on cpu + two
// simulated devices and on the simulated devices alone, every scheduler,
// with a check that the simulated devices did work.
#include "test_support.hpp"

#include "sched/scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

// Rows allocated one by one (in a shuffled order, so that neighbours are
// not neighbours in memory), or carved out of one block.
class Rows {
public:
  Rows(int64_t rows, int64_t width, unsigned seed, bool one_block)
      : width_(width), ptrs_(size_t(rows)) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    if (one_block) {
      block_.reset(new float[size_t(rows * width)]);
      for (int64_t r = 0; r < rows; ++r)
        ptrs_[size_t(r)] = block_.get() + r * width;
    } else {
      std::vector<int64_t> order(static_cast<size_t>(rows));
      for (int64_t r = 0; r < rows; ++r)
        order[size_t(r)] = r;
      std::shuffle(order.begin(), order.end(), gen);
      for (int64_t r : order) {
        owned_.emplace_back(new float[size_t(width)]);
        ptrs_[size_t(r)] = owned_.back().get();
      }
    }
    for (float *p : ptrs_)
      for (int64_t c = 0; c < width; ++c)
        p[c] = dist(gen);
  }
  float **table() { return ptrs_.data(); }
  std::vector<float> flat() const {
    std::vector<float> v;
    for (float *p : ptrs_)
      v.insert(v.end(), p, p + width_);
    return v;
  }
  void fill(const std::vector<float> &v) {
    for (size_t r = 0; r < ptrs_.size(); ++r)
      std::copy(v.begin() + long(r * size_t(width_)),
                v.begin() + long((r + 1) * size_t(width_)), ptrs_[r]);
  }

private:
  int64_t width_;
  std::vector<float *> ptrs_;
  std::unique_ptr<float[]> block_;
  std::vector<std::unique_ptr<float[]>> owned_;
};

hce_map rows_map(const char *name, float **rows, int kind, int64_t scale, int64_t len,
                 int64_t row_offset, int64_t row_len) {
  hce_map m{};
  m.name = name;
  m.host = rows;
  m.elem_size = sizeof(float);
  m.kind = kind | HCE_MAP_ROWS;
  m.scale = scale;
  m.offset = 0;
  m.len = len;
  m.blocks = 1;
  m.row_offset = row_offset;
  m.row_len = row_len;
  return m;
}

struct Args {
  int64_t nf, k, lo, width; // features, clusters, acc's section [lo, lo+width)
  float *const *host_feature = nullptr; // the host's table, to tell them apart
};

// What the variant saw: chunks that got a table other than the host's (on
// a simulated device), and rows of such a table that pointed at the host's
// rows (never allowed: a GPU cannot read them).
std::atomic<long> device_chunks{0}, aliased_rows{0};

void observe(float *const *feature, const Args *a, int64_t lb, int64_t ub) {
  if (feature == a->host_feature)
    return;
  ++device_chunks;
  for (int64_t i = lb; i < ub; ++i)
    if (feature[i] == a->host_feature[i])
      ++aliased_rows;
}

// One k-means assignment step plus an update of part of each row:
//   map(to: feature[i][0:nf], clusters[0:k][0:nf])
//   map(from: dist[i][0:k], member[i:1]) map(tofrom: acc[i][lo:width])
void assign_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  float *const *feature = static_cast<float *const *>(ptrs[0]);
  float *const *clusters = static_cast<float *const *>(ptrs[1]);
  float *const *dist = static_cast<float *const *>(ptrs[2]);
  int *member = static_cast<int *>(ptrs[3]);
  float *const *acc = static_cast<float *const *>(ptrs[4]);
  const Args *a = static_cast<const Args *>(args);
  observe(feature, a, lb, ub);
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i) {
    int best = 0;
    for (int64_t c = 0; c < a->k; ++c) {
      float d = 0;
      for (int64_t j = 0; j < a->nf; ++j) {
        float t = feature[i][j] - clusters[c][j];
        d += t * t;
      }
      dist[i][c] = d;
      if (d < dist[i][best])
        best = int(c);
    }
    member[i] = best;
    for (int64_t j = a->lo; j < a->lo + a->width; ++j)
      acc[i][j] = 0.5f * acc[i][j] + feature[i][j % a->nf];
  }
}

struct Data {
  Data(int64_t n, int64_t nf, int64_t k, int64_t accw, bool one_block)
      : feature(n, nf, 11, one_block), clusters(k, nf, 12, one_block),
        dist(n, k, 13, one_block), acc(n, accw, 14, one_block), member(size_t(n), -1) {}
  Rows feature, clusters, dist, acc;
  std::vector<int> member;
};

// The sequential reference on flattened copies.
void reference(Data &d, int64_t n, const Args &a, std::vector<float> &dist,
               std::vector<int> &member, std::vector<float> &acc, int64_t accw) {
  const std::vector<float> f = d.feature.flat(), cl = d.clusters.flat();
  dist = d.dist.flat();
  acc = d.acc.flat();
  member.assign(size_t(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    int best = 0;
    for (int64_t c = 0; c < a.k; ++c) {
      float s = 0;
      for (int64_t j = 0; j < a.nf; ++j) {
        float t = f[size_t(i * a.nf + j)] - cl[size_t(c * a.nf + j)];
        s += t * t;
      }
      dist[size_t(i * a.k + c)] = s;
      if (s < dist[size_t(i * a.k + best)])
        best = int(c);
    }
    member[size_t(i)] = best;
    for (int64_t j = a.lo; j < a.lo + a.width; ++j)
      acc[size_t(i * accw + j)] =
          0.5f * acc[size_t(i * accw + j)] + f[size_t(i * a.nf + j % a.nf)];
  }
}

void run_assign(bool one_block) {
  const int64_t n = 613, nf = 7, k = 5, accw = 12;
  for (const hce_test::SchedConfig &c : hce_test::every_scheduler()) {
    SCOPED_TRACE(c.label() + (one_block ? " (rows in one block)" : ""));
    hce_test::use_devices(c.devices, hce_test::kFastSims);
    setenv("HCE_MIN_SHARE", "0", 1);
    Data d(n, nf, k, accw, one_block);
    const Args args{nf, k, 3, 6, d.feature.table()};
    device_chunks = 0;
    aliased_rows = 0;
    void *site = nullptr;
    int64_t on_sims = 0;
    for (int rep = 0; rep < 2; ++rep) { // the second run uses what was learnt
      std::vector<float> ref_dist, ref_acc;
      std::vector<int> ref_member;
      reference(d, n, args, ref_dist, ref_member, ref_acc, accw);
      hce_map maps[5] = {
          rows_map("feature", d.feature.table(), HCE_MAP_TO, 1, 1, 0, nf),
          rows_map("clusters", d.clusters.table(), HCE_MAP_TO, 0, k, 0, nf),
          rows_map("dist", d.dist.table(), HCE_MAP_FROM | HCE_MAP_WRITES_ALL, 1, 1, 0, k),
          hce_test::row_map("member", d.member.data(), HCE_MAP_FROM, 1),
          rows_map("acc", d.acc.table(), HCE_MAP_TOFROM, 1, 1, args.lo, args.width)};
      maps[3].elem_size = sizeof(int);
      hce_region r{};
      r.name = "assign";
      r.schedule = c.schedule.c_str();
      r.iterations = n;
      r.num_maps = 5;
      r.maps = maps;
      r.args = &args;
      r.args_size = sizeof args;
      r.cpu = assign_cpu;
      r.site = &site;
      ASSERT_EQ(hce_co_exec(&r), 0);
      // Bit-identical: the same float operations in the same order.
      ASSERT_EQ(d.dist.flat(), ref_dist) << "execution " << rep;
      ASSERT_EQ(d.member, ref_member) << "execution " << rep;
      // Elements of acc outside [lo, lo + width) are untouched.
      ASSERT_EQ(d.acc.flat(), ref_acc) << "execution " << rep;
      on_sims += hce_test::sim_iterations(&site);
      // New features for the next execution: nothing may be left stale.
      std::vector<float> f = d.feature.flat();
      for (float &x : f)
        x = -0.5f * x + 0.25f;
      d.feature.fill(f);
    }
    if (c.sims_must_work()) {
      EXPECT_GT(on_sims, 0) << "no simulated device did any work";
      EXPECT_GT(device_chunks.load(), 0) << "no chunk got a device table";
    }
    EXPECT_EQ(aliased_rows.load(), 0) << "a device table pointed at host rows";
    unsetenv("HCE_MIN_SHARE");
  }
}

TEST(RowPointers, KmeansAssignRowsAllocatedApart) { run_assign(false); }

TEST(RowPointers, KmeansAssignRowsInOneBlock) { run_assign(true); }

// The rows stay on the devices across the executions of a data region
// (map(to: feature[0:n][0:nf]) around the loops); the tables are built once
// per window.
TEST(RowPointers, DataRegionKeepsRowsOnDevices) {
  const int64_t n = 401, nf = 5, k = 4, accw = 9;
  hce_test::use_devices("sim:0,sim:1", hce_test::kFastSims);
  setenv("HCE_MIN_SHARE", "0", 1);
  Data d(n, nf, k, accw, false);
  const Args args{nf, k, 0, accw, d.feature.table()};
  aliased_rows = 0;
  hce_map whole = rows_map("feature", d.feature.table(), HCE_MAP_TO, 0, n, 0, nf);
  ASSERT_EQ(hce_data_begin(1, &whole), 0);
  void *site = nullptr;
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<float> ref_dist, ref_acc;
    std::vector<int> ref_member;
    reference(d, n, args, ref_dist, ref_member, ref_acc, accw);
    hce_map maps[5] = {
        rows_map("feature", d.feature.table(), HCE_MAP_TO, 1, 1, 0, nf),
        rows_map("clusters", d.clusters.table(), HCE_MAP_TO, 0, k, 0, nf),
        rows_map("dist", d.dist.table(), HCE_MAP_FROM | HCE_MAP_WRITES_ALL, 1, 1, 0, k),
        hce_test::row_map("member", d.member.data(), HCE_MAP_FROM, 1),
        rows_map("acc", d.acc.table(), HCE_MAP_TOFROM, 1, 1, 0, accw)};
    maps[3].elem_size = sizeof(int);
    hce_region r{};
    r.name = "assign_in_data";
    r.schedule = "static";
    r.iterations = n;
    r.num_maps = 5;
    r.maps = maps;
    r.args = &args;
    r.args_size = sizeof args;
    r.cpu = assign_cpu;
    r.site = &site;
    ASSERT_EQ(hce_co_exec(&r), 0);
    ASSERT_EQ(d.dist.flat(), ref_dist) << "execution " << rep;
    ASSERT_EQ(d.member, ref_member) << "execution " << rep;
    ASSERT_EQ(d.acc.flat(), ref_acc) << "execution " << rep;
    EXPECT_GT(hce_test::sim_iterations(&site), 0);
  }
  ASSERT_EQ(hce_data_end(), 0);
  EXPECT_EQ(aliased_rows.load(), 0) << "a device table pointed at host rows";
  unsetenv("HCE_MIN_SHARE");
}

void noop_cpu(int64_t, int64_t, void *const *, const void *, void *) {}

// Errors, not wrong answers: a written section every iteration shares, an
// empty row section.
TEST(RowPointers, BadRowMapsAreErrors) {
  hce_test::use_devices("sim:0", hce_test::kFastSims);
  Rows rows(10, 4, 3, false);
  float **t = rows.table();
  hce_region r{};
  r.name = "bad";
  r.iterations = 10;
  r.num_maps = 1;
  r.cpu = noop_cpu;
  hce_map m{};
  r.maps = &m;
  m = rows_map("rows", t, HCE_MAP_TOFROM, 0, 10, 0, 4);
  EXPECT_NE(hce_co_exec(&r), 0) << "a written section shared by every iteration";
  m = rows_map("rows", t, HCE_MAP_TO, 1, 1, 0, 0);
  EXPECT_NE(hce_co_exec(&r), 0) << "an empty row section";
  m = rows_map("rows", t, HCE_MAP_TO, 1, 1, 0, 4);
  EXPECT_EQ(hce_co_exec(&r), 0);
}

} // namespace
