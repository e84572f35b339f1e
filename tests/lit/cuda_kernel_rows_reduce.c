// A prefix local that the inner loop only accumulates into (a row
// reduction) and statements after the inner loop (a suffix) still get the
// "rows" kernel: a row is one block, every thread accumulates its share from
// the operator's identity, the block combines the shares in shared memory,
// and thread 0 folds them into the prefix's value and runs the suffix.  A
// floating-point accumulation is reassociated only with the user's leave, a
// `reduction` clause on the inner loop (cuda_kernel_1d.c has the loops
// without it); an integer one needs none.  The CPU variant keeps the outer
// loop.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu -v 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file %t.cu
// The host file still computes the right result (mock runtime, CPU variant):
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -Wno-pass-failed -DHCE_HAVE_CUDA_VARIANTS -I%hce-include %t.c
// RUN: %if nvcc %{ %nvcc -Werror all-warnings -c %t.cu -o %t.cu.o %}
// hce-cc builds it under -Werror: the inner `omp simd` over sqrt does not
// vectorise in the outlined variant (errno), which is not the user's warning.
// RUN: %hce-cc -O2 -Wall -Wextra -Werror %s -o %t.hce -lm
// RUN: %t.hce | FileCheck %s --check-prefix=EXEC

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* All-pairs forces (nbody's): three sums over j, then the row's update. */
static void forces(int n, const double *pos, double *vel) {
#pragma hce co_exec map(to: pos[0:4*n]) map(tofrom: vel[2*i:2])
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    double ax = 0.0, ay = 1.0;
    const double xi = pos[4 * i], yi = pos[4 * i + 1];
#pragma omp simd reduction(+ : ax, ay)
    for (int j = 0; j < n; j++) {
      double dx = pos[4 * j] - xi, dy = pos[4 * j + 1] - yi;
      double inv = 1.0 / sqrt(dx * dx + dy * dy + 0.01);
      ax += pos[4 * j + 3] * dx * inv;
      ay -= pos[4 * j + 3] * dy * inv;
    }
    vel[2 * i] += 0.5 * ax;
    vel[2 * i + 1] = ay;
  }
}
// REMARK: cuda_kernel_rows_reduce.c:[[@LINE-14]]:3: remark: the CPU variant parallelises the outer loop only: statements follow the inner loop

// CHECK: /* Kernel shape: rows. One outer iteration per block row, the inner loop 'j' (line 35) over blockIdx.y * blockDim.x + threadIdx.x: the inner loop provably carries no dependence; it accumulates into 'ax', 'ay': one block per row, which combines its threads' shares; the statements after it run once per row, by the row's thread 0. */
// CHECK: {{^}}    const double xi = pos[4 * i], yi = pos[4 * i + 1];
// CHECK-NEXT: {{^}}      const double __hce_rv0 = ax;
// CHECK-NEXT: {{^}}      ax = (double)0;
// CHECK-NEXT: {{^}}      const double __hce_rv1 = ay;
// CHECK-NEXT: {{^}}      ay = (double)0;
// CHECK-NEXT: {{^}}#line 35 "{{.*}}cuda_kernel_rows_reduce.c"
// CHECK-NEXT: {{^}}      for (int j = (int)((0) + (int64_t)(blockIdx.y * blockDim.x + threadIdx.x) * 1); j < (n); j += (int)((int64_t)(gridDim.y * blockDim.x) * 1))
// CHECK: {{^}}        ay -= pos[4 * j + 3] * dy * inv;
// CHECK-NEXT: {{^}}      }
// CHECK-NEXT: {{^}}      {
// CHECK-NEXT: {{^}}        __shared__ double __hce_rs0[256];
// CHECK-NEXT: {{^}}        __hce_rs0[threadIdx.x] = ax;
// CHECK-NEXT: {{^}}        __shared__ double __hce_rs1[256];
// CHECK-NEXT: {{^}}        __hce_rs1[threadIdx.x] = ay;
// CHECK-NEXT: {{^}}        __syncthreads();
// CHECK-NEXT: {{^}}        for (unsigned __hce_o = blockDim.x / 2; __hce_o > 0; __hce_o >>= 1) {
// CHECK-NEXT: {{^}}          if (threadIdx.x < __hce_o) {
// CHECK-NEXT: {{^}}            __hce_rs0[threadIdx.x] = (double)(__hce_rs0[threadIdx.x] + __hce_rs0[threadIdx.x + __hce_o]);
// CHECK-NEXT: {{^}}            __hce_rs1[threadIdx.x] = (double)(__hce_rs1[threadIdx.x] + __hce_rs1[threadIdx.x + __hce_o]);
// CHECK-NEXT: {{^}}          }
// CHECK-NEXT: {{^}}          __syncthreads();
// CHECK-NEXT: {{^}}        }
// CHECK-NEXT: {{^}}        if (threadIdx.x == 0) {
// CHECK-NEXT: {{^}}          ax = (double)(__hce_rv0 + __hce_rs0[0]);
// CHECK-NEXT: {{^}}          ay = (double)(__hce_rv1 + __hce_rs1[0]);
// CHECK-NEXT: {{^}}#line 41 "{{.*}}cuda_kernel_rows_reduce.c"
// CHECK-NEXT: {{^}}    vel[2 * i] += 0.5 * ax;
// CHECK-NEXT: {{^}}#line 42 "{{.*}}cuda_kernel_rows_reduce.c"
// CHECK-NEXT: {{^}}    vel[2 * i + 1] = ay;
// CHECK-NEXT: {{^}}        }
// CHECK-NEXT: {{^}}        __syncthreads();
// CHECK-NEXT: {{^}}      }
// The launcher and the wave function: one block per row, one row per block.
// CHECK: {{^}}extern "C" int __hce_cuda_0_
// CHECK: {{^}}  __hce_by = 1; /* one block per row: it combines the row's work */
// CHECK-NEXT: {{^}}  __hce_gy = 1;
// CHECK: {{^}}extern "C" int64_t __hce_cuda_wave_0_{{[0-9a-f]+}}(const void *__hce_args, int __hce_sms) {
// CHECK: {{^}}  __hce_by = 1; /* one block per row: it combines the row's work */
// CHECK-NEXT: {{^}}  __hce_gy = 1;

