// Property test of the whole runtime: for every scheduler, on several device
// sets with random simulated-device speeds, for trip counts from 0 to
// ~200000 and for three footprint shapes (rows, a halo with an offset, a
// broadcast section), a hand-written region shaped like the translator's
// output must
//   * run every iteration exactly once (a per-iteration counter array mapped
//     tofrom, footprint scale 1 len 1, incremented by the variant),
//   * produce exactly the sequential reference on random data,
//   * leave every element outside its write footprint untouched, and
//   * account for every iteration in hce_last_iterations.
// Each configuration runs twice on the same site, so the second execution
// exercises what the scheduler learnt from the first.
#include "test_support.hpp"

#include "sched/scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

enum class Shape { Row, Halo, Broadcast };

const char *shape_name(Shape s) {
  switch (s) {
  case Shape::Row:
    return "row";
  case Shape::Halo:
    return "halo";
  case Shape::Broadcast:
    return "broadcast";
  }
  return "?";
}

struct Args {
  int64_t n; // row length
};

// The element functions, shared by the variants and the sequential reference
// so that the results must match bit for bit.
inline double row_f(const double *in, int64_t n, int64_t k, int64_t j) {
  return in[k * n + j] * 1.5 + double(k);
}
// Iteration k is row i = k + 2 (a loop `for (i = 2; i < W + 2; i++)`), which
// reads rows i-1 .. i+1: the map in[i-1:3][0:n] has scale n, offset n.
inline double halo_f(const double *in, int64_t n, int64_t k, int64_t j) {
  const int64_t i = k + 2;
  return in[(i - 1) * n + j] + 2.0 * in[i * n + j] + 3.0 * in[(i + 1) * n + j] +
         double(k);
}
inline double bcast_f(const double *in, const double *coef, int64_t n,
                      int64_t k) {
  double s = double(k);
  for (int64_t j = 0; j < n; ++j)
    s += in[k * n + j] * coef[j];
  return s;
}

// ptrs: 0 in, 1 out, 2 count, 3 coef (broadcast only).
void row_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
             void *) {
  const double *in = static_cast<const double *>(ptrs[0]);
  double *out = static_cast<double *>(ptrs[1]);
  int64_t *cnt = static_cast<int64_t *>(ptrs[2]);
  const int64_t n = static_cast<const Args *>(args)->n;
  for (int64_t k = lb; k < ub; ++k) {
    for (int64_t j = 0; j < n; ++j)
      out[k * n + j] = row_f(in, n, k, j);
    cnt[k] += 1;
  }
}

void halo_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
              void *) {
  const double *in = static_cast<const double *>(ptrs[0]);
  double *out = static_cast<double *>(ptrs[1]);
  int64_t *cnt = static_cast<int64_t *>(ptrs[2]);
  const int64_t n = static_cast<const Args *>(args)->n;
  for (int64_t k = lb; k < ub; ++k) {
    for (int64_t j = 0; j < n; ++j)
      out[(k + 2) * n + j] = halo_f(in, n, k, j);
    cnt[k] += 1;
  }
}

void bcast_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
               void *) {
  const double *in = static_cast<const double *>(ptrs[0]);
  double *out = static_cast<double *>(ptrs[1]);
  int64_t *cnt = static_cast<int64_t *>(ptrs[2]);
  const double *coef = static_cast<const double *>(ptrs[3]);
  const int64_t n = static_cast<const Args *>(args)->n;
  for (int64_t k = lb; k < ub; ++k) {
    out[k] = bcast_f(in, coef, n, k);
    cnt[k] += 1;
  }
}

hce_map make_map(const char *name, void *host, size_t elem, int kind,
                 int64_t scale, int64_t offset, int64_t len) {
  hce_map m{};
  m.name = name;
  m.host = host;
  m.elem_size = elem;
  m.kind = kind;
  m.scale = scale;
  m.offset = offset;
  m.len = len;
  m.blocks = 1;
  m.stride = 0;
  return m;
}

