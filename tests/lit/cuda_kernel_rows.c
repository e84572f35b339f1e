// The CUDA kernel gets the "rows" shape (one outer iteration per block row,
// the inner loop over threadIdx.x / blockIdx.y) when the body ends with an
// inner loop whose iterations are independent: proved (matrix addition,
// statements before the inner loop, a 3-D stencil whose two inner levels
// are both spread) or asserted with OpenMP (collapse(2), omp simd).
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu
// RUN: FileCheck %s --input-file %t.cu
// The host file still computes the right result (mock runtime, CPU variant):
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %clang -fsyntax-only -fopenmp -Wall -Werror -DHCE_HAVE_CUDA_VARIANTS -I%hce-include %t.c
// With nvcc, the companion compiles as it is, without warnings:
// RUN: %if nvcc %{ %nvcc -Werror all-warnings -c %t.cu -o %t.cu.o %}

#include <stdio.h>
#include <stdlib.h>

static void madd(int M, int N, const double *A, const double *B, double *C) {
#pragma hce co_exec map(to: A[i*N:N], B[i*N:N]) map(from: C[i*N:N])
#pragma omp parallel for
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      C[i * N + j] = A[i * N + j] + B[i * N + j];
}

/* Boundary statements before the inner loop: every thread of the row runs
   them; the inner loop provably writes other elements. */
static void sweep(int N, const double *A, double *B) {
#pragma hce co_exec map(to: A[(i-1)*N:3*N]) map(from: B[i*N:N])
  for (int i = 1; i < N - 1; i++) {
    B[i * N] = A[i * N];
    B[i * N + N - 1] = A[i * N + N - 1];
    for (int j = 1; j < N - 1; j++)
      B[i * N + j] = 0.25 * (A[i * N + j - 1] + A[i * N + j + 1] +
                             A[(i - 1) * N + j] + A[(i + 1) * N + j]);
  }
}

/* Two perfectly nested inner levels, the index through a local. */
static void heat(int N, const double *A, double *B) {
  long NN = (long)N * N;
#pragma hce co_exec map(to: A[i*NN:NN]) map(from: B[i*NN:NN])
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++) {
        long c = i * NN + (long)j * N + k;
        B[c] = 2.0 * A[c];
      }
}

/* GEMM: j is spread, the k loop (a reduction into a local) stays in the
   thread; a 2-D array parameter. */
static void gemm(int n, double (*A)[16], double (*Bm)[16], double (*C)[16]) {
#pragma hce co_exec map(to: A[i:1][0:16], Bm[0:16][0:16]) map(tofrom: C[i:1][0:16])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 16; j++) {
      double s = 0.0;
      for (int k = 0; k < 16; k++)
        s += A[i][k] * Bm[k][j];
      C[i][j] = s;
    }
}

/* Asserted by the user: collapse(2) on the co_exec loop, omp simd on the
   inner one (an indirect index the analysis cannot follow). */
static void scatter(int M, int N, const int *perm, const double *A, double *C) {
#pragma hce co_exec map(to: A[i*N:N], perm[0:N]) map(from: C[i*N:N])
#pragma omp parallel for collapse(2)
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      C[i * N + perm[j]] = A[i * N + j];
}
static void scale(int M, int N, double *C) {
#pragma hce co_exec map(tofrom: C[i*N:N])
  for (int i = 0; i < M; i++) {
#pragma omp simd
    for (int j = 0; j < N; j += 2)
      C[i * N + j] *= 2.0;
  }
}

