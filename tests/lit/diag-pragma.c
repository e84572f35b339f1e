// Errors about the pragma itself and what follows it. No output file may be
// left behind, not even a stale one from an earlier run.
//
// RUN: echo stale > %t.out.c
// RUN: not %hce-translate %s -o %t.out.c -- -DNOTFOR 2>&1 | FileCheck %s --check-prefix=NOTFOR
// RUN: test ! -e %t.out.c
// RUN: not %hce-translate %s -o %t.out.c -- -DDECL 2>&1 | FileCheck %s --check-prefix=DECL
// RUN: not %hce-translate %s -o %t.out.c -- -DATEND 2>&1 | FileCheck %s --check-prefix=ATEND
// RUN: not %hce-translate %s -o %t.out.c -- -DOMPFOR 2>&1 | FileCheck %s --check-prefix=OMPFOR
// RUN: not %hce-translate %s -o %t.out.c -- -DNODIRECTIVE 2>&1 | FileCheck %s --check-prefix=NODIRECTIVE
// RUN: not %hce-translate %s -o %t.out.c -- -DUNKNOWNDIR 2>&1 | FileCheck %s --check-prefix=UNKNOWNDIR
// RUN: not %hce-translate %s -o %t.out.c -- -DDATA 2>&1 | FileCheck %s --check-prefix=DATA
// RUN: not %hce-translate %s -o %t.out.c -- -DNESTED 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not %hce-translate %s -o %t.out.c -- -DOPERATOR 2>&1 | FileCheck %s --check-prefix=OPERATOR
// RUN: not %hce-translate %s -o %t.out.c -- -DCOMPILE 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: test ! -e %t.out.c

void f(int n, double *A) {
#ifdef NOTFOR
// NOTFOR: {{^}}{{.*}}diag-pragma.c:[[@LINE+1]]:13: error: '#pragma hce co_exec' must be followed by a 'for' loop
#pragma hce co_exec map(tofrom: A[n:1])
  while (n--)
    A[n] = 0;
// NOTFOR: {{^}}{{.*}}diag-pragma.c:[[@LINE-2]]:3: note: this statement is not a 'for' loop
#endif
#ifdef DECL
// DECL: {{^}}{{.*}}diag-pragma.c:[[@LINE+1]]:13: error: '#pragma hce co_exec' must be followed by a 'for' loop
#pragma hce co_exec
  int k = 0;
  (void)k;
#endif
#ifdef ATEND
  A[0] = 1;
// ATEND: {{^}}{{.*}}diag-pragma.c:[[@LINE+1]]:13: error: '#pragma hce co_exec' must be followed by a 'for' loop
#pragma hce co_exec
#endif
#ifdef OMPFOR
#pragma hce co_exec map(tofrom: A[i:1])
// OMPFOR: {{^}}{{.*}}diag-pragma.c:[[@LINE+1]]:1: error: only '#pragma omp parallel for', 'for' or 'simd' (or their 'simd' forms) may appear between '#pragma hce co_exec' and its loop
#pragma omp taskloop
  for (int i = 0; i < n; i++)
    A[i] = 0;
#endif
#ifdef NODIRECTIVE
// NODIRECTIVE: {{^}}{{.*}}diag-pragma.c:[[@LINE+1]]:12: error: expected 'co_exec', 'data', 'update' or 'taskwait' after '#pragma hce'
#pragma hce
  for (int i = 0; i < n; i++)
    A[i] = 0;
#endif
#ifdef UNKNOWNDIR
// UNKNOWNDIR: {{^}}{{.*}}diag-pragma.c:[[@LINE+1]]:13: error: unknown directive '#pragma hce coexec'; expected co_exec, data, update or taskwait
#pragma hce coexec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++)
    A[i] = 0;
#endif
#ifdef DATA
// DATA: {{^}}{{.*}}diag-pragma.c:[[@LINE+1]]:21: error: unknown clause 'schedule' in '#pragma hce data'; expected map(...)
#pragma hce data    schedule(static) map(tofrom: A[0:n])
  {
  }
#endif
#ifdef NESTED
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) {
// NESTED: {{^}}{{.*}}diag-pragma.c:[[@LINE+1]]:13: error: nested co_exec regions are not supported
#pragma hce co_exec map(tofrom: A[j:1])
    for (int j = 0; j < n; j++)
      A[j] += 1;
  }
#endif
#ifdef OPERATOR
// OPERATOR: {{^}}{{.*}}diag-pragma.c:[[@LINE+1]]:1: error: 'hce' pragmas must be written as '#pragma hce', not with _Pragma or __pragma
_Pragma("hce co_exec map(tofrom: A[i:1])")
  for (int i = 0; i < n; i++)
    A[i] = 0;
#endif
#ifdef COMPILE
  // Ordinary compile errors fail the translation too.
// COMPILE: {{^}}{{.*}}diag-pragma.c:[[@LINE+1]]:3: error: use of undeclared identifier 'undeclared'
  undeclared = 1;
#endif
}
