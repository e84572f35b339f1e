// Sections the translator can prove wrong: a constant section longer than
// the declared array (the runtime would read past it), an empty section
// (the device would get no copy), and a start nested too deeply to analyse
// (a clean diagnostic, not a stack overflow). All located in the pragma.
//
// RUN: rm -f %t.out.c
// RUN: not %hce-translate %s -o %t.out.c -- -DLONG 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not %hce-translate %s -o %t.out.c -- -DLONG2D 2>&1 | FileCheck %s --check-prefix=LONG2D
// RUN: not %hce-translate %s -o %t.out.c -- -DEMPTY 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not %hce-translate %s -o %t.out.c -- -DMACRO 2>&1 | FileCheck %s --check-prefix=MACRO
// RUN: test ! -e %t.out.c
// A macro that expands to an affine start is fine:
// RUN: %hce-translate %s -o %t.ok.c -- -DMACRO_OK
// RUN: python3 -c "print('void g(int n, double *a) {\n#pragma hce co_exec map(tofrom: a[' + '('*50000 + 'i' + ')'*50000 + ':1])\n  for (int i = 0; i < n; i++) a[i] = 0;\n}')" > %t.deep.c
// RUN: not %hce-translate %t.deep.c -o %t.out.c 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: test ! -e %t.out.c

#define SQ(i) ((i) * (i))
#define ROW(r, n) ((r) * (n))

void f(int n, double *x) {
  double A[16];
  double B[4][8];
  (void)A, (void)B;
#ifdef LONG
// LONG: diag-section-bounds.c:[[@LINE+1]]:30: error: the section [0:32] of 'A' ends at element 32, beyond the 16 elements of the array
#pragma hce co_exec map(to: A[0:32]) map(tofrom: x[i:1])
  for (int i = 0; i < n; i++)
    x[i] = A[i % 16];
#endif
#ifdef LONG2D
// LONG2D: diag-section-bounds.c:[[@LINE+1]]:35: error: the section [2:7] of 'B' ends at element 9, beyond the 8 elements of its dimension 1
#pragma hce co_exec map(to: B[0:4][2:7]) map(tofrom: x[i:1])
  for (int i = 0; i < n; i++)
    x[i] = B[i % 4][2];
#endif
#ifdef MACRO
// MACRO: diag-section-bounds.c:[[@LINE+1]]:31: error: the section start 'SQ(i)' expands to '{{.*}}', which is not affine in the loop variable 'i' (product of two terms that use 'i')
#pragma hce co_exec map(to: x[SQ(i):1]) map(tofrom: A[0:16])
  for (int i = 0; i < 4; i++)
    A[i] = x[i * i];
#endif
#ifdef MACRO_OK
#pragma hce co_exec map(to: x[ROW(i, 4):4]) map(tofrom: A[i:1])
  for (int i = 0; i < 4; i++)
    A[i] = x[4 * i];
#endif
#ifdef EMPTY
// EMPTY: diag-section-bounds.c:[[@LINE+1]]:37: error: the section of 'x' is empty (length 0)
#pragma hce co_exec map(tofrom: x[i:0])
  for (int i = 0; i < n; i++)
    x[i] = 1;
#endif
}
// DEEP: deep.c:2:35: error: the section start '((((({{.*}}...' is not affine in the loop variable 'i' (nested more than 256 levels deep)
