// A written map whose section does not use the loop variable (the usual
// OpenMP spelling `map(tofrom: y[0:n])`) while every write in the body is
// affine in it: the translator derives the per-iteration footprint
// (`y[i:1]`) and says so with -v. Where the writes do not follow the loop
// variable (transposed, scattered), the map stays a whole-array written map.
// Run under the mock runtime (each chunk gets only its footprint; a
// whole-array written map would let a later chunk overwrite an earlier
// one's results) and, end to end, on the CPU and two simulated devices.
//
// RUN: %hce-translate -v %s -o %t.c 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %hce-cc -O1 %s -o %t.e2e -lm
// RUN: env HCE_DEVICES=cpu,sim:0,sim:1 HCE_MIN_SHARE=0 HCE_SCHEDULE=static HCE_STATS=%t.json OMP_NUM_THREADS=2 %t.e2e | FileCheck %s --check-prefix=EXEC
// RUN: FileCheck %s --check-prefix=STATS --input-file %t.json

#include <stdio.h>
#include <stdlib.h>

#define M 7

static unsigned rnd_state = 12345u;
static double rnd(void) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (double)((rnd_state >> 8) % 1000) / 100.0 - 5.0;
}

void axpy(int n, double a, const double *x, double *y) {
#pragma hce co_exec map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}
// NOTE: map-written-footprint.c:[[@LINE-4]]:49: remark: 'y' is written one footprint per iteration: map(tofrom: y[0:n]) is taken as map(tofrom: y[i:1])
// CHECK: { /* map y[i : 1] */
// CHECK: __hce_m[1].scale = __hce_lo1 - __hce_lo0;

void rows(int n, double (*y)[M]) {
#pragma hce co_exec map(tofrom: y[0:n][0:M])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < M; j++)
      y[i][j] = y[i][j] * 2 + i - j;
}
// NOTE: map-written-footprint.c:[[@LINE-5]]:33: remark: 'y' is written one footprint per iteration: map(tofrom: y[0:n][0:M]) is taken as map(tofrom: y[i:1][0:M])
// CHECK: { /* map y[i:1][0:M] */

// Two elements per iteration, counting down.
void pairs(int n, double *y) {
#pragma hce co_exec map(from: y[0:2*n])
  for (int i = n - 1; i >= 0; i--) {
    y[2 * i + 1] = -i;
    y[2 * i] = i;
  }
}
// NOTE: map-written-footprint.c:[[@LINE-6]]:31: remark: 'y' is written one footprint per iteration: map(from: y[0:2*n]) is taken as map(from: y[2 * i:2])
// CHECK: { /* map y[2 * i : 2] */

// Transposed writes: not a per-iteration footprint, left to the runtime.
void sym(double (*c)[M]) {
#pragma hce co_exec map(tofrom: c[0:M][0:M])
  for (int i = 0; i < M; i++)
    for (int j = i; j < M; j++) {
      c[i][j] = c[i][j] + j;
      c[j][i] = c[i][j];
    }
}
// NOTE: map-written-footprint.c:[[@LINE-7]]:33: remark: map(tofrom: c[0:M][0:M]) stays a whole-array written map, not a per-iteration footprint: 'c[j][...]' does not follow the loop variable 'i'
// CHECK: { /* map c[0:M][0:M] */
// CHECK: __hce_m[0].scale = 0;

// Scattered writes: likewise.
void scatter(int n, const int *idx, int *level) {
#pragma hce co_exec map(to: idx[0:n]) map(tofrom: level[0:n])
  for (int i = 0; i < n; i++)
    level[idx[i]] = i;
}
// NOTE: map-written-footprint.c:[[@LINE-4]]:51: remark: map(tofrom: level[0:n]) stays a whole-array written map, not a per-iteration footprint: the subscript of 'level[idx[i]]' is not affine in 'i' with values known before the loop

int main(void) {
  enum { N = 40000 };
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  double *ref = malloc(N * sizeof *ref);
  double (*r)[M] = malloc(N * sizeof *r), (*rr)[M] = malloc(N * sizeof *rr);
  double *p = malloc(2 * N * sizeof *p);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    x[i] = rnd();
    y[i] = ref[i] = rnd();
    for (int j = 0; j < M; j++)
      r[i][j] = rr[i][j] = rnd();
  }
  axpy(N, 1.5, x, y);
  for (int i = 0; i < N; i++)
    bad += y[i] != 1.5 * x[i] + ref[i];
  rows(N, r);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      bad += r[i][j] != rr[i][j] * 2 + i - j;
  pairs(N, p);
  for (int i = 0; i < N; i++)
    bad += p[2 * i] != i || p[2 * i + 1] != -i;
  printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  free(x), free(y), free(ref), free(r), free(rr), free(p);
  return bad != 0;
}
// EXEC: ok: 0 wrong
// Every region ran in part on each simulated device.
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// STATS: "device":"sim:1","iterations":{{[1-9]}}
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// STATS: "device":"sim:1","iterations":{{[1-9]}}
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// STATS: "device":"sim:1","iterations":{{[1-9]}}