// One region instance with its data.  Every array has one padding element
// past its end (so that W = 0 still has real host pointers) which nobody may
// touch.
struct Instance {
  Shape shape;
  int64_t W, n;
  std::vector<double> in, out, out0, coef, expect;
  std::vector<int64_t> cnt;
  Args args;
  hce_map maps[4];
  hce_region region{};

  Instance(Shape s, int64_t w, int64_t row, const char *schedule,
           void **site, unsigned seed)
      : shape(s), W(w), n(row) {
    const int64_t rows_in = shape == Shape::Halo ? W + 3 : W;
    const int64_t out_len = shape == Shape::Broadcast ? W
                            : shape == Shape::Halo    ? (W + 3) * n
                                                      : W * n;
    in = hce_test::random_vector(size_t(rows_in * n + 1), seed);
    out0 = hce_test::random_vector(size_t(out_len + 1), seed + 1);
    coef = hce_test::random_vector(size_t(n + 1), seed + 2);
    cnt.assign(size_t(W + 1), 0);
    args.n = n;

    // The sequential reference; out starts as out0, so elements outside the
    // write footprint must keep their (random) value.
    expect = out0;
    for (int64_t k = 0; k < W; ++k) {
      switch (shape) {
      case Shape::Row:
        for (int64_t j = 0; j < n; ++j)
          expect[size_t(k * n + j)] = row_f(in.data(), n, k, j);
        break;
      case Shape::Halo:
        for (int64_t j = 0; j < n; ++j)
          expect[size_t((k + 2) * n + j)] = halo_f(in.data(), n, k, j);
        break;
      case Shape::Broadcast:
        expect[size_t(k)] = bcast_f(in.data(), coef.data(), n, k);
        break;
      }
    }

    const size_t d = sizeof(double);
    switch (shape) {
    case Shape::Row:
      maps[0] = make_map("in", in.data(), d, HCE_MAP_TO, n, 0, n);
      maps[1] = make_map("out", nullptr, d, HCE_MAP_FROM, n, 0, n);
      break;
    case Shape::Halo:
      maps[0] = make_map("in", in.data(), d, HCE_MAP_TO, n, n, 3 * n);
      maps[1] = make_map("out", nullptr, d, HCE_MAP_FROM, n, 2 * n, n);
      break;
    case Shape::Broadcast:
      maps[0] = make_map("in", in.data(), d, HCE_MAP_TO, n, 0, n);
      maps[1] = make_map("out", nullptr, d, HCE_MAP_FROM, 1, 0, 1);
      maps[3] = make_map("coef", coef.data(), d, HCE_MAP_TO, 0, 0, n);
      break;
    }
    maps[2] = make_map("cnt", cnt.data(), sizeof(int64_t), HCE_MAP_TOFROM, 1,
                       0, 1);
    region.name = "property";
    region.schedule = schedule;
    region.iterations = W;
    region.num_maps = shape == Shape::Broadcast ? 4 : 3;
    region.maps = maps;
    region.args = &args;
    region.args_size = sizeof args;
    region.cpu = shape == Shape::Row    ? row_cpu
                 : shape == Shape::Halo ? halo_cpu
                                        : bcast_cpu;
    region.site = site;
  }

  // Resets out and the counters before an execution.
  void reset() {
    out = out0;
    maps[1].host = out.data();
    std::fill(cnt.begin(), cnt.end(), 0);
  }

  // Checks one execution; returns false after the first failure.
  bool check() const {
    for (int64_t k = 0; k < W; ++k)
      if (cnt[size_t(k)] != 1) {
        ADD_FAILURE() << "iteration " << k << " ran " << cnt[size_t(k)]
                      << " times";
        return false;
      }
    if (cnt[size_t(W)] != 0) {
      ADD_FAILURE() << "padding of the counter array was written";
      return false;
    }
    for (size_t e = 0; e < expect.size(); ++e)
      if (out[e] != expect[e]) {
        ADD_FAILURE() << "out[" << e << "] = " << out[e] << ", expected "
                      << expect[e] << (e + 1 == expect.size() ? " (padding)" : "");
        return false;
      }
    return true;
  }
};

