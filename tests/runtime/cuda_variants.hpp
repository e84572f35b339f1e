// Hand-written CUDA variants (cuda_variants.cu) used by cuda_test.cpp; only
// linked when the tests are built with nvcc (HCE_TEST_CUDA_VARIANTS).
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// args of the row-wise variants: the row length.
typedef struct HceTestRowArgs {
  int64_t n;
} HceTestRowArgs;

// matrix addition over rows: ptrs = {A, B, C}.
int hce_test_matadd_cuda(int64_t lb, int64_t ub, void *const *ptrs,
                         const void *args, void *red, void *stream);
// sum of x[lb, ub) into reduction slot 0 (double): ptrs = {x}.
int hce_test_sum_cuda(int64_t lb, int64_t ub, void *const *ptrs,
                      const void *args, void *red, void *stream);
// Jacobi-1D-over-rows sweep (b from a) and copy back (a from b), row i = k+1.
int hce_test_sweep_cuda(int64_t lb, int64_t ub, void *const *ptrs,
                        const void *args, void *red, void *stream);
int hce_test_copy_back_cuda(int64_t lb, int64_t ub, void *const *ptrs,
                            const void *args, void *red, void *stream);
// Always fails (returns 7): the runtime must re-run its chunks on the CPU.
int hce_test_failing_cuda(int64_t lb, int64_t ub, void *const *ptrs,
                          const void *args, void *red, void *stream);
// cudaGetDeviceCount, 0 on error.
int hce_test_cuda_device_count(void);

#ifdef __cplusplus
}
#endif
