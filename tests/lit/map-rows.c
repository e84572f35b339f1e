// Arrays of row pointers (issue 13.7): `float **rows`, each row allocated
// apart (as k-means and back-propagation codes hold their data), mapped as
// `rows[i][c0:n]`. Each map is an hce_map with HCE_MAP_ROWS whose affine
// part counts rows (scale/offset/len as for a 1-D section of the table) and
// whose row_offset/row_len select the elements of every row; elem_size is
// that of a row's element. Every variant binds the name as a table of row
// pointers (the device's own table on an accelerator) and indexes it as the
// user wrote. A written `rows[0:m][0:n]` whose body writes `rows[i][j]` is
// taken as `rows[i:1][0:n]`. The host file compiles as C under -Wall
// -Wextra -Werror, the CUDA companion with nvcc, and the program runs on
// the CPU and on CPU + two simulated accelerators (which move rows into
// their own poisoned memory) with every scheduler, against the sequential
// loops.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu --offload-out %t.off.c 2>&1 | count 0
// RUN: FileCheck %s --input-file %t.c
// RUN: FileCheck %s --check-prefix=CUDA --input-file %t.cu
// RUN: FileCheck %s --check-prefix=OMP --input-file %t.off.c
// RUN: %clang -std=c99 -fopenmp -Wall -Wextra -Werror -I%hce-include -c %t.c -o %t.o
// RUN: %if nvcc %{ %nvcc -Werror all-warnings -I%hce-include -c %t.cu -o %t.cu.o %}
// RUN: %if omp-offload %{ %offload-cc -c %t.off.c -o %t.off.o %}
// RUN: %hce-cc -O1 %s -o %t.e2e -lm
// RUN: sh %S/Inputs/every_schedule.sh %hce-include/hce/names.def %t.json %t.e2e | FileCheck %s --check-prefix=EXEC

#include <stdio.h>
#include <stdlib.h>

#define M 300
#define W 24

static unsigned st = 11u;
static float rnd(void) {
  st = st * 1103515245u + 12345u;
  return (float)((st >> 8) % 2000) / 100.0f - 10.0f;
}

// Each iteration updates part of its own row; the scale table is broadcast.
void update(float **rows, int m, int c0, int n, const float *s) {
  int i;
#pragma hce co_exec map(tofrom: rows[i][c0:n]) map(to: s[0:W])
  for (i = 0; i < m; i++)
    for (int j = c0; j < c0 + n; j++)
      rows[i][j] = rows[i][j] * s[j] - 1.0f;
}
// CHECK-LABEL: static void __hce_cpu_0(
// CHECK: float **rows = (float **)__hce_ptrs[0];
// CHECK: { /* map rows[i][c0:n] */
// CHECK: __hce_m[0].name = "rows";
// CHECK-NEXT: __hce_m[0].host = (void *)rows;
// CHECK-NEXT: __hce_m[0].elem_size = sizeof((rows)[0][0]);
// CHECK-NEXT: __hce_m[0].kind = HCE_MAP_TOFROM | HCE_MAP_ROWS;
// CHECK-NEXT: __hce_m[0].scale = __hce_lo1 - __hce_lo0;
// CHECK-NEXT: __hce_m[0].offset = __hce_lo0;
// CHECK-NEXT: __hce_m[0].len = (int64_t)(1);
// CHECK-NEXT: __hce_m[0].blocks = 1;
// CHECK-NEXT: __hce_m[0].stride = 0;
// CHECK-NEXT: __hce_m[0].extent = 0;
// CHECK-NEXT: __hce_m[0].row_offset = (int64_t)(c0);
// CHECK-NEXT: __hce_m[0].row_len = (int64_t)(n);
// The flat map beside it has no row fields.
// CHECK: __hce_m[1].kind = HCE_MAP_TO;
// CHECK-NOT: __hce_m[1].row_
// CHECK: __hce_r.num_maps = 2;
// CUDA-LABEL: __hce_kernel_0(
// CUDA: float **rows = (float **)__hce_p.p[0];
// CUDA: rows[i][j] = rows[i][j] * s[j] - 1.0f;
// OMP-LABEL: int __hce_omp_0_{{[0-9a-f]+}}(
// OMP: float **rows = (float **)__hce_ptrs[0];
// OMP: is_device_ptr(rows, s)

