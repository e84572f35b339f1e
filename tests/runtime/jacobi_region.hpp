// A Jacobi sweep over rows with a one-row halo, repeated inside a data
// region: the access pattern of Jacobi-2D, FDTD and Heat-3D.  Shared by the
// data-layer tests of every device kind (sim, cuda, omp): the CPU variants,
// the sequential reference, and a driver that runs the steps and adds up the
// bytes the devices moved.
#pragma once

#include "runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace hce_test::jacobi {

// The captured scalars: the same layout as the device variants' argument
// blocks (RowArgs in cuda_variants.hpp, hce_test_row_args in omp_variants.h).
struct Args {
  int64_t n; // row length
};

// b[i] = (a[i-1] + a[i] + a[i+1]) / 3 row-wise, for i = 1 .. M-2 (k = i-1).
inline void sweep_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                      void *) {
  const double *a = static_cast<const double *>(ptrs[0]);
  double *b = static_cast<double *>(ptrs[1]);
  const int64_t n = static_cast<const Args *>(args)->n;
#pragma omp parallel for
  for (int64_t k = lb; k < ub; ++k) {
    int64_t i = k + 1;
    for (int64_t j = 0; j < n; ++j)
      b[i * n + j] = (a[(i - 1) * n + j] + a[i * n + j] + a[(i + 1) * n + j]) / 3.0;
  }
}

// a[i] = b[i] for i = 1 .. M-2.
inline void copy_back_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                          void *) {
  double *a = static_cast<double *>(ptrs[0]);
  const double *b = static_cast<const double *>(ptrs[1]);
  const int64_t n = static_cast<const Args *>(args)->n;
#pragma omp parallel for
  for (int64_t k = lb; k < ub; ++k)
    for (int64_t j = 0; j < n; ++j)
      a[(k + 1) * n + j] = b[(k + 1) * n + j];
}

inline std::vector<double> reference(std::vector<double> a, int64_t m, int64_t n,
                                     int steps) {
  std::vector<double> b = a;
  for (int t = 0; t < steps; ++t) {
    for (int64_t i = 1; i < m - 1; ++i)
      for (int64_t j = 0; j < n; ++j)
        b[size_t(i * n + j)] = (a[size_t((i - 1) * n + j)] + a[size_t(i * n + j)] +
                                a[size_t((i + 1) * n + j)]) /
                               3.0;
    for (int64_t i = 1; i < m - 1; ++i)
      for (int64_t j = 0; j < n; ++j)
        a[size_t(i * n + j)] = b[size_t(i * n + j)];
  }
  return a;
}

// Accelerator variants of the two kernels (NULL: that kind has none).
struct Variants {
  hce_cuda_variant sweep_cuda = nullptr, copy_cuda = nullptr;
  hce_omp_variant sweep_omp = nullptr, copy_omp = nullptr;
};

// Bytes moved over every region of the runtime, and the sweep iterations run
// by devices whose name starts with `accel_prefix`.
struct Moved {
  uint64_t to = 0, from = 0, peer = 0, avoided = 0;
  int64_t accel_iterations = 0;
};

// Runs `steps` sweeps + copy-backs inside hce_data_begin/hce_data_end with
// the given schedule and CO mode (NULL: the defaults).
inline Moved run(std::vector<double> &a, int64_t m, int64_t n, int steps,
                 const char *schedule, const char *co = nullptr, const Variants &v = {},
                 const char *accel_prefix = "") {
  std::vector<double> b = a;
  Args args{n};
  hce_map data_maps[2] = {
      {"a", a.data(), sizeof(double), HCE_MAP_TOFROM, 0, 0, m * n, 1, 0},
      {"b", b.data(), sizeof(double), HCE_MAP_TOFROM, 0, 0, m * n, 1, 0}};
  // Iteration k is row i = k+1: footprint of a is rows i-1..i+1, of b row i.
  hce_map sweep_maps[2] = {{"a", a.data(), sizeof(double), HCE_MAP_TO, n, 0, 3 * n, 1, 0},
                           {"b", b.data(), sizeof(double), HCE_MAP_FROM, n, n, n, 1, 0}};
  hce_map copy_maps[2] = {{"a", a.data(), sizeof(double), HCE_MAP_FROM, n, n, n, 1, 0},
                          {"b", b.data(), sizeof(double), HCE_MAP_TO, n, n, n, 1, 0}};
  // Static slots: the runtime keys what it learns by the slot's address.
  static void *site1, *site2;
  site1 = site2 = nullptr;
  hce_region r1{}, r2{};
  r1.name = "jacobi_sweep";
  r2.name = "jacobi_copy";
  for (hce_region *r : {&r1, &r2}) {
    r->schedule = schedule;
    r->co = co;
    r->iterations = m - 2;
    r->num_maps = 2;
    r->args = &args;
    r->args_size = sizeof args;
  }
  r1.maps = sweep_maps;
  r1.cpu = sweep_cpu;
  r1.cuda = v.sweep_cuda;
  r1.omp = v.sweep_omp;
  r1.site = &site1;
  r2.maps = copy_maps;
  r2.cpu = copy_back_cpu;
  r2.cuda = v.copy_cuda;
  r2.omp = v.copy_omp;
  r2.site = &site2;
  Moved moved;
  EXPECT_EQ(hce_data_begin(2, data_maps), 0);
  for (int t = 0; t < steps; ++t) {
    EXPECT_EQ(hce_co_exec(&r1), 0);
    EXPECT_EQ(hce_co_exec(&r2), 0);
    if (*accel_prefix)
      for (int d = 0; d < hce_num_devices(); ++d)
        if (std::strncmp(hce_device_name(d), accel_prefix, std::strlen(accel_prefix)) ==
            0)
          moved.accel_iterations += hce_last_iterations(&site1, hce_device_name(d));
  }
  EXPECT_EQ(hce_data_end(), 0);
  for (const hce::SiteState *s : hce::Runtime::get().sites())
    for (const auto &[name, d] : s->stats.devices) {
      moved.to += d.bytes_to_device;
      moved.from += d.bytes_from_device;
      moved.peer += d.bytes_peer;
      moved.avoided += d.bytes_avoided;
    }
  return moved;
}

// Index of the first element that differs from the reference by more than a
// relative 1e-12 (nvcc contracts multiply-adds), or -1.
inline int64_t first_mismatch(const std::vector<double> &x,
                              const std::vector<double> &ref) {
  for (size_t k = 0; k < x.size(); ++k)
    if (!(std::fabs(x[k] - ref[k]) <= 1e-12 * (1 + std::fabs(ref[k]))))
      return int64_t(k);
  return -1;
}

} // namespace hce_test::jacobi