int main(void) {
  enum { M = 37, N = 29, H = 9 };
  double *A = malloc(M * N * sizeof *A), *B = malloc(M * N * sizeof *B),
         *C = malloc(M * N * sizeof *C);
  int perm[N];
  for (int k = 0; k < M * N; k++) {
    A[k] = k % 7;
    B[k] = k % 5;
    C[k] = -1;
  }
  for (int j = 0; j < N; j++)
    perm[j] = (j * 7) % N;
  size_t bad = 0;
  madd(M, N, A, B, C);
  for (int k = 0; k < M * N; k++)
    bad += C[k] != A[k] + B[k];
  sweep(N, A, C);
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      bad += C[i * N + j] != 0.25 * (A[i * N + j - 1] + A[i * N + j + 1] +
                                     A[(i - 1) * N + j] + A[(i + 1) * N + j]);
  double *P = malloc(H * H * H * sizeof *P), *Q = malloc(H * H * H * sizeof *Q);
  for (int k = 0; k < H * H * H; k++)
    P[k] = k;
  heat(H, P, Q);
  for (int k = 0; k < H * H * H; k++)
    bad += Q[k] != 2.0 * k;
  static double GA[20][16], GB[16][16], GC[20][16];
  for (int i = 0; i < 20; i++)
    for (int j = 0; j < 16; j++)
      GA[i][j] = (i + j) % 3, GB[j % 16][i % 16] = (i * j) % 4, GC[i][j] = 0;
  gemm(20, GA, GB, GC);
  for (int i = 0; i < 20; i++)
    for (int j = 0; j < 16; j++) {
      double s = 0;
      for (int k = 0; k < 16; k++)
        s += GA[i][k] * GB[k][j];
      bad += GC[i][j] != s;
    }
  scatter(M, N, perm, A, C);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      bad += C[i * N + perm[j]] != A[i * N + j];
  scale(M, N, C);
  printf("cuda_kernel_rows: %s\n", bad ? "WRONG" : "ok");
  return 0;
}

// EXEC: cuda_kernel_rows: ok

// CHECK: /* Kernel shape: rows. One outer iteration per block row, the inner loop 'j' (line 23) over blockIdx.y * blockDim.x + threadIdx.x: the inner loop provably carries no dependence. */
// CHECK: {{^}}__hce_kernel_0(
// CHECK: {{^}}  for (int64_t __hce_k = __hce_lb + (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
// CHECK-NEXT: {{^}}       __hce_k < __hce_ub; __hce_k += (int64_t)gridDim.x * blockDim.y) {
// CHECK-NEXT: {{^}}    int i = (int)(__hce_init + __hce_k * __hce_step);
// CHECK-NEXT: {{^}}    {
// CHECK-NEXT: {{^}}      for (int j = (int)((0) + (int64_t)(blockIdx.y * blockDim.x + threadIdx.x) * 1); j < (N); j += (int)((int64_t)(gridDim.y * blockDim.x) * 1))
// CHECK-NEXT: {{^}}#line 24 "{{.*}}cuda_kernel_rows.c"
// CHECK-NEXT: {{^}}      C[i * N + j] = A[i * N + j] + B[i * N + j];
// The launcher: bx threads of a row (the inner trip count, rounded up to a
// power of two in [32, 256]), 256 / bx rows a block, a grid of row blocks by
// enough blocks along y to fill the GPU.
// CHECK: {{^}}extern "C" int __hce_cuda_0_
// CHECK: {{^}}    const int64_t __hce_ey = ((int64_t)(N) > (int64_t)(0) ? ((int64_t)(N) - (int64_t)(0) + 1 - 1) / 1 : 0);
// CHECK: {{^}}    while (__hce_bx > 32 && __hce_bx / 2 >= __hce_ex)
// CHECK: {{^}}    __hce_by = __hce_threads / __hce_bx;
// CHECK: {{^}}  const dim3 __hce_grid((unsigned)__hce_blocks, (unsigned)__hce_gy), __hce_block(__hce_bx, __hce_by);
// CHECK: {{^}}  __hce_kernel_0<<<__hce_grid, __hce_block, 0, __hce_s>>>(
// Its wave for the runtime (hce_region::cuda_wave): the kernel's resident
// blocks per multiprocessor times the rows a block runs, from the
// launcher's own row shape.
// CHECK: {{^}}extern "C" int64_t __hce_cuda_wave_0_{{[0-9a-f]+}}(const void *__hce_args, int __hce_sms) {
// CHECK: {{^}}    __hce_by = __hce_threads / __hce_bx;
// CHECK: {{^}}  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&__hce_per_sm, __hce_kernel_0, (int)(__hce_bx * __hce_by), 0) != cudaSuccess) {
// CHECK: {{^}}  return (int64_t)__hce_per_sm * __hce_sms * __hce_bx * __hce_by /
// CHECK-NEXT: {{^}}         ((int64_t)__hce_bx * __hce_gy);