/* Integers need no clause (their sums are exact in any order); a product
   with its clause; the suffix reads what the row's inner loop wrote. */
static void counts(int M, int N, const int *A, long *C, double *P, double *B) {
#pragma hce co_exec map(to: A[i*N:N]) map(tofrom: C[i:1], P[i:1]) map(from: B[i*N:N])
  for (int i = 0; i < M; i++) {
    long c = C[i];
    double p = 1.0;
#pragma omp simd reduction(* : p)
    for (int j = 0; j < N; j++) {
      c -= A[i * N + j] % 3 == 0;
      ++c;
      p *= 1.0 + A[i * N + j] * 1e-3;
      B[i * N + j] = A[i * N + j] * 0.5;
    }
    C[i] = c;
    P[i] = p + B[i * N + N - 1];
  }
}
// REMARK: cuda_kernel_rows_reduce.c:[[@LINE-14]]:3: remark: the CPU variant parallelises the outer loop only: statements follow the inner loop
// CHECK: /* Kernel shape: rows. {{.*}}; it accumulates into 'c', 'p': one block per row, which combines its threads' shares; the statements after it run once per row, by the row's thread 0. */
// CHECK: {{^}}      const long __hce_rv0 = c;
// CHECK-NEXT: {{^}}      c = (long)0;
// CHECK-NEXT: {{^}}      const double __hce_rv1 = p;
// CHECK-NEXT: {{^}}      p = (double)1;
// CHECK: {{^}}            __hce_rs1[threadIdx.x] = (double)(__hce_rs1[threadIdx.x] * __hce_rs1[threadIdx.x + __hce_o]);
// CHECK: {{^}}          c = (long)(__hce_rv0 + __hce_rs0[0]);
// CHECK-NEXT: {{^}}          p = (double)(__hce_rv1 * __hce_rs1[0]);

/* A suffix alone: no reduction, the block's barrier before thread 0. */
static void after_inner(int M, int N, const double *A, double *B, double *rs) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: B[i*N:N], rs[i:1])
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++)
      B[i * N + j] = A[i * N + j] * 2.0;
    rs[i] = B[i * N] + B[i * N + N - 1];
  }
}
// CHECK: /* Kernel shape: rows. {{.*}}: the inner loop provably carries no dependence; the statements after it run once per row, by the row's thread 0. */
// CHECK: {{^}}      B[i * N + j] = A[i * N + j] * 2.0;
// CHECK-NEXT: {{^}}      {
// CHECK-NEXT: {{^}}        __syncthreads();
// CHECK-NEXT: {{^}}        if (threadIdx.x == 0) {
// CHECK-NEXT: {{^}}#line [[@LINE-8]] "{{.*}}cuda_kernel_rows_reduce.c"
// CHECK-NEXT: {{^}}    rs[i] = B[i * N] + B[i * N + N - 1];
// CHECK-NEXT: {{^}}        }
// CHECK-NEXT: {{^}}        __syncthreads();

/* A row whose length the launcher cannot know (CSR): one warp per row. */
static void spmv(long n, long m, const long *rowptr, const double *val, const long *col, const double *p,
          double *q) {
#pragma hce co_exec map(to: rowptr[i:2], val[0:rowptr[n]], col[0:rowptr[n]], p[0:m]) map(from: q[i:1])
  for (long i = 0; i < n; i++) {
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (long e = rowptr[i]; e < rowptr[i + 1]; e++)
      s += val[e] * p[col[e]];
    q[i] = s;
  }
}
// CHECK: /* Kernel shape: rows. {{.*}}; it accumulates into 's': one block per row, {{.*}} */
// CHECK: {{^}}extern "C" int __hce_cuda_3_
// CHECK: {{^}}  __hce_by = 1; /* one block per row: it combines the row's work */
// CHECK-NEXT: {{^}}  __hce_gy = 1;
// CHECK-NEXT: {{^}}  __hce_bx = 32; /* a row of unknown length: one warp */

