// Loops whose inner iterations may depend on each other keep the 1-D
// kernel (one GPU thread per outer iteration); the .cu says why in a
// comment, and nothing is reported to the user.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu 2>&1 | count 0
// RUN: FileCheck %s --input-file %t.cu
// RUN: %if nvcc %{ %nvcc -c %t.cu -o %t.cu.o %}

void carried(int M, int N, double *A) {
#pragma hce co_exec map(tofrom: A[i*N:N])
  for (int i = 0; i < M; i++)
    for (int j = 1; j < N; j++)
      A[i * N + j] = A[i * N + j - 1] + 1.0; /* prefix sum along the row */
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the inner loop reads 'A' at an index other than the one it writes (a carried dependence). */
// CHECK-NEXT: __global__
// CHECK: {{^}}  for (int64_t __hce_k = __hce_lb + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
// CHECK: {{^}}  __hce_kernel_0<<<(unsigned)__hce_blocks, __hce_threads, 0, __hce_s>>>(
// Its wave (hce_region::cuda_wave): resident blocks of one iteration a thread.
// CHECK: {{^}}extern "C" int64_t __hce_cuda_wave_0_{{[0-9a-f]+}}(const void *__hce_args, int __hce_sms) {
// CHECK: {{^}}  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&__hce_per_sm, __hce_kernel_0, (int)__hce_threads, 0) != cudaSuccess) {
// CHECK: {{^}}  return (int64_t)__hce_per_sm * __hce_sms * __hce_threads;

void same_element(int M, int N, const double *A, double *r) {
#pragma hce co_exec map(to: A[i*N:N]) map(tofrom: r[i:1])
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      r[i] = r[i] * 0.5 + A[i * N + j];
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: a written index does not depend on 'j' (iterations write the same element). */

void carried_scalar(int M, int N, const double *A, double *B) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: B[i*N:N])
  for (int i = 0; i < M; i++) {
    double run = 0.0;
    for (int j = 0; j < N; j++) {
      run += A[i * N + j];
      B[i * N + j] = run;
    }
  }
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the inner loop reads 'run', declared before it, which it updates. */

void early_exit(int M, int N, const double *A, double *B) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: B[i*N:N])
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      if (A[i * N + j] < 0)
        break;
      B[i * N + j] = A[i * N + j];
    }
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the inner loop has a 'break'. */

/* A statement after the inner loop that leaves the outer iteration: thread
   0 would skip the barrier the row's other threads wait at
   (cuda_kernel_rows_reduce.c has the suffixes that get the rows kernel). */
void after_inner_continue(int M, int N, const double *A, double *B, double *rs) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: B[i*N:N], rs[i:1])
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++)
      B[i * N + j] = A[i * N + j];
    if (B[i * N] < 0)
      continue;
    rs[i] = B[i * N];
  }
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: a statement after the inner loop leaves the outer iteration early. */

/* A floating-point sum: combining a row's shares would reassociate it,
   which needs the user's leave (a reduction clause of its operator). */
void row_sum(int M, int N, const double *A, double *rs) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: rs[i:1])
  for (int i = 0; i < M; i++) {
    double s = 0.0;
    for (int j = 0; j < N; j++)
      s += A[i * N + j];
    rs[i] = s;
  }
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the inner loop accumulates into 's' (floating point): combining a row's shares would reassociate it; a 'reduction(+: s)' clause on an OpenMP directive on the inner loop allows it. */

void row_sum_other_op(int M, int N, const double *A, double *rs) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: rs[i:1])
  for (int i = 0; i < M; i++) {
    double s = 1.0;
#pragma omp simd reduction(+ : s)
    for (int j = 0; j < N; j++)
      s *= A[i * N + j];
    rs[i] = s;
  }
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the inner loop accumulates into 's' (floating point): combining a row's shares would reassociate it; a 'reduction(*: s)' clause on an OpenMP directive on the inner loop allows it. */

/* Two operators on one accumulator. */
void mixed_ops(int M, int N, const long *A, long *rs) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: rs[i:1])
  for (int i = 0; i < M; i++) {
    long s = 1;
    for (int j = 0; j < N; j++) {
      s += A[i * N + j];
      s *= 3;
    }
    rs[i] = s;
  }
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the inner loop updates 's' with two different operators. */

/* The store that the row's threads read before is not a statement of its
   own (cuda_kernel_rows_stores_once.c): every thread would run it. */
void lu_row_guarded(int N, int k, double *A, const double *piv) {
#pragma hce co_exec map(tofrom: A[i*N+k:N-k]) map(to: piv[k:N-k])
  for (int i = k + 1; i < N; i++) {
    double l = A[i * N + k] / piv[k];
    if (l != 0)
      A[i * N + k] = l;
    for (int j = k + 1; j < N; j++)
      A[i * N + j] -= l * piv[j];
  }
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the statements before the inner loop read 'A', which they write. */

/* A store whose right-hand side writes a local: thread 0 alone would. */
void lu_row_side_effect(int N, int k, double *A, const double *piv) {
#pragma hce co_exec map(tofrom: A[i*N+k:N-k]) map(to: piv[k:N-k])
  for (int i = k + 1; i < N; i++) {
    double l = A[i * N + k] / piv[k], m = 0;
    A[i * N + k] = (m = l);
    for (int j = k + 1; j < N; j++)
      A[i * N + j] -= m * piv[j];
  }
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the statements before the inner loop read 'A', which they write. */

/* The inner loop reads the element the statements before it store. */
void lu_row_reads_store(int N, int k, double *A, const double *piv) {
#pragma hce co_exec map(tofrom: A[i*N+k:N-k]) map(to: piv[k:N-k])
  for (int i = k + 1; i < N; i++) {
    double l = A[i * N + k] / piv[k];
    A[i * N + k] = l;
    for (int j = k + 1; j < N; j++)
      A[i * N + j] -= A[i * N + k] * piv[j];
  }
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the inner loop reads 'A', written before it. */

void overlap(int M, int N, const double *A, double *B) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: B[i*N:N])
  for (int i = 0; i < M; i++) {
    B[i * N + 1] = 0.0; /* the inner loop writes it again */
    for (int j = 0; j < N; j++)
      B[i * N + j] = A[i * N + j];
  }
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the statements before the inner loop access 'B', which the inner loop may write at the same element. */

void unsafe_simd(int M, int N, double *A) {
#pragma hce co_exec map(tofrom: A[i*N:N])
  for (int i = 0; i < M; i++) {
#pragma omp simd safelen(4)
    for (int j = 4; j < N; j++)
      A[i * N + j] += A[i * N + j - 4];
  }
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the inner loop reads 'A' at an index other than the one it writes (a carried dependence). */

void triangle_overlap(int M, int N, double *B) {
#pragma hce co_exec map(tofrom: B[i*N*N:N*N])
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k <= N; k++)   /* rows overlap by one element */
        B[(long)i * N * N + j * N + k] = 1.0;
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: cannot show that different inner iterations write different elements. */
