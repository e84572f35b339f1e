// Array reductions with every operator, several element types, a start
// other than 0 known only at run time (hist[lo:len]), a whole array
// (reduction(max: m)) and a pointer section. Each result is checked against
// a sequential loop; the CUDA companion must compile too.
//
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: FileCheck %s --input-file %t.cu --check-prefix=CUDA
// RUN: %if nvcc %{ %nvcc -Werror all-warnings -c %t.cu -o %t.cu.o %}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { n = 5000, B = 12 };

int check(const char *what, const void *a, const void *b, size_t bytes) {
  int ok = memcmp(a, b, bytes) == 0;
  printf("%s: %s\n", what, ok ? "ok" : "FAILED");
  return !ok;
}

int main(int argc, char **argv) {
  (void)argv;
  static int x[n];
  srand(11);
  for (int k = 0; k < n; k++)
    x[k] = rand() % 1000 + 1;
  int lo = 2 + argc - 1, len = B - 4; // run-time section [lo, lo+len)

  unsigned char add8[B] = {0}, radd8[B] = {0};
  double mul[B], rmul[B];
  float mn[B], rmn[B];
  short m[B], rm[B];
  unsigned band[B], rband[B], bor[B] = {0}, rbor[B] = {0}, bxor[B] = {0}, rbxor[B] = {0};
  int land[B], rland[B], lor[B] = {0}, rlor[B] = {0};
  long long *p = calloc(B, sizeof *p), *rp = calloc(B, sizeof *rp);
  for (int b = 0; b < B; b++) {
    mul[b] = rmul[b] = 1;
    mn[b] = rmn[b] = 1e9f;
    m[b] = rm[b] = -1;
    band[b] = rband[b] = ~0u;
    land[b] = rland[b] = 1;
  }
#pragma hce co_exec map(to: x[i:1]) reduction(+: add8[lo:len], p[0:B]) reduction(*: mul[lo:len]) reduction(min: mn[1:B-1]) reduction(max: m) reduction(&: band[0:B]) reduction(|: bor[0:B]) reduction(^: bxor[0:B]) reduction(&&: land[0:B]) reduction(||: lor[0:B])
  for (int i = 0; i < n; i++) {
    int b = lo + x[i] % len, c = x[i] % B;
    add8[b] += (unsigned char)x[i];
    p[c] -= x[i];
    if (i % 500 == 0)
      mul[b] *= 1.5;
    if (c >= 1 && x[i] < mn[c])
      mn[c] = (float)x[i];
    if (x[i] > m[c])
      m[c] = (short)x[i];
    band[c] &= (unsigned)x[i] | 0xF00u;
    bor[c] |= (unsigned)x[i];
    bxor[c] ^= (unsigned)x[i];
    land[c] = land[c] && x[i] < 990;
    lor[c] = lor[c] || x[i] == 7;
  }
  for (int i = 0; i < n; i++) {
    int b = lo + x[i] % len, c = x[i] % B;
    radd8[b] += (unsigned char)x[i];
    rp[c] -= x[i];
    if (i % 500 == 0)
      rmul[b] *= 1.5;
    if (c >= 1 && x[i] < rmn[c])
      rmn[c] = (float)x[i];
    if (x[i] > rm[c])
      rm[c] = (short)x[i];
    rband[c] &= (unsigned)x[i] | 0xF00u;
    rbor[c] |= (unsigned)x[i];
    rbxor[c] ^= (unsigned)x[i];
    rland[c] = rland[c] && x[i] < 990;
    rlor[c] = rlor[c] || x[i] == 7;
  }
  int bad = check("+ unsigned char", add8, radd8, sizeof add8) +
            check("+ pointer", p, rp, B * sizeof *p) + check("*", mul, rmul, sizeof mul) +
            check("min", mn, rmn, sizeof mn) + check("max", m, rm, sizeof m) +
            check("&", band, rband, sizeof band) + check("|", bor, rbor, sizeof bor) +
            check("^", bxor, rbxor, sizeof bxor) + check("&&", land, rland, sizeof land) +
            check("||", lor, rlor, sizeof lor);
  free(p);
  free(rp);
  return bad != 0;
}
// CHECK: {{^}}#pragma omp parallel for reduction(+: add8[__hce_rlo_0:__hce_rlen_0], p[__hce_rlo_1:__hce_rlen_1]) reduction(*: mul[__hce_rlo_2:__hce_rlen_2]) reduction(min: mn[__hce_rlo_3:__hce_rlen_3]) reduction(max: m[__hce_rlo_4:__hce_rlen_4]) reduction(&: band[__hce_rlo_5:__hce_rlen_5]) reduction(|: bor[__hce_rlo_6:__hce_rlen_6]) reduction(^: bxor[__hce_rlo_7:__hce_rlen_7]) reduction(&&: land[__hce_rlo_8:__hce_rlen_8]) reduction(||: lor[__hce_rlo_9:__hce_rlen_9]){{$}}
// The whole array: from 0, as long as the array; a pointer: no extent.
// CHECK: {{^}}  __hce_a.__hce_rlo_4 = (int64_t)(0);
// CHECK-NEXT: {{^}}  __hce_a.__hce_rlen_4 = (int64_t)((int64_t)(sizeof(m) / sizeof((m)[0])));
// CHECK: {{^}}  __hce_red[1].count = __hce_a.__hce_rlo_1 >= 0 && __hce_a.__hce_rlen_1 > 0 ? __hce_a.__hce_rlen_1 : -1;
// EXEC: + unsigned char: ok
// EXEC: + pointer: ok
// EXEC: *: ok
// EXEC: min: ok
// EXEC: max: ok
// EXEC: &: ok
// EXEC: |: ok
// EXEC: ^: ok
// EXEC: &&: ok
// EXEC: ||: ok
// The CUDA variant: atomic updates through a view of the device copy, in
// 32-bit words for the 8- and 16-bit types.
// CUDA: struct __hce_rref_0_0 {
// CUDA-NEXT: unsigned int *p;
// CUDA: void operator+=(unsigned int v) const { __hce_fold_0_0(p, v); }
// CUDA: struct __hce_rref_0_3 {
// CUDA: void operator=(float v) const { __hce_fold_0_3(p, v); }
// CUDA: {{^}}  const __hce_rview_0_0 add8 = {(unsigned int *)((char *)__hce_dred + *(const long long *)((char *)__hce_dred + 0)) - __hce_rlo_0};
// CUDA: {{^}}  __hce_hbytes += ((size_t)__hce_av->__hce_rlen_0 * sizeof(unsigned int) + 7) / 8 * 8;
// CUDA: {{^}}      __hce_dst[__hce_e] = (unsigned char)(__hce_x + __hce_y);
