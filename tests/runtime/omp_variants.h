/* Hand-written OpenMP-offload variants for the omp:N tests
 * (omp_offload_tests.cpp), shaped like the translator's output
 * (translator/OffloadVariantEmitter.cpp): hce_omp_variant signature,
 * `omp target teams distribute parallel for device(dev)` on the device
 * pointers in ptrs (biased: element e of an array is at ptrs[m] + e), args
 * and red in host memory.  Compiled with -fopenmp-targets=... (host offload
 * in CI, x86_64-pc-linux-gnu). */
#ifndef HCE_TEST_OMP_VARIANTS_H
#define HCE_TEST_OMP_VARIANTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* args of the row-wise loops: the row length. */
struct hce_test_row_args {
  int64_t n;
};

/* C[i*n + j] = A[i*n + j] + B[i*n + j] for rows i in [lb, ub). */
int hce_test_matadd_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                        void *red, int dev);
/* red[0] (double) += sum of x[lb, ub). */
int hce_test_sum_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                     void *red, int dev);
/* red[0] (int64) = max, red[1] (double) *= product of (1 + x/64). */
int hce_test_maxprod_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                         void *red, int dev);
/* Jacobi rows i = k + 1: b[i] = (a[i-1] + a[i] + a[i+1]) / 3. */
int hce_test_sweep_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                       void *red, int dev);
/* a[i] = b[i], i = k + 1. */
int hce_test_copy_back_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                           void *red, int dev);
/* Always returns 7 (a failing device). */
int hce_test_failing_omp(int64_t lb, int64_t ub, void *const *ptrs, const void *args,
                         void *red, int dev);
/* omp_get_num_devices() as the variants see it. */
int hce_test_omp_num_devices(void);

#ifdef __cplusplus
}
#endif

#endif
