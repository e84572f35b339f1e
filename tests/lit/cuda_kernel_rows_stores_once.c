// Statements before the inner loop that read an array they store to (LU's
// row update: l = A[i][k] / p; A[i][k] = l) still get the "rows" kernel when
// each such store is a statement of its own: a row is one block, every
// thread runs the other statements, and thread 0 alone runs the store,
// between two barriers (every thread has read l's inputs before it, and
// reads what it stored after it).  The CPU variant keeps the outer loop.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu -v 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file %t.cu
// The host file still computes the right result (mock runtime, CPU variant):
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %clang -fsyntax-only -fopenmp -Wall -Werror -DHCE_HAVE_CUDA_VARIANTS -I%hce-include %t.c
// RUN: %if nvcc %{ %nvcc -Werror all-warnings -c %t.cu -o %t.cu.o %}

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void lu_step(int N, int k, double *A, const double *piv) {
#pragma hce co_exec map(tofrom: A[i*N+k:N-k]) map(to: piv[k:N-k])
#pragma omp parallel for
  for (int i = k + 1; i < N; i++) {
    double l = A[(long)i * N + k] / piv[k];
    A[(long)i * N + k] = l;
    for (int j = k + 1; j < N; j++)
      A[(long)i * N + j] -= l * piv[j];
  }
}
// REMARK: cuda_kernel_rows_stores_once.c:[[@LINE-7]]:3: remark: the CPU variant parallelises the outer loop only: the statements before the inner loop read 'A', which they write

// CHECK: /* Kernel shape: rows. One outer iteration per block row, the inner loop 'j' (line 26) over blockIdx.y * blockDim.x + threadIdx.x: the inner loop provably carries no dependence; the statements before it read 'A', which they store to: one block per row, the stores by its thread 0 between barriers. */
// CHECK: {{^}}    int i = (int)(__hce_init + __hce_k * __hce_step);
// CHECK-NEXT: {{^}}    {
// CHECK-NEXT: {{^}}#line 24 "{{.*}}cuda_kernel_rows_stores_once.c"
// CHECK-NEXT: {{^}}    double l = A[(long)i * N + k] / piv[k];
// CHECK-NEXT: {{^}}      __syncthreads();
// CHECK-NEXT: {{^}}      if (threadIdx.x == 0) {
// CHECK-NEXT: {{^}}#line 25 "{{.*}}cuda_kernel_rows_stores_once.c"
// CHECK-NEXT: {{^}}    A[(long)i * N + k] = l;
// CHECK-NEXT: {{^}}      }
// CHECK-NEXT: {{^}}      __syncthreads();
// CHECK-NEXT: {{^}}#line 26 "{{.*}}cuda_kernel_rows_stores_once.c"
// CHECK-NEXT: {{^}}      for (int j = (int)((k + 1) + (int64_t)(blockIdx.y * blockDim.x + threadIdx.x) * 1); j < (N); j += (int)((int64_t)(gridDim.y * blockDim.x) * 1))
// The launcher and the wave function: one row per block, one block per row,
// so that every thread of a block reaches both barriers.
// CHECK: {{^}}extern "C" int __hce_cuda_0_
// CHECK: {{^}}    __hce_by = __hce_threads / __hce_bx;
// CHECK: {{^}}  __hce_by = 1; /* one block per row: its stores between barriers */
// CHECK-NEXT: {{^}}  __hce_gy = 1;
// CHECK: {{^}}  const dim3 __hce_grid((unsigned)__hce_blocks, (unsigned)__hce_gy), __hce_block(__hce_bx, __hce_by);
// CHECK: {{^}}extern "C" int64_t __hce_cuda_wave_0_{{[0-9a-f]+}}(const void *__hce_args, int __hce_sms) {
// CHECK: {{^}}  __hce_by = 1; /* one block per row: its stores between barriers */
// CHECK-NEXT: {{^}}  __hce_gy = 1;

