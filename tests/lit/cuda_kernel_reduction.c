// A reduction of the co_exec region keeps working with the rows kernel:
// each thread accumulates its (i, j) iterations, the block reduces over
// all blockDim.x * blockDim.y threads, thread 0 of the block folds.
// A body that updates the reduction variable other than as `x op= e`
// keeps the 1-D kernel.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu
// RUN: FileCheck %s --input-file %t.cu
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %if nvcc %{ %nvcc -c %t.cu -o %t.cu.o %}

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double total(int M, int N, const double *A, double *mx) {
  double sum = 0.0, m = -1e300;
#pragma hce co_exec map(to: A[i*N:N]) reduction(+: sum) reduction(max: m)
#pragma omp parallel for reduction(+ : sum) reduction(max : m)
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      sum += A[i * N + j];
      m = fmax(m, A[i * N + j]);
    }
  *mx = m;
  return sum;
}
// CHECK: /* Kernel shape: rows. One outer iteration per block row, the inner loop 'j' (line 22) over blockIdx.y * blockDim.x + threadIdx.x: the inner loop provably carries no dependence. */
// CHECK: {{^}}  double sum = (double)0;
// CHECK: {{^}}      for (int j = (int)((0) + (int64_t)(blockIdx.y * blockDim.x + threadIdx.x) * 1); j < (N);
// CHECK: {{^}}  const unsigned __hce_tid = threadIdx.y * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}  {
// CHECK-NEXT: {{^}}    __shared__ double __hce_sh0[256];
// CHECK-NEXT: {{^}}    __hce_sh0[__hce_tid] = (double)sum;
// CHECK-NEXT: {{^}}    __syncthreads();
// CHECK-NEXT: {{^}}    for (unsigned __hce_o = blockDim.x * blockDim.y / 2; __hce_o > 0; __hce_o >>= 1) {
// CHECK-NEXT: {{^}}      if (__hce_tid < __hce_o) {
// CHECK: {{^}}    if (__hce_tid == 0)
// CHECK-NEXT: {{^}}      __hce_fold_0_0((double *)((char *)__hce_dred + 0), __hce_sh0[0]);
// CHECK: {{^}}    __hce_kernel_0<<<__hce_grid, __hce_block, 0, __hce_s>>>(

long long decay(int M, int N, const int *A) {
  long long acc = 0;
#pragma hce co_exec map(to: A[i*N:N]) reduction(+: acc)
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      acc = acc + A[i * N + j] * (acc > 100 ? 0 : 1);
  return acc;
}
// CHECK: /* Kernel shape: 1-D, one thread per outer iteration: the inner loop updates the reduction variable 'acc' in a form other than 'x op= e'. */

int main(void) {
  int M = 41, N = 23;
  double *A = malloc(M * N * sizeof *A), ref = 0, mref = -1e300, mx = 0;
  for (int k = 0; k < M * N; k++) {
    A[k] = (k * 37) % 101;
    ref += A[k];
    mref = A[k] > mref ? A[k] : mref;
  }
  double s = total(M, N, A, &mx);
  printf("cuda_kernel_reduction: %s\n", s == ref && mx == mref ? "ok" : "WRONG");
  return 0;
}
// EXEC: cuda_kernel_reduction: ok
