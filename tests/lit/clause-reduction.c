// reduction(op: vars) with every operator and several types; the partial
// results of the chunks are combined by the (mock) runtime. Also checks the
// reduction table and the omp reduction clauses of the CPU variant.
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC

#include <stdio.h>

int main(void) {
  enum { n = 1000 };
  static int v[n];
  for (int k = 0; k < n; k++) v[k] = (k * 37) % 101 + 1;

  double sum = 0.5;
  float fmul = 1;
  long mn = 1000000, mx = -5;
  unsigned band = ~0u, bor = 0, bxor = 0;
  int land = 1, lor = 0;
  char cmax = 0;
#pragma hce co_exec map(to: v[i:1]) reduction(+: sum) reduction(*: fmul) reduction(min: mn) reduction(max: mx, cmax) reduction(&: band) reduction(|: bor) reduction(^: bxor) reduction(&&: land) reduction(||: lor)
  for (int i = 0; i < n; i++) {
    sum += v[i];
    if (i % 100 == 0)
      fmul *= 1.5f;
    if (v[i] < mn) mn = v[i];
    if (v[i] > mx) mx = v[i];
    if (v[i] % 100 > cmax) cmax = (char)(v[i] % 100);
    band &= (unsigned)v[i] | 0xF0u;
    bor |= (unsigned)v[i];
    bxor ^= (unsigned)v[i];
    land = land && v[i] > 0;
    lor = lor || v[i] == 101;
  }

  double rsum = 0.5;
  float rfmul = 1;
  long rmn = 1000000, rmx = -5;
  unsigned rband = ~0u, rbor = 0, rbxor = 0;
  int rland = 1, rlor = 0;
  char rcmax = 0;
  for (int i = 0; i < n; i++) {
    rsum += v[i];
    if (i % 100 == 0) rfmul *= 1.5f;
    if (v[i] < rmn) rmn = v[i];
    if (v[i] > rmx) rmx = v[i];
    if (v[i] % 100 > rcmax) rcmax = (char)(v[i] % 100);
    rband &= (unsigned)v[i] | 0xF0u;
    rbor |= (unsigned)v[i];
    rbxor ^= (unsigned)v[i];
    rland = rland && v[i] > 0;
    rlor = rlor || v[i] == 101;
  }
  int bad = (sum != rsum) + (fmul != rfmul) + (mn != rmn) + (mx != rmx) +
            (cmax != rcmax) + (band != rband) + (bor != rbor) +
            (bxor != rbxor) + (land != rland) + (lor != rlor);
  printf("sum=%g fmul=%g mn=%ld mx=%ld cmax=%d band=%x bor=%x bxor=%x land=%d lor=%d\n",
         sum, fmul, mn, mx, cmax, band, bor, bxor, land, lor);
  printf(bad ? "FAIL %d\n" : "reductions ok\n", bad);
  return bad != 0;
}

// CHECK: {{^}}  double sum = *(double *)((char *)__hce_red + 0);
// CHECK-NEXT: {{^}}  float fmul = *(float *)((char *)__hce_red + 8);
// CHECK-NEXT: {{^}}  long mn = *(long *)((char *)__hce_red + 16);
// CHECK: {{^}}#pragma omp parallel for reduction(+: sum) reduction(*: fmul) reduction(min: mn) reduction(max: mx, cmax) reduction(&: band) reduction(|: bor) reduction(^: bxor) reduction(&&: land) reduction(||: lor){{$}}
// CHECK: {{^}}  *(double *)((char *)__hce_red + 0) = sum;
// CHECK: {{^}}  __hce_red[0].name = "sum";
// CHECK-NEXT: {{^}}  __hce_red[0].var = (void *)&sum;
// CHECK-NEXT: {{^}}  __hce_red[0].op = HCE_RED_ADD;
// CHECK-NEXT: {{^}}  __hce_red[0].type = HCE_TYPE_F64;
// CHECK: {{^}}  __hce_red[1].op = HCE_RED_MUL;
// CHECK-NEXT: {{^}}  __hce_red[1].type = HCE_TYPE_F32;
// CHECK: {{^}}  __hce_red[2].op = HCE_RED_MIN;
// CHECK-NEXT: {{^}}  __hce_red[2].type = HCE_TYPE_I64;
// CHECK: {{^}}  __hce_red[4].name = "cmax";
// CHECK: {{^}}  __hce_red[4].op = HCE_RED_MAX;
// CHECK-NEXT: {{^}}  __hce_red[4].type = HCE_TYPE_I8;
// CHECK: {{^}}  __hce_red[5].op = HCE_RED_BAND;
// CHECK-NEXT: {{^}}  __hce_red[5].type = HCE_TYPE_U32;
// CHECK: {{^}}  __hce_red[7].op = HCE_RED_BXOR;
// CHECK: {{^}}  __hce_red[8].op = HCE_RED_LAND;
// CHECK-NEXT: {{^}}  __hce_red[8].type = HCE_TYPE_I32;
// CHECK: {{^}}  __hce_red[9].op = HCE_RED_LOR;
// CHECK: {{^}}  __hce_r.num_reductions = 10;

// EXEC: {{^}}reductions ok