const std::vector<std::string> kDeviceSets = {"cpu", "cpu,sim:0",
                                              "cpu,sim:0,sim:1", "sim:0,sim:1"};

struct Param {
  std::string schedule;
  int devset;
};

// A readable GetParam() in test listings (ctest names come from them).
void PrintTo(const Param &p, std::ostream *os) {
  *os << p.schedule << " on " << kDeviceSets[size_t(p.devset)];
}

std::vector<Param> all_params() {
  std::vector<Param> out;
  for (const std::string &s : hce::scheduler_names())
    for (int d = 0; d < int(kDeviceSets.size()); ++d)
      out.push_back({s, d});
  return out;
}

class Property : public testing::TestWithParam<Param> {};

TEST_P(Property, EveryIterationOnceAndResultMatchesSequential) {
  const Param &p = GetParam();
  const std::string &devices = kDeviceSets[size_t(p.devset)];
  const int ndev = 1 + int(std::count(devices.begin(), devices.end(), ','));

  // Random speeds in [0.2, 1], fixed per configuration.
  std::mt19937 gen(unsigned(1000 + p.devset * 37 +
                            std::hash<std::string>{}(p.schedule) % 1000));
  std::uniform_real_distribution<double> speed(0.2, 1.0);
  std::ostringstream sim;
  for (int s = 0; s < 2; ++s)
    sim << (s ? ";" : "") << "sim:" << s << "=speed:" << speed(gen)
        << ",bw:1e11,lat:0";
  hce_test::use_devices(devices, sim.str());
  SCOPED_TRACE("HCE_DEVICES=" + devices + " HCE_SIM=" + sim.str());
  ASSERT_EQ(hce_num_devices(), ndev);

  std::vector<int64_t> trips = {0, 1};
  if (ndev > 2)
    trips.push_back(ndev - 1); // fewer iterations than devices
  trips.insert(trips.end(), {97, 1000, 200000});

  unsigned seed = 1;
  for (Shape shape : {Shape::Row, Shape::Halo, Shape::Broadcast}) {
    for (int64_t W : trips) {
      // Rows of 5 elements, and 1 (a cheap body) for the large trip count.
      const int64_t n = W > 10000 ? 1 : 5;
      std::ostringstream what;
      what << "shape=" << shape_name(shape) << " W=" << W << " n=" << n;
      SCOPED_TRACE(what.str());
      void *site = nullptr; // one site per (shape, W); lives in this runtime
      Instance inst(shape, W, n, p.schedule.c_str(), &site, seed += 3);
      for (int exec = 0; exec < 2; ++exec) {
        SCOPED_TRACE("execution " + std::to_string(exec + 1) + " of the site");
        inst.reset();
        ASSERT_EQ(hce_co_exec(&inst.region), 0);
        ASSERT_TRUE(inst.check());
        int64_t total = 0;
        for (int d = 0; d < hce_num_devices(); ++d)
          total += hce_last_iterations(&site, hce_device_name(d));
        ASSERT_EQ(total, W) << "hce_last_iterations over the devices";
      }
    }
  }
  hce_finalize(); // the sites above die with this runtime
}

INSTANTIATE_TEST_SUITE_P(
    AllSchedulersAndDeviceSets, Property, testing::ValuesIn(all_params()),
    [](const testing::TestParamInfo<Param> &info) {
      std::string dev = kDeviceSets[size_t(info.param.devset)];
      std::string name = info.param.schedule + "_";
      for (char c : dev)
        name += (c == ',' ? '_' : c == ':' ? '\0' : c);
      std::string clean;
      for (char c : name)
        if (c)
          clean += c;
      return clean;
    });

} // namespace
