// Multi-dimensional sections the translator cannot describe with one level
// of equally spaced blocks, or that are malformed: each error points at
// the offending dimension or expression.
//
// RUN: rm -f %t.out.c
// RUN: not %hce-translate %s -o %t.out.c -- -DTWOPARTIAL 2>&1 | FileCheck %s --check-prefix=TWOPARTIAL
// RUN: not %hce-translate %s -o %t.out.c -- -DINNERAFFINE 2>&1 | FileCheck %s --check-prefix=INNERAFFINE
// RUN: not %hce-translate %s -o %t.out.c -- -DINNERLEN 2>&1 | FileCheck %s --check-prefix=INNERLEN
// RUN: not %hce-translate %s -o %t.out.c -- -DFIRSTDIM 2>&1 | FileCheck %s --check-prefix=FIRSTDIM
// RUN: not %hce-translate %s -o %t.out.c -- -DWHOLEPTR 2>&1 | FileCheck %s --check-prefix=WHOLEPTR
// RUN: not %hce-translate %s -o %t.out.c -- -DTOOMANY 2>&1 | FileCheck %s --check-prefix=TOOMANY
// RUN: test ! -e %t.out.c
// A section partial in one inner dimension is fine (blocks):
// RUN: %hce-translate %s -o %t.ok.c -- -DONEPARTIAL
// RUN: FileCheck %s --check-prefix=ONEPARTIAL --input-file %t.ok.c

#define M 8
#define N 6
#define P 4

void f(int n, double T[n][N][P], double (*Q)[N]) {
  (void)T; (void)Q;
#ifdef TWOPARTIAL
// A dimension in between taken in part is widened to whole rows
// (sections-pad.c), unless it moves with the loop variable:
// TWOPARTIAL: {{^}}{{.*}}diag-sections.c:[[@LINE+1]]:39: error: cannot describe this section of 'T': it takes part of more than one inner dimension and this one moves with the loop variable (only one level of equally spaced blocks is supported); map whole rows instead, e.g. [0:n] or [:] in this dimension
#pragma hce co_exec map(tofrom: T[0:2][i:3][0:2])
  for (int i = 0; i < 3; i++)
    T[1][i][0] += 1;
#endif
#ifdef INNERAFFINE
// INNERAFFINE: {{^}}{{.*}}diag-sections.c:[[@LINE+1]]:38: error: the section start 'i*i' is not affine in the loop variable 'i' (product of two terms that use 'i')
#pragma hce co_exec map(tofrom: Q[i][i*i:1])
  for (int i = 0; i < 2; i++)
    Q[i][i * i] = 0;
#endif
#ifdef INNERLEN
// INNERLEN: {{^}}{{.*}}diag-sections.c:[[@LINE+1]]:40: error: the section length must not depend on the loop variable 'i'
#pragma hce co_exec map(tofrom: Q[i][0:i+1])
  for (int i = 0; i < N; i++)
    Q[i][0] = 0;
#endif
#ifdef FIRSTDIM
// FIRSTDIM: {{^}}{{.*}}diag-sections.c:[[@LINE+1]]:49: error: the length of the first dimension of 'Q' is unknown; write a section such as Q[0:n]
#pragma hce co_exec map(tofrom: T[0:n]) map(to: Q)
  for (int i = 0; i < n; i++)
    T[i][0][0] = Q[i][0];
#endif
#ifdef WHOLEPTR
// WHOLEPTR: {{^}}{{.*}}diag-sections.c:[[@LINE+1]]:34: error: the length of 'Q' is unknown; give the section length explicitly
#pragma hce co_exec map(tofrom: Q[:][0:N])
  for (int i = 0; i < n; i++)
    Q[i * i][0] = 0; // not a footprint the translator can derive
#endif
#ifdef TOOMANY
// TOOMANY: {{^}}{{.*}}diag-sections.c:[[@LINE+1]]:47: error: the section has 4 dimensions but 'T' has only 3
#pragma hce co_exec map(tofrom: T[i][0:N][0:P][0])
  for (int i = 0; i < n; i++)
    T[i][0][0] = 0;
#endif
#ifdef ONEPARTIAL
#pragma hce co_exec map(tofrom: T[i][1:3][0:2])
  for (int i = 0; i < n; i++)
    T[i][1][0] += 1;
// ONEPARTIAL: {{^}}  { /* map T[i][1:3][0:2] */
// ONEPARTIAL: {{^}}    { int i = (int)(__hce_init); __hce_lo0 = (int64_t)((int64_t)(i) * 24 + 4); }
// ONEPARTIAL: {{^}}    __hce_m[0].len = (int64_t)(2);
// ONEPARTIAL-NEXT: {{^}}    __hce_m[0].blocks = (int64_t)(3);
// ONEPARTIAL-NEXT: {{^}}    __hce_m[0].stride = (int64_t)(4);
#endif
}
