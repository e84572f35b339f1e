// Arrays of row pointers in #pragma hce data and #pragma hce update (issue
// 13.7): the data region's maps and the update's sections are hce_maps
// with HCE_MAP_ROWS like those of a co_exec loop, and the co_exec loops
// inside use the resident rows. An `update from` brings one device result
// home in the middle of the time loop; the host then changes the rows and
// `update to` sends them back. End to end on the CPU and on CPU + two
// simulated devices with every scheduler, against sequential loops.
//
// RUN: %hce-translate %s -o %t.c 2>&1 | count 0
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include -c %t.c -o %t.o
// RUN: %hce-cc -O1 %s -o %t.e2e -lm
// RUN: sh %S/Inputs/every_schedule.sh %hce-include/hce/names.def %t.json %t.e2e | FileCheck %s --check-prefix=EXEC

#include <stdio.h>
#include <stdlib.h>

#define M 230
#define W 16
#define STEPS 4

static unsigned st = 3u;
static float rnd(void) {
  st = st * 1103515245u + 12345u;
  return (float)((st >> 8) % 2000) / 100.0f - 10.0f;
}

static void run(float **a, float **b, int m, int n, float *probe) {
#pragma hce data map(tofrom: a[0:m][0:n]) map(alloc: b[0:m][0:n])
  {
    for (int t = 0; t < STEPS; t++) {
#pragma hce co_exec map(to: a[i][0:n]) map(from: b[i][0:n])
      for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
          b[i][j] = 0.5f * a[i][j] + (float)j;
#pragma hce co_exec map(to: b[i][0:n]) map(tofrom: a[i][0:n])
      for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
          a[i][j] = a[i][j] - 0.25f * b[i][j];
      if (t == 1) {
#pragma hce update from(a[0:m][0:n])
        *probe = a[m / 2][n / 2];
        for (int i = 0; i < m; i++)
          a[i][0] += 1.0f;
#pragma hce update to(a[0:m][0:n])
      }
    }
  }
}
// CHECK: { /* a[0:m][0:n] */
// CHECK: kind = HCE_MAP_TOFROM | HCE_MAP_ROWS;
// CHECK: row_offset = (int64_t)(0);
// CHECK-NEXT: row_len = (int64_t)(n);
// CHECK: { /* b[0:m][0:n] */
// CHECK: kind = HCE_MAP_ALLOC | HCE_MAP_ROWS;
// CHECK: hce_data_begin_or_exit(2,
// CHECK: kind = HCE_MAP_FROM | HCE_MAP_ROWS;
// CHECK: kind = HCE_MAP_TO | HCE_MAP_ROWS;

static float **alloc_rows(int m, int n) {
  float **r = malloc(sizeof(float *) * (size_t)m);
  for (int i = m - 1; i >= 0; i--)
    r[i] = malloc(sizeof(float) * (size_t)n);
  return r;
}

int main(void) {
  float **a = alloc_rows(M, W), **b = alloc_rows(M, W);
  float **ra = alloc_rows(M, W), **rb = alloc_rows(M, W);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < W; j++)
      ra[i][j] = a[i][j] = rnd();
  float probe = 0, want = 0;
  run(a, b, M, W, &probe);
  for (int t = 0; t < STEPS; t++) {
    for (int i = 0; i < M; i++)
      for (int j = 0; j < W; j++)
        rb[i][j] = 0.5f * ra[i][j] + (float)j;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < W; j++)
        ra[i][j] = ra[i][j] - 0.25f * rb[i][j];
    if (t == 1) {
      want = ra[M / 2][W / 2];
      for (int i = 0; i < M; i++)
        ra[i][0] += 1.0f;
    }
  }
  int bad = probe != want;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < W; j++)
      bad += a[i][j] != ra[i][j];
  for (int i = 0; i < M; i++) {
    free(a[i]);
    free(b[i]);
    free(ra[i]);
    free(rb[i]);
  }
  free(a);
  free(b);
  free(ra);
  free(rb);
  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  return bad != 0;
}
// EXEC: every schedule ok
