// C99 variable-length array parameters (PolyBench's `double A[n][m]`) get a
// CUDA variant: the kernel binds each one to a view with linearised
// indexing (__hce_vla), as CUDA C++ has no variably modified types. The
// view is checked on the host against row-major addressing, the host file
// runs under the mock runtime, and nvcc compiles the .cu where it exists.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu 2>&1 | count 0
// RUN: FileCheck %s --input-file %t.cu
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: awk '/^template <class T, int R> struct __hce_vla/ {on=1} on {print} /^};$/ && on {n++; if (n == 2) exit}' %t.cu > %t.vla.h
// RUN: %clangxx -std=c++17 '-DVLA_VIEW_HEADER="%t.vla.h"' %S/Inputs/vla_view_check.cpp -o %t.view.exe
// RUN: %t.view.exe | FileCheck %s --check-prefix=VIEW
// RUN: %if nvcc %{ %nvcc -I%hce-include -c %t.cu -o %t.cu.o %}

#include <stdio.h>
#include <stdlib.h>

// CHECK: template <class T, int R> struct __hce_vla {
// CHECK-LABEL: __hce_kernel_0
// CHECK-DAG: const __hce_vla<double, 2> A = {(double *)__hce_p.p[0], {(int64_t)(__hce_ext_0_1)}};
// CHECK-DAG: const __hce_vla<const double, 2> B = {(const double *)__hce_p.p[1], {(int64_t)(__hce_ext_1_1)}};
// CHECK-DAG: const __hce_vla<double, 2> C = {(double *)__hce_p.p[2], {(int64_t)(__hce_ext_2_1)}};
static void gemm(int ni, int nj, int nk, double alpha, double C[ni][nj],
                 double A[ni][nk], const double B[nk][nj]) {
  int i, j, k;
#pragma hce co_exec map(to: A[i:1][0:nk], B[0:nk][0:nj]) map(tofrom: C[i:1][0:nj])
#pragma omp parallel for private(j, k)
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
}

// CHECK-LABEL: __hce_kernel_1
// CHECK: const __hce_vla<float, 3> T = {(float *)__hce_p.p[0], {(int64_t)(__hce_ext_0_1), (int64_t)(__hce_ext_0_2)}};
static void scale3(int n, int m, int l, float T[n][m][l]) {
#pragma hce co_exec map(tofrom: T[i:1][0:m][0:l])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < l; k++)
        T[i][j][k] = T[i][j][k] * 2 + (float)(j - k);
}

int main(void) {
  enum { NI = 33, NJ = 17, NK = 9 };
  static double A[NI][NK], B[NK][NJ], C[NI][NJ], R[NI][NJ];
  static float T[5][6][7], U[5][6][7];
  srand(11);
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++)
      A[i][k] = rand() % 7;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++)
      B[k][j] = rand() % 5;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      C[i][j] = R[i][j] = rand() % 3;
  gemm(NI, NJ, NK, 1.5, C, A, B);
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      for (int k = 0; k < NK; k++)
        R[i][j] += 1.5 * A[i][k] * B[k][j];
  int bad = 0;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      bad += C[i][j] != R[i][j];
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 6; j++)
      for (int k = 0; k < 7; k++)
        T[i][j][k] = U[i][j][k] = (float)(rand() % 9);
  scale3(5, 6, 7, T);
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 6; j++)
      for (int k = 0; k < 7; k++)
        bad += T[i][j][k] != U[i][j][k] * 2 + (float)(j - k);
  printf("%s\n", bad ? "FAIL" : "ok");
  return bad;
}
// EXEC: ok
// VIEW: ok 42
