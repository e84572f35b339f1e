// Nests the CPU variant must not flatten (it parallelises the outer loop
// only, and -v says why): a triangular nest (the inner bounds change with
// the outer iteration), an inner loop that carries a dependence, an inner
// loop compared in a wider type than its variable, and statements before
// the inner loop that call a function. Each still computes the right result.
//
// RUN: %hce-translate -v %s -o %t.c 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --input-file %t.c
// RUN: FileCheck %s --check-prefix=NOFLAT --input-file %t.c
// NOFLAT-NOT: __hce_r.cpu_{{f}}lat
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: env OMP_NUM_THREADS=5 %t.exe | FileCheck %s --check-prefix=EXEC

#include <stdio.h>
#include <stdlib.h>

static unsigned rnd_state = 99u;
static double rnd(void) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (double)((rnd_state >> 8) % 2000) / 100.0 - 10.0;
}

void lower(int N, const double *A, double *L) {
#pragma hce co_exec map(to: A[i*N:N]) map(tofrom: L[i*N:N])
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++)
      L[i * N + j] = A[i * N + j];
}
// NOTE: cpu-variant-collapse-not.c:[[@LINE-4]]:3: remark: the CPU variant parallelises the outer loop only: the bounds of 'j' change with the outer iteration
// CHECK-LABEL: static void __hce_cpu_0(
// CHECK: #pragma omp parallel for
// CHECK-NEXT: for (__hce_k = __hce_lb; __hce_k < __hce_ub; ++__hce_k) {

void prefix_sum(int M, int N, double *A) {
#pragma hce co_exec map(tofrom: A[i*N:N])
  for (int i = 0; i < M; i++)
    for (int j = 1; j < N; j++)
      A[i * N + j] = A[i * N + j] + A[i * N + j - 1];
}
// NOTE: cpu-variant-collapse-not.c:[[@LINE-4]]:3: remark: the CPU variant parallelises the outer loop only: the inner loop reads 'A' at an index other than the one it writes (a carried dependence)
// CHECK-LABEL: static void __hce_cpu_1(
// CHECK: for (__hce_k = __hce_lb; __hce_k < __hce_ub; ++__hce_k) {

void wide(int M, long N, const double *A, double *C) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: C[i*N:N])
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      C[i * N + j] = -A[i * N + j];
}
// NOTE: cpu-variant-collapse-not.c:[[@LINE-4]]:3: remark: the CPU variant parallelises the outer loop only: 'j' is compared in another type than its own (or is narrower than int)
// CHECK-LABEL: static void __hce_cpu_2(
// CHECK: for (__hce_k = __hce_lb; __hce_k < __hce_ub; ++__hce_k) {

static int twice(int x) { return 2 * x; }

void called(int M, int N, const double *A, double *C) {
#pragma hce co_exec map(to: A[i*N:N]) map(from: C[i*N:N])
  for (int i = 0; i < M; i++) {
    int t = twice(i);
    for (int j = 0; j < N; j++)
      C[i * N + j] = A[i * N + j] + t;
  }
}
// NOTE: cpu-variant-collapse-not.c:[[@LINE-6]]:3: remark: the CPU variant parallelises the outer loop only: the statements before the inner loop call a function
// CHECK-LABEL: static void __hce_cpu_3(
// CHECK: for (__hce_k = __hce_lb; __hce_k < __hce_ub; ++__hce_k) {

int main(void) {
  enum { M = 23, N = 19 };
  double *A = malloc(sizeof(double) * M * N), *B = malloc(sizeof(double) * M * N);
  double *C = malloc(sizeof(double) * M * N), *R = malloc(sizeof(double) * M * N);
  int bad = 0;
  for (int e = 0; e < M * N; e++)
    A[e] = rnd(), C[e] = R[e] = rnd();

  lower(N, A, C);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      bad += C[i * N + j] != (j <= i ? A[i * N + j] : R[i * N + j]);

  for (int e = 0; e < M * N; e++)
    B[e] = R[e] = A[e];
  prefix_sum(M, N, B);
  for (int i = 0; i < M; i++)
    for (int j = 1; j < N; j++) {
      R[i * N + j] += R[i * N + j - 1];
      bad += B[i * N + j] != R[i * N + j];
    }

  wide(M, N, A, C);
  for (int e = 0; e < M * N; e++)
    bad += C[e] != -A[e];

  called(M, N, A, C);
  for (int e = 0; e < M * N; e++)
    bad += C[e] != A[e] + 2 * (e / N);

  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  free(A), free(B), free(C), free(R);
  return bad != 0;
}
// EXEC: ok: 0 wrong