/* Sizes from the command line for the GPU checks (hce-cc build, HCE_DEVICES
   =cuda:0; M over 65535 rows runs the kernel's grid-stride loop). */
int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 300, M = argc > 2 ? atoi(argv[2]) : 23,
            N = argc > 3 ? atoi(argv[3]) : 37;
  unsigned long long st = 12345;
#define RND() (st = st * 6364136223846793005ULL + 1442695040888963407ULL, (double)(st >> 11) / 9007199254740992.0)
  double *pos = malloc((size_t)n * 4 * sizeof *pos), *vel = malloc((size_t)n * 2 * sizeof *vel),
         *rvel = malloc((size_t)n * 2 * sizeof *rvel);
  for (int e = 0; e < 4 * n; e++)
    pos[e] = RND() * 2.0 - 1.0;
  for (int e = 0; e < 2 * n; e++)
    vel[e] = rvel[e] = RND();
  forces(n, pos, vel);
  size_t bad_f = 0;
  for (int i = 0; i < n; i++) { /* the sequential reference */
    double ax = 0.0, ay = 1.0;
    for (int j = 0; j < n; j++) {
      double dx = pos[4 * j] - pos[4 * i], dy = pos[4 * j + 1] - pos[4 * i + 1];
      double inv = 1.0 / sqrt(dx * dx + dy * dy + 0.01);
      ax += pos[4 * j + 3] * dx * inv;
      ay -= pos[4 * j + 3] * dy * inv;
    }
    /* (the GPU sums in another order: the last bits) */
    bad_f += fabs(vel[2 * i] - (rvel[2 * i] + 0.5 * ax)) > 1e-9 * (1.0 + fabs(ax));
    bad_f += fabs(vel[2 * i + 1] - ay) > 1e-9 * (1.0 + fabs(ay));
  }
  int *A = malloc((size_t)M * N * sizeof *A);
  long *C = malloc(M * sizeof *C);
  double *P = malloc(M * sizeof *P), *B = malloc((size_t)M * N * sizeof *B),
         *B2 = malloc((size_t)M * N * sizeof *B2), *rs = malloc(M * sizeof *rs);
  for (long e = 0; e < (long)M * N; e++)
    A[e] = (int)(RND() * 1000.0);
  for (int i = 0; i < M; i++)
    C[i] = i * 7 - 50;
  counts(M, N, A, C, P, B);
  after_inner(M, N, (const double *)B, B2, rs);
  size_t bad_c = 0, bad_s = 0;
  for (int i = 0; i < M; i++) {
    long c = i * 7 - 50;
    double p = 1.0;
    for (int j = 0; j < N; j++) {
      c += 1 - (A[i * N + j] % 3 == 0);
      p *= 1.0 + A[i * N + j] * 1e-3;
      bad_c += B[(long)i * N + j] != A[i * N + j] * 0.5;
      bad_s += B2[(long)i * N + j] != B[(long)i * N + j] * 2.0;
    }
    bad_c += C[i] != c;
    bad_c += fabs(P[i] - (p + A[i * N + N - 1] * 0.5)) > 1e-9 * fabs(p);
    bad_s += rs[i] != B2[(long)i * N] + B2[(long)i * N + N - 1];
  }
  /* CSR rows of 0 to 40 elements (M rows, columns below N). */
  long *rowptr = malloc((M + 1) * sizeof *rowptr), *col = malloc((size_t)M * 40 * sizeof *col);
  double *val = malloc((size_t)M * 40 * sizeof *val), *q = malloc(M * sizeof *q);
  rowptr[0] = 0;
  for (int i = 0; i < M; i++) {
    rowptr[i + 1] = rowptr[i] + (long)(RND() * 41.0);
    for (long e = rowptr[i]; e < rowptr[i + 1]; e++) {
      col[e] = (long)(RND() * N);
      val[e] = RND() - 0.5;
    }
  }
  spmv(M, N, rowptr, val, col, B, q);
  size_t bad_m = 0;
  for (int i = 0; i < M; i++) {
    double s = 0.0, mag = 0.0;
    for (long e = rowptr[i]; e < rowptr[i + 1]; e++) {
      s += val[e] * B[col[e]];
      mag += fabs(val[e] * B[col[e]]);
    }
    bad_m += fabs(q[i] - s) > 1e-12 * (1.0 + mag);
  }
  if (bad_f || bad_c || bad_s || bad_m)
    printf("forces: %zu wrong, counts: %zu wrong, after_inner: %zu wrong, spmv: %zu wrong\n",
           bad_f, bad_c, bad_s, bad_m);
  const int bad = bad_f || bad_c || bad_s || bad_m;
  printf("cuda_kernel_rows_reduce: %s\n", bad ? "WRONG" : "ok");
  free(pos), free(vel), free(rvel), free(A), free(C), free(P), free(B), free(B2), free(rs);
  free(rowptr), free(col), free(val), free(q);
  return bad;
}

// EXEC: cuda_kernel_rows_reduce: ok

