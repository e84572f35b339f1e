// Array reductions the translator refuses, each located where the user
// wrote it: a section on a scalar, a multi-dimensional array, a section
// outside the array (also through a macro), an empty section, a negative
// start, a pointer without a length, elements that cannot be reduced, a
// section that moves with the loop variable, one element instead of a
// section, two dimensions, and the same errors on the OpenMP clause.
//
// RUN: rm -f %t.out.c
// RUN: not %hce-translate %s -o %t.out.c 2>&1 | FileCheck %s
// Clause syntax errors stop the translator before any other check:
// RUN: not %hce-translate %s -o %t.out.c -- -DPARSE 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: test ! -e %t.out.c

#define NB 8
struct pair { int a, b; };

void f(int n, const int *x, long *p, int lo) {
  int s = 0;
  int h[NB];
  int h2[4][NB];
  struct pair ps[NB];
// CHECK: diag-reduction-array.c:[[@LINE+1]]:35: error: 's' is not an array or a pointer, so 's[...]' is not an array section; write reduction(+: s) for a scalar
#pragma hce co_exec reduction(+: s[0:2])
  for (int i = 0; i < n; i++) s += x[i];
// CHECK: diag-reduction-array.c:[[@LINE+1]]:34: error: array reduction over 'h2', a multi-dimensional array, is not supported; reduce over a one-dimensional array or a pointer
#pragma hce co_exec reduction(+: h2)
  for (int i = 0; i < n; i++) h2[x[i] % 4][0] += 1;
// CHECK: diag-reduction-array.c:[[@LINE+1]]:35: error: the section [2:8] of 'h' ends at element 10, beyond the 8 elements of the array
#pragma hce co_exec reduction(+: h[2:NB])
  for (int i = 0; i < n; i++) h[2 + x[i] % 6] += 1;
// CHECK: diag-reduction-array.c:[[@LINE+1]]:38: error: the section of the array reduction 'h' is empty (length 0)
#pragma hce co_exec reduction(+: h[0:NB-8])
  for (int i = 0; i < n; i++) h[0] += 1;
// CHECK: diag-reduction-array.c:[[@LINE+1]]:36: error: the section of 'h' starts at element -1, before the array
#pragma hce co_exec reduction(+: h[-1:2])
  for (int i = 0; i < n; i++) h[0] += 1;
// CHECK: diag-reduction-array.c:[[@LINE+1]]:35: error: the length of 'p' is unknown; write a section such as p[0:n]
#pragma hce co_exec reduction(+: p[3:])
  for (int i = 0; i < n; i++) p[x[i] % 4] += 1;
// CHECK: diag-reduction-array.c:[[@LINE+1]]:34: error: the elements of the array reduction 'ps' have type 'struct pair'; expected an integer, float or double
#pragma hce co_exec reduction(+: ps)
  for (int i = 0; i < n; i++) ps[0].a += 1;
// CHECK: diag-reduction-array.c:[[@LINE+1]]:36: error: the section of the array reduction 'h' must not depend on the loop variable 'i'
#pragma hce co_exec reduction(+: h[i:1])
  for (int i = 0; i < n; i++) h[0] += 1;
#ifdef PARSE
// PARSE: diag-reduction-array.c:[[@LINE+1]]:35: error: an array reduction takes a section, as in 'h[lo:len]', not one element
#pragma hce co_exec reduction(+: h[3])
  for (int i = 0; i < n; i++) h[3] += 1;
// PARSE: diag-reduction-array.c:[[@LINE+1]]:41: error: an array reduction takes one dimension, as in 'h2[lo:len]'
#pragma hce co_exec reduction(+: h2[0:4][0:2])
  for (int i = 0; i < n; i++) h2[0][0] += 1;
#endif
// CHECK: diag-reduction-array.c:[[@LINE+1]]:38: error: use of undeclared identifier 'nope'
#pragma hce co_exec reduction(+: h[0:nope])
  for (int i = 0; i < n; i++) h[0] += 1;
#pragma hce co_exec
// CHECK: diag-reduction-array.c:[[@LINE+1]]:39: error: the section [4:8] of 'h' ends at element 12, beyond the 8 elements of the array
#pragma omp parallel for reduction(+: h[4:NB])
  for (int i = 0; i < n; i++) h[4] += 1;
}