// Every iteration reads all the rows of `cl` (a broadcast row section) and
// writes one element of `out`. A table declared as an array of pointers
// gives its extent in rows.
void nearest(float **pts, float *cl[8], int *out, int m, int k, int n) {
#pragma hce co_exec map(to: pts[i][0:n], cl[0:k][0:n]) map(from: out[i:1])
  for (int i = 0; i < m; i++) {
    int best = 0;
    float bd = 1e30f;
    for (int c = 0; c < k; c++) {
      float d = 0;
      for (int j = 0; j < n; j++)
        d += (pts[i][j] - cl[c][j]) * (pts[i][j] - cl[c][j]);
      if (d < bd) {
        bd = d;
        best = c;
      }
    }
    out[i] = best;
  }
}
// CHECK-LABEL: static void __hce_cpu_1(
// CHECK: float **pts = (float **)__hce_ptrs[0];
// CHECK: float **cl = (float **)__hce_ptrs[1];
// CHECK: { /* map cl[0:k][0:n] */
// CHECK: __hce_m[1].kind = HCE_MAP_TO | HCE_MAP_ROWS;
// CHECK-NEXT: __hce_m[1].scale = 0;
// CHECK-NEXT: __hce_m[1].offset = (int64_t)(0);
// CHECK-NEXT: __hce_m[1].len = (int64_t)(k);
// CHECK: __hce_m[1].extent = (int64_t)(8);
// CHECK-NEXT: __hce_m[1].row_offset = (int64_t)(0);
// CHECK-NEXT: __hce_m[1].row_len = (int64_t)(n);
// CUDA-LABEL: __hce_kernel_1(
// CUDA: float **cl = (float **)__hce_p.p[1];

// The usual OpenMP spelling of a written map: each iteration writes its
// own row, so it is taken as rows[i:1][0:n].
void square(double **a, int m, int n) {
#pragma hce co_exec map(tofrom: a[0:m][0:n])
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      a[i][j] = a[i][j] * a[i][j] + j;
}
// CHECK-LABEL: static void __hce_cpu_2(
// CHECK: double **a = (double **)__hce_ptrs[0];
// CHECK: __hce_m[0].kind = HCE_MAP_TOFROM | HCE_MAP_ROWS;
// CHECK-NEXT: __hce_m[0].scale = __hce_lo1 - __hce_lo0;
// CHECK: __hce_m[0].len = (int64_t)(1);
// CHECK: __hce_m[0].row_len = (int64_t)(n);

static float **alloc_rows(int m, int n) {
  float **r = malloc(sizeof(float *) * (size_t)m);
  for (int i = m - 1; i >= 0; i--) { // scattered, not in order
    r[i] = malloc(sizeof(float) * (size_t)n);
    for (int j = 0; j < n; j++)
      r[i][j] = rnd();
  }
  return r;
}

int main(void) {
  int bad = 0;
  float s[W];
  for (int j = 0; j < W; j++)
    s[j] = rnd();

  float **rows = alloc_rows(M, W), **ref = alloc_rows(M, W);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < W; j++)
      ref[i][j] = rows[i][j];
  update(rows, M, 5, 13, s);
  for (int i = 0; i < M; i++)
    for (int j = 5; j < 18; j++)
      ref[i][j] = ref[i][j] * s[j] - 1.0f;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < W; j++)
      bad += rows[i][j] != ref[i][j];

  float *cl[8];
  float **cls = alloc_rows(8, W);
  for (int c = 0; c < 8; c++)
    cl[c] = cls[c];
  int out[M], want[M];
  nearest(rows, cl, out, M, 6, W);
  for (int i = 0; i < M; i++) {
    int best = 0;
    float bd = 1e30f;
    for (int c = 0; c < 6; c++) {
      float d = 0;
      for (int j = 0; j < W; j++)
        d += (ref[i][j] - cl[c][j]) * (ref[i][j] - cl[c][j]);
      if (d < bd) {
        bd = d;
        best = c;
      }
    }
    want[i] = best;
    bad += out[i] != want[i];
  }

  double **a = malloc(sizeof(double *) * M), **ar = malloc(sizeof(double *) * M);
  for (int i = 0; i < M; i++) {
    a[i] = malloc(sizeof(double) * W);
    ar[i] = malloc(sizeof(double) * W);
    for (int j = 0; j < W; j++)
      a[i][j] = ar[i][j] = rnd();
  }
  square(a, M, W);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < W; j++)
      bad += a[i][j] != ar[i][j] * ar[i][j] + j;

  for (int i = 0; i < M; i++) {
    free(rows[i]);
    free(ref[i]);
    free(a[i]);
    free(ar[i]);
  }
  for (int c = 0; c < 8; c++)
    free(cls[c]);
  free(rows);
  free(ref);
  free(a);
  free(ar);
  free(cls);
  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  return bad != 0;
}
// EXEC: every schedule ok
