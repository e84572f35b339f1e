// private(vars), and the private/reduction clauses of an accompanying
// '#pragma omp parallel for', which the translator honours.
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC

#include <stdio.h>

int main(void) {
  enum { M = 40, N = 12 };
  static double A[M * N], rowsum[M];
  int i, j;
  double t, total = 0;
  for (int k = 0; k < M * N; k++) A[k] = k % 7;

#pragma hce co_exec private(j, t) map(to: A[i*N:N]) map(from: rowsum[i:1])
  for (i = 0; i < M; i++) {
    t = 0;
    for (j = 0; j < N; j++)
      t += A[i * N + j];
    rowsum[i] = t;
  }
// CHECK: {{^}}  for (__hce_k = __hce_lb; __hce_k < __hce_ub; ++__hce_k) {
// CHECK-NEXT: {{^}}    int j;
// CHECK-NEXT: {{^}}    double t;
// CHECK-NEXT: {{^}}    int i = (int)(__hce_init + __hce_k * __hce_step);

#pragma hce co_exec map(to: A[i*N:N])
#pragma omp parallel for private(j) reduction(+: total)
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      total += A[i * N + j];
// CHECK: {{^}}#pragma omp parallel for reduction(+: total){{$}}
// CHECK-NEXT: {{^}}  for (__hce_k = __hce_lb; __hce_k < __hce_ub; ++__hce_k) {
// CHECK-NEXT: {{^}}    int j;

  double ref = 0;
  int bad = 0;
  for (int r = 0; r < M; r++) {
    double s = 0;
    for (int c = 0; c < N; c++) s += A[r * N + c];
    bad += s != rowsum[r];
    ref += s;
  }
  bad += ref != total;
  bad += i != M;
  printf(bad ? "FAIL %d\n" : "private ok\n", bad);
  return bad != 0;
}

// EXEC: {{^}}private ok
