// Every canonical loop form: < <= > >= != with +-1, +-c, i = i + c, a
// reversed comparison, a run-time step, an unsigned and a pre-declared
// induction variable. Each loop marks the iterations it runs; the program
// compares them (and the final value of an assigned induction variable)
// with sequential execution under the mock runtime.
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: FileCheck %s --input-file %t.c --check-prefix=VARIANT
// RUN: %clang -fsyntax-only -fopenmp -Wall -Wextra -Werror -I%hce-include %t.c
// RUN: %clang -fopenmp -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC

#include <stdio.h>
#include <string.h>

#define N 64
static int fails;

static void expect(const char *what, const int *got, const int *want) {
  if (memcmp(got, want, sizeof(int) * N) != 0) {
    printf("FAIL %s\n", what);
    ++fails;
  } else {
    printf("ok %s\n", what);
  }
}

int main(void) {
  int mark[N], ref[N];
  int lo = 3, hi = 50, s = 5;
  unsigned un = 40;

#define RESET() (memset(mark, 0, sizeof mark), memset(ref, 0, sizeof ref))

  RESET();
#pragma hce co_exec map(tofrom: mark[i:1])
  for (int i = lo; i < hi; i++)
    mark[i] += 1;
  for (int i = lo; i < hi; i++) ref[i] += 1;
  expect("lt", mark, ref);
// CHECK: {{^}}    if (__hce_where < 0 || (!__hce_where && __hce_ka >= __hce_kb)) __hce_W = 0;

  RESET();
#pragma hce co_exec map(tofrom: mark[i:1])
  for (int i = lo; i <= hi; ++i)
    mark[i] += 1;
  for (int i = lo; i <= hi; ++i) ref[i] += 1;
  expect("le", mark, ref);
// CHECK: {{^}}    if (__hce_where < 0 || (!__hce_where && __hce_ka > __hce_kb)) __hce_W = 0;

  RESET();
#pragma hce co_exec map(tofrom: mark[i:1])
  for (int i = hi; i > lo; i--)
    mark[i] += 1;
  for (int i = hi; i > lo; i--) ref[i] += 1;
  expect("gt", mark, ref);
// CHECK: {{^}}  const int64_t __hce_step = -1;
// CHECK-NEXT: {{^}}  int64_t __hce_W = -1; /* -1: not as C would run it; refused */
// CHECK: {{^}}    if (__hce_where > 0 || (!__hce_where && __hce_ka <= __hce_kb)) __hce_W = 0;

  RESET();
#pragma hce co_exec map(tofrom: mark[i:1])
  for (int i = hi; i >= lo; --i)
    mark[i] += 1;
  for (int i = hi; i >= lo; --i) ref[i] += 1;
  expect("ge", mark, ref);
// CHECK: {{^}}    if (__hce_where > 0 || (!__hce_where && __hce_ka < __hce_kb)) __hce_W = 0;

  RESET();
#pragma hce co_exec map(tofrom: mark[i:1])
  for (int i = lo; i != hi; i++)
    mark[i] += 1;
  for (int i = lo; i != hi; i++) ref[i] += 1;
  expect("ne-up", mark, ref);
// CHECK: {{^}}  const int64_t __hce_step = 1;
// CHECK-NEXT: {{^}}  int64_t __hce_W = -1; /* -1: not as C would run it; refused */
// CHECK: {{^}}    __hce_W = __hce_where ? -1 : __hce_ka == __hce_kb ? 0
// CHECK-NEXT: {{^}}      : __hce_kb < __hce_ka ? -1 : ((__hce_kb - __hce_ka) & UINT64_C(4294967295)) > (uint64_t)INT64_MAX ? -1

  RESET();
#pragma hce co_exec map(tofrom: mark[i:1])
  for (int i = hi; i != lo; i--)
    mark[i] += 1;
  for (int i = hi; i != lo; i--) ref[i] += 1;
  expect("ne-down", mark, ref);
// CHECK: {{^}}  const int64_t __hce_step = -1;
// CHECK-NEXT: {{^}}  int64_t __hce_W = -1; /* -1: not as C would run it; refused */
// CHECK: {{^}}    __hce_W = __hce_where ? -1 : __hce_ka == __hce_kb ? 0
// CHECK-NEXT: {{^}}      : __hce_kb > __hce_ka ? -1 : ((__hce_ka - __hce_kb) & UINT64_C(4294967295)) > (uint64_t)INT64_MAX ? -1

  RESET();
#pragma hce co_exec map(tofrom: mark[i:1])
  for (int i = lo; i < hi; i += 3)
    mark[i] += 1;
  for (int i = lo; i < hi; i += 3) ref[i] += 1;
  expect("plus-3", mark, ref);
// CHECK: {{^}}  const int64_t __hce_step = 3;

  RESET();
#pragma hce co_exec map(tofrom: mark[i:1])
  for (int i = hi; i >= lo; i -= 4)
    mark[i] += 1;
  for (int i = hi; i >= lo; i -= 4) ref[i] += 1;
  expect("minus-4", mark, ref);
// CHECK: {{^}}  const int64_t __hce_step = -4;

  RESET();
  int k, kref;
#pragma hce co_exec map(tofrom: mark[k:1])
  for (k = lo; k < hi; k = k + 2)
    mark[k] += 1;
  for (kref = lo; kref < hi; kref = kref + 2) ref[kref] += 1;
  expect("assign-form", mark, ref);
  printf("%s final k=%d expected %d\n", k == kref ? "ok" : "FAIL", k, kref);
  fails += k != kref;
// The induction variable keeps its sequential final value.
// CHECK: {{^}}  k = (int)(__hce_init + __hce_W * __hce_step);

  RESET();
#pragma hce co_exec map(tofrom: mark[i:1])
  for (long i = lo; hi > i; i = 5 + i)
    mark[i] += 1;
  for (long i = lo; hi > i; i = 5 + i) ref[i] += 1;
  expect("reversed-cond", mark, ref);
// CHECK: {{^}}  const int64_t __hce_step = 5;
// CHECK-NEXT: {{^}}  int64_t __hce_W = -1; /* -1: not as C would run it; refused */
// VARIANT: {{^}}    long i = (long)(__hce_init + __hce_k * __hce_step);

  RESET();
#pragma hce co_exec map(tofrom: mark[i:1])
  for (int i = lo; i < hi; i += s)
    mark[i] += 1;
  for (int i = lo; i < hi; i += s) ref[i] += 1;
  expect("runtime-step", mark, ref);
// CHECK: {{^}}  const int64_t __hce_step = (int64_t)((s));
// CHECK-NEXT: {{^}}  int64_t __hce_W = -1; /* -1: not as C would run it; refused */
// CHECK: {{^}}    else if (!__hce_where && __hce_step > 0) {

  RESET();
#pragma hce co_exec map(tofrom: mark[u:1])
  for (unsigned u = 0; u < un; u++)
    mark[u] += 1;
  for (unsigned u = 0; u < un; u++) ref[u] += 1;
  expect("unsigned", mark, ref);
// VARIANT: {{^}}    unsigned int u = (unsigned int)((unsigned int)__hce_init + (unsigned int)(__hce_k) * (unsigned int)__hce_step);

  RESET();
#pragma hce co_exec map(tofrom: mark[i:1])
  for (int i = hi; i < lo; i++)
    mark[i] += 1;
  expect("zero-trip", mark, ref);

  printf("%s\n", fails ? "SOME FAILED" : "all loop forms ok");
  return fails != 0;
}

// EXEC-NOT: FAIL
// EXEC: {{^}}all loop forms ok
