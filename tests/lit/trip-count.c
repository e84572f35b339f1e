// Trip counts exactly as C runs the loop: the variable's own type, the
// comparison's conversions, unsigned wrap-around of `!=` loops, 64-bit
// unsigned arithmetic (no overflow for ranges near INT64_MAX / ULLONG_MAX).
// Loops C would not end normally (infinite, overflowing, more than 2^63-1
// iterations) are refused: at translation time with a located error when
// the operands are constants, otherwise at run time.
//
// RUN: %hce-translate %s -o %t.c
// RUN: %clang -fopenmp -Wall -Wextra -Werror -Wno-unused-variable -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe 1 | FileCheck %s --check-prefix=EXEC
// RUN: %hce-cc -O1 %s -o %t.e2e
// RUN: env HCE_DEVICES=cpu,sim:0,sim:1 HCE_MIN_SHARE=0 HCE_SCHEDULE=static HCE_STATS=%t.json OMP_NUM_THREADS=2 %t.e2e 1 | FileCheck %s --check-prefix=EXEC
// RUN: FileCheck %s --check-prefix=STATS --input-file %t.json
// A bound known only at run time that makes the loop endless: refused.
// RUN: env HCE_DEVICES=cpu not %t.e2e 0 2>&1 | FileCheck %s --check-prefix=RUNTIME
//
// RUN: rm -f %t.bad.c
// RUN: not %hce-translate %s -o %t.bad.c -- -DUNSIGNED_GE0 2>&1 | FileCheck %s --check-prefix=UNSIGNED_GE0
// RUN: not %hce-translate %s -o %t.bad.c -- -DUCHAR_LE255 2>&1 | FileCheck %s --check-prefix=UCHAR_LE255
// RUN: not %hce-translate %s -o %t.bad.c -- -DNE_OUTSIDE 2>&1 | FileCheck %s --check-prefix=NE_OUTSIDE
// RUN: not %hce-translate %s -o %t.bad.c -- -DWRAP_STEP 2>&1 | FileCheck %s --check-prefix=WRAP_STEP
// RUN: not %hce-translate %s -o %t.bad.c -- -DLL_2_63 2>&1 | FileCheck %s --check-prefix=LL_2_63
// RUN: not %hce-translate %s -o %t.bad.c -- -DULL_BIG 2>&1 | FileCheck %s --check-prefix=ULL_BIG
// RUN: not %hce-translate %s -o %t.bad.c -- -DSIGNED_NE 2>&1 | FileCheck %s --check-prefix=SIGNED_NE
// RUN: test ! -e %t.bad.c

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

void refused(unsigned n, double *a) {
  (void)n, (void)a;
#ifdef UNSIGNED_GE0
#pragma hce co_exec map(tofrom: a[i:1])
// UNSIGNED_GE0: trip-count.c:[[@LINE+1]]:26: error: the condition is always true for 'i' of type 'unsigned int': the loop never ends
  for (unsigned i = n; i >= 0; i--)
    a[i] = 0;
#endif
#ifdef UCHAR_LE255
#pragma hce co_exec map(tofrom: a[c:1])
// UCHAR_LE255: trip-count.c:[[@LINE+1]]:31: error: the condition is always true for 'c' of type 'unsigned char': the loop never ends
  for (unsigned char c = 0; c <= 255; c++)
    a[c] = 0;
#endif
#ifdef NE_OUTSIDE
#pragma hce co_exec map(tofrom: a[c:1])
// NE_OUTSIDE: trip-count.c:[[@LINE+1]]:31: error: the condition is always true for 'c' of type 'unsigned char': the loop never ends
  for (unsigned char c = 0; c != 300; c++)
    a[c] = 0;
#endif
#ifdef WRAP_STEP
#pragma hce co_exec map(tofrom: a[c:1])
// WRAP_STEP: trip-count.c:[[@LINE+1]]:31: error: 'c' would wrap around before the condition 'c < ...' becomes false
  for (unsigned char c = 0; c < 255; c += 2)
    a[c] = 0;
#endif
#ifdef LL_2_63
#pragma hce co_exec map(tofrom: a[0:1])
// LL_2_63: trip-count.c:[[@LINE+1]]:38: error: the loop runs more than 2^63-1 iterations
  for (long long v = -(1LL << 62); v < (1LL << 62); v++)
    a[0] = 0;
#endif
#ifdef ULL_BIG
#pragma hce co_exec map(tofrom: a[0:1])
// ULL_BIG: trip-count.c:[[@LINE+1]]:36: error: the loop runs more than 2^63-1 iterations
  for (unsigned long long v = 0; v < 0x8000000000000005ULL; v++)
    a[0] = 0;
#endif
#ifdef SIGNED_NE
#pragma hce co_exec map(tofrom: a[0:1])
// SIGNED_NE: trip-count.c:[[@LINE+1]]:22: error: 'v' would overflow before the condition 'v != ...' becomes false
  for (int v = 10; v != 5; v++)
    a[0] = 0;
#endif
}

int main(int argc, char **argv) {
  int k = argc > 1 ? atoi(argv[1]) : 1; /* 1: the counted loops; 0: refused */
  long long n1 = 0, n2 = 0, n3 = 0, n4 = 0, n5 = 0, n6 = 0, n7 = 0;
  if (k == 0) {
    unsigned n = 5, stop = 0;
#pragma hce co_exec reduction(+: n7)
    for (unsigned i = n; i >= stop; i--)
      n7++;
    printf("not refused: %lld\n", n7);
    return 0;
  }
  /* unsigned short wrapping through 0 with '!=': 65536 - 65000 + 995. */
  unsigned short s0 = (unsigned short)(65000 + k - 1), s1 = (unsigned short)(995 + k - 1);
#pragma hce co_exec reduction(+: n1)
  for (unsigned short s = s0; s != s1; s++)
    n1++;
  /* unsigned char wrapping with '!=': 250..255, 0..4 (11 iterations). */
  unsigned char c0 = (unsigned char)(250 + k - 1);
#pragma hce co_exec reduction(+: n2)
  for (unsigned char c = c0; c != 5; c++)
    n2 += c;
  /* Around INT64_MAX as unsigned long long. */
  unsigned long long u0 = ULLONG_MAX / 2 - 5 + (unsigned long long)(k - 1);
#pragma hce co_exec reduction(+: n3)
  for (unsigned long long u = u0; u < ULLONG_MAX / 2 + 10; u += 3)
    n3++;
  /* From LLONG_MIN. */
  long long lo = LLONG_MIN + k - 1;
#pragma hce co_exec reduction(+: n4)
  for (long long v = lo; v < lo + 7; v += 2)
    n4++;
  /* int compared with an unsigned long bound. */
  unsigned long sz = (unsigned long)(10 + k);
#pragma hce co_exec reduction(+: n5)
  for (int i = 0; i < sz; i++)
    n5 += i;
  /* Counting down past zero with a step. */
  int top = 20 * k;
#pragma hce co_exec reduction(+: n6)
  for (int i = top; i >= -3; i -= 4)
    n6 += i;
  printf("%lld %lld %lld %lld %lld %lld\n", n1, n2, n3, n4, n5, n6);
  return 0;
}
// Sequential C gives the same numbers (checked against a plain build).
// EXEC: 1531 1525 5 4 55 60
// STATS: "device":"sim:0","iterations":{{[1-9]}}
// RUNTIME: hce: error: region trip-count.c:{{[0-9]+}}: the loop has no iteration count the runtime can run
// RUNTIME-NOT: not refused
