/* Hand-written OpenMP-offload variants (see omp_variants.h). */
#include "omp_variants.h"

#include <omp.h>

#define CHECK_DEVICE(dev)                                                                \
  do {                                                                                   \
    if ((dev) < 0 || (dev) >= omp_get_num_devices())                                     \
      return 1;                                                                          \
  } while (0)

int hce_test_matadd_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                        void *red, int dev) {
  (void)red;
  if (ub <= lb)
    return 0;
  CHECK_DEVICE(dev);
  const double *A = (const double *)ptrs[0];
  const double *B = (const double *)ptrs[1];
  double *C = (double *)ptrs[2];
  const int64_t n = ((const struct hce_test_row_args *)args)->n;
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(A, B, C)      \
    firstprivate(n)
  for (int64_t i = lb; i < ub; ++i)
    for (int64_t j = 0; j < n; ++j)
      C[i * n + j] = A[i * n + j] + B[i * n + j];
  return 0;
}

int hce_test_sum_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                     void *red, int dev) {
  (void)args;
  if (ub <= lb)
    return 0;
  CHECK_DEVICE(dev);
  const double *x = (const double *)ptrs[0];
  double s = *(double *)red;
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(x) map(tofrom: s) reduction(+: s)
  for (int64_t i = lb; i < ub; ++i)
    s += x[i];
  *(double *)red = s;
  return 0;
}

int hce_test_maxprod_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                         void *red, int dev) {
  (void)args;
  if (ub <= lb)
    return 0;
  CHECK_DEVICE(dev);
  const double *x = (const double *)ptrs[0];
  int64_t mx = *(int64_t *)red;
  double prod = *(double *)((char *)red + 8);
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(x) map(tofrom: mx, prod) reduction(max: mx) reduction(*: prod)
  for (int64_t i = lb; i < ub; ++i) {
    int64_t v = (int64_t)(x[i] * 1000.0);
    mx = v > mx ? v : mx;
    prod *= 1.0 + x[i] / 64.0;
  }
  *(int64_t *)red = mx;
  *(double *)((char *)red + 8) = prod;
  return 0;
}

int hce_test_sweep_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                       void *red, int dev) {
  (void)red;
  if (ub <= lb)
    return 0;
  CHECK_DEVICE(dev);
  const double *a = (const double *)ptrs[0];
  double *b = (double *)ptrs[1];
  const int64_t n = ((const struct hce_test_row_args *)args)->n;
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b)         \
    firstprivate(n)
  for (int64_t k = lb; k < ub; ++k) {
    const int64_t i = k + 1;
    for (int64_t j = 0; j < n; ++j)
      b[i * n + j] = (a[(i - 1) * n + j] + a[i * n + j] + a[(i + 1) * n + j]) / 3.0;
  }
  return 0;
}

int hce_test_copy_back_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                           void *red, int dev) {
  (void)red;
  if (ub <= lb)
    return 0;
  CHECK_DEVICE(dev);
  double *a = (double *)ptrs[0];
  const double *b = (const double *)ptrs[1];
  const int64_t n = ((const struct hce_test_row_args *)args)->n;
#pragma omp target teams distribute parallel for device(dev) is_device_ptr(a, b)         \
    firstprivate(n)
  for (int64_t k = lb; k < ub; ++k)
    for (int64_t j = 0; j < n; ++j)
      a[(k + 1) * n + j] = b[(k + 1) * n + j];
  return 0;
}

int hce_test_failing_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                         void *red, int dev) {
  (void)lb, (void)ub, (void)ptrs, (void)args, (void)red, (void)dev;
  return 7;
}

int hce_test_omp_num_devices(void) { return omp_get_num_devices(); }
