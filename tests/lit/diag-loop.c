// Loops that are not in OpenMP's canonical form.
//
// RUN: rm -f %t.out.c
// RUN: not %hce-translate %s -o %t.out.c -- -DCOND 2>&1 | FileCheck %s --check-prefix=COND
// RUN: not %hce-translate %s -o %t.out.c -- -DEQ 2>&1 | FileCheck %s --check-prefix=EQ
// RUN: not %hce-translate %s -o %t.out.c -- -DINCR 2>&1 | FileCheck %s --check-prefix=INCR
// RUN: not %hce-translate %s -o %t.out.c -- -DMUL 2>&1 | FileCheck %s --check-prefix=MUL
// RUN: not %hce-translate %s -o %t.out.c -- -DNOINIT 2>&1 | FileCheck %s --check-prefix=NOINIT
// RUN: not %hce-translate %s -o %t.out.c -- -DTWOVARS 2>&1 | FileCheck %s --check-prefix=TWOVARS
// RUN: not %hce-translate %s -o %t.out.c -- -DDOUBLE 2>&1 | FileCheck %s --check-prefix=DOUBLE
// RUN: not %hce-translate %s -o %t.out.c -- -DZERO 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not %hce-translate %s -o %t.out.c -- -DWRONGWAY 2>&1 | FileCheck %s --check-prefix=WRONGWAY
// RUN: not %hce-translate %s -o %t.out.c -- -DNESTEP 2>&1 | FileCheck %s --check-prefix=NESTEP
// RUN: not %hce-translate %s -o %t.out.c -- -DBOUNDVAR 2>&1 | FileCheck %s --check-prefix=BOUNDVAR
// RUN: not %hce-translate %s -o %t.out.c -- -DMODIFIED 2>&1 | FileCheck %s --check-prefix=MODIFIED
// RUN: test ! -e %t.out.c

void f(int n, double *A) {
#ifdef COND
#pragma hce co_exec map(tofrom: A[i:1])
// COND: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:19: error: the loop condition must compare the loop variable 'i' with a bound
  for (int i = 0; i * 2 < n; i++)
    A[i] = 0;
#endif
#ifdef EQ
#pragma hce co_exec map(tofrom: A[i:1])
// EQ: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:19: error: the loop condition must compare 'i' with <, <=, >, >= or !=
  for (int i = 0; i == n; i++)
    A[i] = 0;
#endif
#ifdef INCR
#pragma hce co_exec map(tofrom: A[i:1])
// INCR: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:26: error: the loop increment must be one of i++, ++i, i--, --i, i += c, i -= c or i = i + c
  for (int i = 0; i < n; i = 2 * i + 1)
    A[i] = 0;
#endif
#ifdef MUL
#pragma hce co_exec map(tofrom: A[i:1])
// MUL: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:26: error: the loop increment must be one of
  for (int i = 1; i < n; i *= 2)
    A[i] = 0;
#endif
#ifdef NOINIT
  int i = 0;
#pragma hce co_exec map(tofrom: A[i:1])
// NOINIT: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:3: error: a co_exec loop needs an initialisation of its loop variable
  for (; i < n; i++)
    A[i] = 0;
#endif
#ifdef TWOVARS
#pragma hce co_exec map(tofrom: A[i:1])
// TWOVARS: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:8: error: a co_exec loop must declare exactly one loop variable
  for (int i = 0, j = 0; i < n; i++)
    A[i] = j;
#endif
#ifdef DOUBLE
#pragma hce co_exec map(tofrom: A[0:n])
// DOUBLE: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:15: error: the loop variable 'x' must have an integer type
  for (double x = 0; x < n; x += 1)
    A[0] += x;
#endif
#ifdef ZERO
#pragma hce co_exec map(tofrom: A[i:1])
// ZERO: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:26: error: the loop step must not be zero
  for (int i = 0; i < n; i += 0)
    A[i] = 0;
#endif
#ifdef WRONGWAY
#pragma hce co_exec map(tofrom: A[i:1])
// WRONGWAY: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:26: error: the loop counts down but its condition uses '<'
  for (int i = 0; i < n; i--)
    A[i] = 0;
#endif
#ifdef NESTEP
#pragma hce co_exec map(tofrom: A[i:1])
// NESTEP: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:27: error: with '!=' in the condition the loop step must be 1 or -1
  for (int i = 0; i != n; i += 2)
    A[i] = 0;
#endif
#ifdef BOUNDVAR
#pragma hce co_exec map(tofrom: A[i:1])
// BOUNDVAR: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:23: error: the loop bound must not depend on the loop variable
  for (int i = 0; i < i + n; i++)
    A[i] = 0;
#endif
#ifdef MODIFIED
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) {
    A[i] = 0;
// MODIFIED: {{^}}{{.*}}diag-loop.c:[[@LINE+1]]:7: error: the loop variable 'i' must not be modified in the loop body
    i += 1;
  }
#endif
}
