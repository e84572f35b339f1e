// map(...): map types and 'always', default tofrom, per-iteration
// footprints (rows, halos, single elements, negative scale) and broadcast
// sections (whole fixed-size arrays, [:], [lo:len] without the loop
// variable). The program runs under the mock runtime, which gives each chunk
// only the declared footprint: wrong footprints give wrong results.
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: env MOCK_HCE_VERBOSE=1 %t.exe | FileCheck %s --check-prefix=EXEC

#include <stdio.h>

#define N 32
static double coef[4] = {0.5, 0.25, 0.125, 0.0625};

// GEMV: x is needed whole by every iteration (broadcast).
void gemv(int m, const double *Mat, const double *x, double *y) {
#pragma hce co_exec map(to: Mat[r*N:N], x[0:N], coef) map(from: y[r])
  for (int r = 0; r < m; r++) {
    double acc = 0;
    for (int c = 0; c < N; c++)
      acc += Mat[r * N + c] * x[c] * coef[c % 4];
    y[r] = acc;
  }
}
// CHECK: {{^}}  { /* map Mat[r*N : N] */
// CHECK: {{^}}    __hce_m[0].kind = HCE_MAP_TO;
// CHECK: {{^}}    __hce_m[0].scale = __hce_lo1 - __hce_lo0;
// CHECK: {{^}}  { /* map x[0 : N] */
// CHECK-NEXT: {{^}}    __hce_m[1].name = "x";
// CHECK: {{^}}    __hce_m[1].scale = 0;
// CHECK-NEXT: {{^}}    __hce_m[1].offset = (int64_t)(0);
// CHECK-NEXT: {{^}}    __hce_m[1].len = (int64_t)(N);
// CHECK: {{^}}  { /* map coef[0 : 4] */
// CHECK: {{^}}    __hce_m[2].scale = 0;
// CHECK: {{^}}  { /* map y[r : 1] */
// CHECK: {{^}}    __hce_m[3].kind = HCE_MAP_FROM;

// A 3-point stencil: a halo of one element each side; default map type.
void smooth(int n, const double *in, double *out) {
#pragma hce co_exec map(in[i-1:3]) map(always, from: out[i:1])
  for (int i = 1; i < n - 1; i++)
    out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3;
}
// CHECK: {{^}}    __hce_m[0].kind = HCE_MAP_TOFROM;
// CHECK: {{^}}    __hce_m[1].kind = HCE_MAP_FROM | HCE_MAP_ALWAYS;

// Counting down with a stride: negative scale; tmp is scratch (alloc).
void reverse_scale(int n, const double *src, double *dst, double *tmp) {
#pragma hce co_exec map(to: src[2*i:2]) map(from: dst[i]) map(alloc: tmp[i:1])
  for (int i = n - 1; i >= 0; i--) {
    tmp[i] = src[2 * i] + src[2 * i + 1];
    dst[i] = 2 * tmp[i];
  }
}
// CHECK: {{^}}    __hce_m[2].kind = HCE_MAP_ALLOC;

// [:] on a fixed-size array maps all of it.
static double table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
void lookup(int n, const int *key, double *val) {
#pragma hce co_exec map(to: key[i:1], table[:]) map(tofrom: val[i:1])
  for (int i = 0; i < n; i++)
    val[i] += table[key[i] % 8];
}
// CHECK: {{^}}  { /* map table[0 : 8] */

int main(void) {
  static double Mat[64 * N], x[N], y[64], in[200], out[200], src[400], dst[200],
      tmp[200], val[50];
  static int key[50];
  int bad = 0;
  for (int k = 0; k < 64 * N; k++) Mat[k] = (k * 7) % 13 + 1;
  for (int k = 0; k < N; k++) x[k] = k % 5 + 1;
  for (int k = 0; k < 200; k++) in[k] = (k * 3) % 11, out[k] = -1;
  for (int k = 0; k < 400; k++) src[k] = k % 9;
  for (int k = 0; k < 50; k++) key[k] = k * 5, val[k] = k;

  gemv(64, Mat, x, y);
  for (int r = 0; r < 64; r++) {
    double acc = 0;
    for (int c = 0; c < N; c++) acc += Mat[r * N + c] * x[c] * coef[c % 4];
    bad += acc != y[r];
  }
  smooth(200, in, out);
  for (int i = 1; i < 199; i++)
    bad += out[i] != (in[i - 1] + in[i] + in[i + 1]) / 3;
  bad += out[0] != -1 || out[199] != -1;
  reverse_scale(200, src, dst, tmp);
  for (int i = 0; i < 200; i++) bad += dst[i] != 2 * (src[2 * i] + src[2 * i + 1]);
  lookup(50, key, val);
  for (int i = 0; i < 50; i++) bad += val[i] != i + table[(i * 5) % 8];
  printf(bad ? "FAIL %d\n" : "maps ok\n", bad);
  return bad != 0;
}

// EXEC: {{^}}  map Mat kind=1 elem=8 scale=32 offset=0 len=32 blocks=1
// EXEC-NEXT: {{^}}  map x kind=1 elem=8 scale=0 offset=0 len=32 blocks=1
// EXEC-NEXT: {{^}}  map coef kind=1 elem=8 scale=0 offset=0 len=4 blocks=1
// (kind 10: y[r] is written in full, HCE_MAP_WRITES_ALL; writes-all.c)
// EXEC-NEXT: {{^}}  map y kind=10 elem=8 scale=1 offset=0 len=1 blocks=1
// EXEC: {{^}}  map in kind=3 elem=8 scale=1 offset=0 len=3 blocks=1
// EXEC-NEXT: {{^}}  map out kind=14 elem=8 scale=1 offset=1 len=1 blocks=1
// EXEC: {{^}}  map src kind=1 elem=8 scale=-2 offset=398 len=2 blocks=1
// EXEC-NEXT: {{^}}  map dst kind=10 elem=8 scale=-1 offset=199 len=1 blocks=1
// EXEC-NEXT: {{^}}  map tmp kind=0 elem=8 scale=-1 offset=199 len=1 blocks=1
// EXEC: {{^}}  map table kind=1 elem=8 scale=0 offset=0 len=8 blocks=1
// EXEC: {{^}}maps ok
