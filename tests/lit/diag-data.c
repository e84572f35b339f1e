// Data-use errors: unmapped arrays, racy writes, footprints that are not
// affine, sections the translator cannot describe yet.
//
// RUN: rm -f %t.out.c
// RUN: not %hce-translate %s -o %t.out.c -- -DUNMAPPED 2>&1 | FileCheck %s --check-prefix=UNMAPPED
// RUN: not %hce-translate %s -o %t.out.c -- -DUNMAPPEDARR 2>&1 | FileCheck %s --check-prefix=UNMAPPEDARR
// RUN: not %hce-translate %s -o %t.out.c -- -DRACY 2>&1 | FileCheck %s --check-prefix=RACY
// RUN: not %hce-translate %s -o %t.out.c -- -DRACYINC 2>&1 | FileCheck %s --check-prefix=RACYINC
// RUN: not %hce-translate %s -o %t.out.c -- -DRACYADDR 2>&1 | FileCheck %s --check-prefix=RACYADDR
// RUN: not %hce-translate %s -o %t.out.c -- -DRACYINNER 2>&1 | FileCheck %s --check-prefix=RACYINNER
// RUN: not %hce-translate %s -o %t.out.c -- -DSQUARE 2>&1 | FileCheck %s --check-prefix=SQUARE
// RUN: not %hce-translate %s -o %t.out.c -- -DINDIRECT 2>&1 | FileCheck %s --check-prefix=INDIRECT
// RUN: not %hce-translate %s -o %t.out.c -- -DDIVIDE 2>&1 | FileCheck %s --check-prefix=DIVIDE
// RUN: not %hce-translate %s -o %t.out.c -- -DLENVAR 2>&1 | FileCheck %s --check-prefix=LENVAR
// RUN: not %hce-translate %s -o %t.out.c -- -DNOLEN 2>&1 | FileCheck %s --check-prefix=NOLEN
// RUN: not %hce-translate %s -o %t.out.c -- -DMULTIDIM 2>&1 | FileCheck %s --check-prefix=MULTIDIM
// RUN: not %hce-translate %s -o %t.out.c -- -DARRAY2D 2>&1 | FileCheck %s --check-prefix=ARRAY2D
// RUN: not %hce-translate %s -o %t.out.c -- -DPTRWRITE 2>&1 | FileCheck %s --check-prefix=PTRWRITE
// RUN: not %hce-translate %s -o %t.out.c -- -DTWICE 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not %hce-translate %s -o %t.out.c -- -DREDTYPE 2>&1 | FileCheck %s --check-prefix=REDTYPE
// RUN: not %hce-translate %s -o %t.out.c -- -DLOCALTYPE 2>&1 | FileCheck %s --check-prefix=LOCALTYPE
// RUN: test ! -e %t.out.c

struct pair { double a, b; };

extern double ext[];

void f(int n, double *A, double *B, const int *idx, double M[][8]) {
  double t = 0;
  int j;
  double fixed[16];
  struct pair p = {1, 2};
  (void)j; (void)fixed; (void)p; (void)idx; (void)M; (void)B;
#ifdef UNMAPPED
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++)
// UNMAPPED: {{^}}{{.*}}diag-data.c:[[@LINE+2]]:12: error: 'B' is used in the co_exec loop but not mapped; add it to a map clause, e.g. map(tofrom: B[lo:len])
// UNMAPPED: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:12: note: no map can be inferred for 'B': the subscript of 'B[i * i]' is not affine in 'i' with values known before the loop, and the extent of 'B' is not known, so it cannot be mapped whole
    A[i] = B[i * i];
#endif
#ifdef UNMAPPEDARR
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++)
// UNMAPPEDARR: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:12: error: 'ext' is used in the co_exec loop but not mapped
    A[i] = ext[i % 16];
#endif
#ifdef RACY
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) {
// RACY: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:7: error: racy write: 't' is shared by all iterations and written here; declare it inside the loop or list it in reduction(...) or private(...)
    t = A[i];
    A[i] = t * 2;
  }