// CHECK: /* Kernel shape: rows. One outer iteration per block row, the inner loop 'j' (line 34) {{.*}} provably carries no dependence. */
// CHECK: {{^}}    {
// CHECK-NEXT: {{^}}#line 32 "{{.*}}cuda_kernel_rows.c"
// CHECK-NEXT: {{^}}    B[i * N] = A[i * N];
// CHECK-NEXT: {{^}}#line 33 "{{.*}}cuda_kernel_rows.c"
// CHECK-NEXT: {{^}}    B[i * N + N - 1] = A[i * N + N - 1];
// CHECK-NEXT: {{^}}      for (int j = (int)((1) + (int64_t)(blockIdx.y * blockDim.x + threadIdx.x) * 1); j < (N - 1); j += (int)((int64_t)(gridDim.y * blockDim.x) * 1))

// CHECK: /* Kernel shape: rows. One outer iteration per block row, the inner loop 'j' (line 45), 'k' (line 46) over blockIdx.y and threadIdx.x: the inner loops provably carry no dependence. */
// CHECK: {{^}}      for (int j = (int)((0) + (int64_t)(blockIdx.y) * 1); j < (N); j += (int)((int64_t)(gridDim.y) * 1))
// CHECK-NEXT: {{^}}        for (int k = (int)((0) + (int64_t)(threadIdx.x) * 1); k < (N); k += (int)((int64_t)(blockDim.x) * 1))
// CHECK: {{^}}    const int64_t __hce_ex = ((int64_t)(N) > (int64_t)(0)
// CHECK: {{^}}    __hce_gy = __hce_ey;

// CHECK: /* Kernel shape: rows. One outer iteration per block row, the inner loop 'j' (line 57) {{.*}} provably carries no dependence. */
// CHECK: {{^}}      for (int j = (int)((0) + (int64_t)(blockIdx.y * blockDim.x + threadIdx.x) * 1); j < (16);
// CHECK-NEXT: {{^}}#line 57 "{{.*}}cuda_kernel_rows.c"
// CHECK-NEXT: {{^}}                              {
// CHECK-NEXT: {{^}}      double s = 0.0;
// CHECK-NEXT: {{^}}      for (int k = 0; k < 16; k++)

// CHECK: /* Kernel shape: rows. {{.*}}: independence of the inner iterations asserted by 'collapse(2)' on the co_exec loop. */
// CHECK: /* Kernel shape: rows. {{.*}}: independence of the inner iterations asserted by '#pragma omp simd' on the inner loop. */
// CHECK: {{^}}      for (int j = (int)((0) + (int64_t)(blockIdx.y * blockDim.x + threadIdx.x) * 2); j < (N); j += (int)((int64_t)(gridDim.y * blockDim.x) * 2))

// A rows kernel fills the GPU from one row: no block size in the descriptor,
// its wave function instead.
// RUN: FileCheck %s --check-prefix=HOST --input-file %t.c
// HOST: {{^}}int64_t __hce_cuda_wave_0_{{[0-9a-f]+}}(const void *__hce_args, int __hce_sms);
// HOST-NOT: {{^}}  __hce_r.cuda_block_iterations
// HOST: {{^}}  __hce_r.cuda = __hce_cuda_0_{{[0-9a-f]+}};
// HOST-NEXT: {{^}}  __hce_r.cuda_wave = __hce_cuda_wave_0_{{[0-9a-f]+}};
// HOST-NOT: {{^}}  __hce_r.cuda_block_iterations
