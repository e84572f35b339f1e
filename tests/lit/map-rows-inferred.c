// A table of row pointers (`float **rows`) that no clause maps gets a row
// map inferred from the body (issue 13.7 with 13.9): the rows follow the
// loop variable (`rows[i]`), the elements of each row are those of the
// inner loop that walks them (`for (j = a; j < b; j++)` over `rows[i][j +
// k]`, bounds known before the loop), or the constant columns it uses.
// Read only: `to`; written: `tofrom`. Reported with -v. End to end on the
// CPU and on CPU + two simulated devices with every scheduler.
//
// RUN: %hce-translate -v %s -o %t.c --cuda-out %t.cu 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --input-file %t.c
// RUN: FileCheck %s --check-prefix=CUDA --input-file %t.cu
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include -c %t.c -o %t.o
// RUN: %if nvcc %{ %nvcc -Werror all-warnings -I%hce-include -c %t.cu -o %t.cu.o %}
// RUN: %hce-cc -O1 %s -o %t.e2e -lm
// RUN: sh %S/Inputs/every_schedule.sh %hce-include/hce/names.def %t.json %t.e2e | FileCheck %s --check-prefix=EXEC

#include <stdio.h>
#include <stdlib.h>

#define M 257
#define W 20

static unsigned st = 5u;
static double rnd(void) {
  st = st * 1103515245u + 12345u;
  return (double)((st >> 8) % 2000) / 100.0 - 10.0;
}

// A 3-point stencil along each row: reads [0, n) of `in`, writes [1, n-1)
// of `out`.
void smooth(double **in, double **out, int m, int n) {
#pragma hce co_exec
  for (int i = 0; i < m; i++)
    for (int j = 1; j < n - 1; j++)
      out[i][j] = (in[i][j - 1] + in[i][j] + in[i][j + 1]) / 3;
}
// NOTE: map-rows-inferred.c:[[@LINE-2]]:7: remark: 'out' has no map: inferred map(tofrom: out[i:1][1:(n - 1) - 1])
// NOTE: map-rows-inferred.c:[[@LINE-3]]:20: remark: 'in' has no map: inferred map(to: in[i:1][0:(n - 1) + 1])
// CHECK-LABEL: static void __hce_cpu_0(
// CHECK: double **out = (double **)__hce_ptrs[0];
// CHECK: double **in = (double **)__hce_ptrs[1];
// CHECK: __hce_m[0].kind = HCE_MAP_TOFROM | HCE_MAP_ROWS;
// CHECK: __hce_m[0].row_offset = (int64_t)(1);
// CHECK-NEXT: __hce_m[0].row_len = (int64_t)((n - 1) - 1);
// CHECK: __hce_m[1].kind = HCE_MAP_TO | HCE_MAP_ROWS;
// CHECK: __hce_m[1].row_offset = (int64_t)(0);
// CHECK-NEXT: __hce_m[1].row_len = (int64_t)((n - 1) + 1);
// CUDA-LABEL: __hce_kernel_0(
// CUDA: double **out = (double **)__hce_p.p[0];
// CUDA: double **in = (double **)__hce_p.p[1];

// Constant columns of each row: the first two elements (a point's x, y).
void norm2(float **pt, float *r, int m) {
#pragma hce co_exec
  for (int i = 0; i < m; i++)
    r[i] = pt[i][0] * pt[i][0] + pt[i][1] * pt[i][1];
}
// NOTE: map-rows-inferred.c:[[@LINE-2]]:12: remark: 'pt' has no map: inferred map(to: pt[i:1][0:2])

// Inner-loop bounds from variables of the enclosing function, with the
// start not at 0 and `<=`.
void shift(int **a, int m, int lo, int hi) {
#pragma hce co_exec
  for (int i = 0; i < m; i++)
    for (int j = lo; j <= hi; j++)
      a[i][j] += i - j;
}
// NOTE: map-rows-inferred.c:[[@LINE-2]]:7: remark: 'a' has no map: inferred map(tofrom: a[i:1][lo:hi - lo + 1])

int main(void) {
  int bad = 0;
  double **in = malloc(sizeof(double *) * M), **out = malloc(sizeof(double *) * M);
  float **pt = malloc(sizeof(float *) * M);
  int **a = malloc(sizeof(int *) * M);
  float r[M];
  for (int i = M - 1; i >= 0; i--) {
    in[i] = malloc(sizeof(double) * W);
    out[i] = malloc(sizeof(double) * W);
    pt[i] = malloc(sizeof(float) * 3);
    a[i] = malloc(sizeof(int) * W);
    for (int j = 0; j < W; j++) {
      in[i][j] = rnd();
      out[i][j] = rnd();
      a[i][j] = (int)(rnd() * 10);
    }
    for (int j = 0; j < 3; j++)
      pt[i][j] = (float)rnd();
  }
  double **ref = malloc(sizeof(double *) * M);
  int **aref = malloc(sizeof(int *) * M);
  for (int i = 0; i < M; i++) {
    ref[i] = malloc(sizeof(double) * W);
    aref[i] = malloc(sizeof(int) * W);
    for (int j = 0; j < W; j++) {
      ref[i][j] = out[i][j];
      aref[i][j] = a[i][j];
    }
  }

  smooth(in, out, M, W);
  for (int i = 0; i < M; i++)
    for (int j = 1; j < W - 1; j++)
      ref[i][j] = (in[i][j - 1] + in[i][j] + in[i][j + 1]) / 3;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < W; j++)
      bad += out[i][j] != ref[i][j];

  norm2(pt, r, M);
  for (int i = 0; i < M; i++)
    bad += r[i] != pt[i][0] * pt[i][0] + pt[i][1] * pt[i][1];

  shift(a, M, 3, 15);
  for (int i = 0; i < M; i++)
    for (int j = 3; j <= 15; j++)
      aref[i][j] += i - j;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < W; j++)
      bad += a[i][j] != aref[i][j];

  for (int i = 0; i < M; i++) {
    free(in[i]);
    free(out[i]);
    free(pt[i]);
    free(a[i]);
    free(ref[i]);
    free(aref[i]);
  }
  free(in);
  free(out);
  free(pt);
  free(a);
  free(ref);
  free(aref);
  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  return bad != 0;
}
// EXEC: every schedule ok
