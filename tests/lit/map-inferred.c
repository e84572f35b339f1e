// Missing maps: an array the body uses without a map gets one inferred
// from its accesses, reported with -v: the per-iteration footprint (read:
// to; assigned whole and never read: from; otherwise tofrom), or the whole
// array where the accesses do not follow the loop variable and its extent
// is known. An explicit map wins. Where nothing can be inferred, the
// located error stays. Checked under the mock runtime (each chunk gets only
// its footprint) and end to end on the CPU and two simulated devices.
//
// RUN: %hce-translate -v %s -o %t.c 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %hce-cc -O1 %s -o %t.e2e -lm
// RUN: env HCE_DEVICES=cpu,sim:0,sim:1 HCE_MIN_SHARE=0 HCE_SCHEDULE=static HCE_STATS=%t.json OMP_NUM_THREADS=2 %t.e2e | FileCheck %s --check-prefix=EXEC
// RUN: FileCheck %s --check-prefix=STATS --input-file %t.json
// RUN: rm -f %t.bad.c
// RUN: not %hce-translate %s -o %t.bad.c -- -DGATHER 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: test ! -e %t.bad.c

#include <stdio.h>
#include <stdlib.h>

#define M 5

static double weights[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static double grid[64][M];

static unsigned rnd_state = 4321u;
static double rnd(void) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (double)((rnd_state >> 8) % 1000) / 100.0 - 5.0;
}

// Halo reads, a whole table read at a non-affine index, an assigned
// output, an updated accumulator.
void stencil(int n, const double *x, double *y, double *acc) {
#pragma hce co_exec
  for (int i = 1; i < n - 1; i++) {
    y[i] = x[i - 1] + x[i] + x[i + 1] + weights[i % 8];
    acc[i] += y[i];
  }
}
// NOTE: map-inferred.c:[[@LINE-4]]:5: remark: 'y' has no map: inferred map(tofrom: y[i:1])
// NOTE: map-inferred.c:[[@LINE-5]]:12: remark: 'x' has no map: inferred map(to: x[i - 1:3])
// NOTE: map-inferred.c:[[@LINE-6]]:41: remark: 'weights' has no map: inferred map(to: weights) (no per-iteration footprint: the subscript of 'weights[i % 8]' is not affine in 'i' with values known before the loop)
// NOTE: map-inferred.c:[[@LINE-6]]:5: remark: 'acc' has no map: inferred map(tofrom: acc[i:1])
// CHECK: { /* map y[i : 1] */
// CHECK: __hce_m[0].kind = HCE_MAP_TOFROM;
// CHECK: { /* map x[i - 1 : 3] */
// CHECK: __hce_m[1].kind = HCE_MAP_TO;
// CHECK: { /* map weights[0 : 8] */
// CHECK: __hce_m[2].kind = HCE_MAP_TO;
// CHECK: { /* map acc[i : 1] */
// CHECK: __hce_m[3].kind = HCE_MAP_TOFROM;

// Assigned and never read: from. The explicit map of x wins.
void scale(int n, const double *x, double *z) {
#pragma hce co_exec map(to: x[0:n])
  for (int i = 0; i < n; i++)
    z[i] = 2 * x[i];
}
// NOTE: map-inferred.c:[[@LINE-2]]:5: remark: 'z' has no map: inferred map(from: z[i:1])
// CHECK: { /* map x[0 : n] */
// CHECK: { /* map z[i : 1] */
// CHECK: __hce_m[1].kind = HCE_MAP_FROM;

// A row per iteration of a 2-D array of known extents.
void rows(void) {
#pragma hce co_exec
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < M; j++)
      grid[i][j] = grid[i][j] * 0.5 + j;
}
// NOTE: map-inferred.c:[[@LINE-2]]:7: remark: 'grid' has no map: inferred map(tofrom: grid[i:1])
// CHECK: { /* map grid[i:1] */

#ifdef GATHER
// A pointer read at an index the translator cannot follow: no extent to
// map it whole either.
void gather(int n, const int *idx, const double *src, double *dst) {
#pragma hce co_exec
  for (int i = 0; i < n; i++)
// GATHER: map-inferred.c:[[@LINE+2]]:14: error: 'src' is used in the co_exec loop but not mapped
// GATHER: map-inferred.c:[[@LINE+1]]:14: note: no map can be inferred for 'src': the subscript of 'src[idx[i]]' is not affine in 'i' with values known before the loop, and the extent of 'src' is not known, so it cannot be mapped whole
    dst[i] = src[idx[i]];
}
#endif

int main(void) {
  enum { N = 30000 };
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  double *acc = malloc(N * sizeof *acc), *acc0 = malloc(N * sizeof *acc0);
  double *z = malloc(N * sizeof *z), g0[64][M];
  int bad = 0;
  for (int i = 0; i < N; i++) {
    x[i] = rnd();
    y[i] = 0;
    acc[i] = acc0[i] = rnd();
  }
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < M; j++)
      grid[i][j] = g0[i][j] = rnd();
  stencil(N, x, y, acc);
  for (int i = 1; i < N - 1; i++) {
    double e = x[i - 1] + x[i] + x[i + 1] + weights[i % 8];
    bad += y[i] != e || acc[i] != acc0[i] + e;
  }
  scale(N, x, z);
  for (int i = 0; i < N; i++)
    bad += z[i] != 2 * x[i];
  rows();
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < M; j++)
      bad += grid[i][j] != g0[i][j] * 0.5 + j;
  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  free(x), free(y), free(acc), free(acc0), free(z);
  return bad != 0;
}
// EXEC: ok: 0 wrong
// Each region ran in part on each simulated device.
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// STATS: "device":"sim:1","iterations":{{[1-9]}}
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// STATS: "device":"sim:1","iterations":{{[1-9]}}
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// STATS: "device":"sim:1","iterations":{{[1-9]}}