/* Two stores, one a compound assignment, around a read of the first. */
static void normalise(int M, int N, double *A, double *S) {
#pragma hce co_exec map(tofrom: A[i*N:N], S[i:1])
  for (int i = 0; i < M; i++) {
    double s = A[i * N] + S[i];
    A[i * N] = s;
    S[i] += A[i * N];
    for (int j = 1; j < N; j++)
      A[i * N + j] /= s;
  }
}
// REMARK: cuda_kernel_rows_stores_once.c:[[@LINE-8]]:3: remark: the CPU variant parallelises the outer loop only: the statements before the inner loop read '{{A|S}}', which they write
// CHECK: /* Kernel shape: rows. {{.*}}; the statements before it read '{{A|S}}', which they store to: {{.*}} */
// CHECK: {{^}}      if (threadIdx.x == 0) {
// CHECK-NEXT: {{^}}#line 61 "{{.*}}cuda_kernel_rows_stores_once.c"
// CHECK-NEXT: {{^}}    A[i * N] = s;
// CHECK: {{^}}      if (threadIdx.x == 0) {
// CHECK-NEXT: {{^}}#line 62 "{{.*}}cuda_kernel_rows_stores_once.c"
// CHECK-NEXT: {{^}}    S[i] += A[i * N];

/* Sizes from the command line for the GPU checks (hce-cc build, HCE_DEVICES
   =cuda:0; M over 65535 rows runs the kernel's grid-stride loop). */
int main(int argc, char **argv) {
  const int N = argc > 1 ? atoi(argv[1]) : 37, M = argc > 2 ? atoi(argv[2]) : 23;
  double *A = malloc((size_t)N * N * sizeof *A), *R = malloc((size_t)N * N * sizeof *R),
         *piv = malloc(N * sizeof *piv);
  unsigned long long st = 12345;
  for (long e = 0; e < (long)N * N; e++) {
    st = st * 6364136223846793005ULL + 1442695040888963407ULL;
    A[e] = R[e] = 1.0 + (double)(st >> 11) / 9007199254740992.0 + (e % (N + 1) == 0 ? N : 0);
  }
  for (int k = 0; k < N - 1; k++) {
    for (int j = k; j < N; j++)
      piv[j] = A[(long)k * N + j];
    lu_step(N, k, A, piv);
    for (int i = k + 1; i < N; i++) { /* the sequential reference */
      double l = R[(long)i * N + k] / R[(long)k * N + k];
      R[(long)i * N + k] = l;
      for (int j = k + 1; j < N; j++)
        R[(long)i * N + j] -= l * R[(long)k * N + j];
    }
  }
  /* (a GPU's kernel may fuse l * piv[j] into the subtraction: the last bits) */
  size_t bad = 0, bad_lu = 0;
  for (long e = 0; e < (long)N * N; e++)
    bad_lu += fabs(A[e] - R[e]) > 1e-9 * (1.0 + fabs(R[e]));
  double *B = malloc((size_t)M * N * sizeof *B), *S = malloc(M * sizeof *S),
         *T = malloc((size_t)M * N * sizeof *T);
  for (long e = 0; e < (long)M * N; e++)
    B[e] = T[e] = 1.0 + e % 11;
  for (int i = 0; i < M; i++)
    S[i] = i;
  normalise(M, N, B, S);
  for (int i = 0; i < M; i++) {
    double s = T[(long)i * N] + i;
    bad += B[(long)i * N] != s || S[i] != i + s;
    for (int j = 1; j < N; j++)
      bad += B[(long)i * N + j] != T[(long)i * N + j] / s;
  }
  if (bad_lu || bad)
    printf("lu: %zu wrong, normalise: %zu wrong\n", bad_lu, bad);
  printf("cuda_kernel_rows_stores_once: %s\n", bad_lu || bad ? "WRONG" : "ok");
  return bad_lu || bad;
}

// EXEC: cuda_kernel_rows_stores_once: ok