#endif
#ifdef RACYINC
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++)
// RACYINC: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:13: error: racy write: 't' is shared by all iterations and modified here
    A[i] = t++;
#endif
#ifdef RACYADDR
  void g(double *);
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++)
// RACYADDR: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:7: error: racy write: 't' is shared by all iterations and its address is taken
    g(&t);
#endif
#ifdef RACYINNER
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++)
// RACYINNER: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:12: error: racy write: 'j' is shared by all iterations and written here
    for (j = 0; j < 4; j++)
      A[i] += j;
#endif
#ifdef SQUARE
// SQUARE: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:35: error: the section start 'i*i' is not affine in the loop variable 'i' (product of two terms that use 'i')
#pragma hce co_exec map(tofrom: A[i*i:1])
  for (int i = 0; i < n; i++)
    A[i * i] = 0;
// SQUARE-NOT: not mapped
#endif
#ifdef INDIRECT
// INDIRECT: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:35: error: the section start 'idx[i]' is not affine in the loop variable 'i' (subscript that uses 'i')
#pragma hce co_exec map(tofrom: A[idx[i]:1]) map(to: idx[i:1])
  for (int i = 0; i < n; i++)
    A[idx[i]] = 0;
#endif
#ifdef DIVIDE
// DIVIDE: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:35: error: the section start 'i/2' is not affine in the loop variable 'i' ('/' applied to a term that uses 'i')
#pragma hce co_exec map(tofrom: A[i/2:1])
  for (int i = 0; i < n; i++)
    A[i / 2] = 0;
#endif
#ifdef LENVAR
// LENVAR: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:37: error: the section length must not depend on the loop variable 'i'
#pragma hce co_exec map(tofrom: A[0:i+1])
  for (int i = 0; i < n; i++)
    A[i] = 0;
#endif
#ifdef NOLEN
// NOLEN: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:33: error: the length of 'A' is unknown; write a section such as A[0:n]
#pragma hce co_exec map(tofrom: A)
  for (int i = 0; i < n; i++)
    A[i * i] = 0; // not a footprint the translator can derive
#endif
#ifdef MULTIDIM
// MULTIDIM: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:42: error: the section has 3 dimensions but 'M' has only 2
#pragma hce co_exec map(tofrom: M[i][0:8][0])
  for (int i = 0; i < n; i++)
    M[i][0] = 0;
#endif
#ifdef ARRAY2D
  double **PP = 0;
// ARRAY2D: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:33: error: 'PP' is an array of row pointers ('double **'): map a section of its rows with two subscripts, the rows and the elements of each row, e.g. map(to: PP[i][0:n])
#pragma hce co_exec map(tofrom: PP[i:1])
  for (int i = 0; i < n; i++)
    PP[i][0] = 0;
#endif
#ifdef PTRWRITE
#pragma hce co_exec map(tofrom: A[0:n])
  for (int i = 0; i < n; i++)
// PTRWRITE: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:7: error: the mapped pointer 'A' must not be modified in the loop
    A = B;
#endif
#ifdef TWICE
// Several maps of one array are fine (map-several.c); a private one is not.
// TWICE: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:52: error: 'B' is a reduction or private variable: it cannot also be mapped
#pragma hce co_exec private(B) map(tofrom: A[i:1], B[i:1])
  for (int i = 0; i < n; i++)
    A[i] = B[i];
#endif
#ifdef REDTYPE
// REDTYPE: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:34: error: reduction variable 'p' has type 'struct pair'; expected an integer, float or double
#pragma hce co_exec reduction(+: p)
// REDTYPE-NOT: racy write
  for (int i = 0; i < n; i++)
    p.a += 1;
#endif
#ifdef LOCALTYPE
  typedef struct { int k; } local_t;
  local_t L = {3};
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++)
// LOCALTYPE: {{^}}{{.*}}diag-data.c:[[@LINE+1]]:12: error: cannot capture 'L' in a co_exec loop: its type 'local_t' is declared inside a function
    A[i] = L.k;
#endif
}
