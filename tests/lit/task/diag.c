// Malformed nowait / depend / taskwait: the error points at the offending
// token, and no output file is left behind.
//
// RUN: rm -f %t.out.c
// RUN: not %hce-translate %s -o %t.out.c -- -DDEPTYPE 2>&1 | FileCheck %s --check-prefix=DEPTYPE
// RUN: not %hce-translate %s -o %t.out.c -- -DDEPCOLON 2>&1 | FileCheck %s --check-prefix=DEPCOLON
// RUN: not %hce-translate %s -o %t.out.c -- -DDEPSECTION 2>&1 | FileCheck %s --check-prefix=DEPSECTION
// RUN: not %hce-translate %s -o %t.out.c -- -DDEPEMPTY 2>&1 | FileCheck %s --check-prefix=DEPEMPTY
// RUN: not %hce-translate %s -o %t.out.c -- -DDEPNOWAIT 2>&1 | FileCheck %s --check-prefix=DEPNOWAIT
// RUN: not %hce-translate %s -o %t.out.c -- -DDEPUNKNOWN 2>&1 | FileCheck %s --check-prefix=DEPUNKNOWN
// RUN: not %hce-translate %s -o %t.out.c -- -DNOWAITARGS 2>&1 | FileCheck %s --check-prefix=NOWAITARGS
// RUN: not %hce-translate %s -o %t.out.c -- -DNOWAITDUP 2>&1 | FileCheck %s --check-prefix=NOWAITDUP
// RUN: not %hce-translate %s -o %t.out.c -- -DTWCLAUSE 2>&1 | FileCheck %s --check-prefix=TWCLAUSE
// RUN: not %hce-translate %s -o %t.out.c -- -DTWIF 2>&1 | FileCheck %s --check-prefix=TWIF
// RUN: not %hce-translate %s -o %t.out.c -- -DTWLOOP 2>&1 | FileCheck %s --check-prefix=TWLOOP
// RUN: not %hce-translate %s -o %t.out.c -- -DTWFILE 2>&1 | FileCheck %s --check-prefix=TWFILE
// RUN: test ! -e %t.out.c

#ifdef TWFILE
// TWFILE: {{^}}{{.*}}diag.c:[[@LINE+1]]:13: error: '#pragma hce taskwait' must be a statement inside a function
#pragma hce taskwait
int g;
#endif

void f(int n, double *A, double *B) {
#ifdef DEPTYPE
// DEPTYPE: {{^}}{{.*}}diag.c:[[@LINE+1]]:35: error: unknown dependence type 'mutexinoutset'; expected in, out or inout
#pragma hce co_exec nowait depend(mutexinoutset: A) map(tofrom: A[i:1])
#endif
#ifdef DEPCOLON
// DEPCOLON: {{^}}{{.*}}diag.c:[[@LINE+1]]:38: error: expected ':' after the dependence type, found 'A'
#pragma hce co_exec nowait depend(in A) map(tofrom: A[i:1])
#endif
#ifdef DEPSECTION
// DEPSECTION: {{^}}{{.*}}diag.c:[[@LINE+1]]:40: error: 'depend' takes variable names: a dependence is on the whole of 'A' (its base address), not on a section or member
#pragma hce co_exec nowait depend(in: A[0:n]) map(tofrom: A[i:1])
#endif
#ifdef DEPEMPTY
// DEPEMPTY: {{^}}{{.*}}diag.c:[[@LINE+1]]:39: error: expected a variable name in 'depend', found ')'
#pragma hce co_exec nowait depend(in: ) map(tofrom: A[i:1])
#endif
#ifdef DEPNOWAIT
// DEPNOWAIT: {{^}}{{.*}}diag.c:[[@LINE+1]]:21: error: 'depend' needs 'nowait': a region without it is complete before the program goes on
#pragma hce co_exec depend(in: A) map(tofrom: A[i:1])
#endif
#ifdef DEPUNKNOWN
// DEPUNKNOWN: {{^}}{{.*}}diag.c:[[@LINE+1]]:39: error: no variable named 'C' is visible here
#pragma hce co_exec nowait depend(in: C) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++)
    A[i] += 2;
#endif
#ifdef NOWAITARGS
// NOWAITARGS: {{^}}{{.*}}diag.c:[[@LINE+1]]:27: error: 'nowait' takes no arguments
#pragma hce co_exec nowait(1) map(tofrom: A[i:1])
#endif
#ifdef NOWAITDUP
// NOWAITDUP: {{^}}{{.*}}diag.c:[[@LINE+1]]:28: error: duplicate 'nowait' clause
#pragma hce co_exec nowait nowait map(tofrom: A[i:1])
#endif
  for (int i = 0; i < n; i++)
    A[i] += 1;
#ifdef TWCLAUSE
// TWCLAUSE: {{^}}{{.*}}diag.c:[[@LINE+1]]:22: error: '#pragma hce taskwait' takes no clauses
#pragma hce taskwait depend(in: A)
#endif
#ifdef TWIF
  if (n)
// TWIF: {{^}}{{.*}}diag.c:[[@LINE+1]]:13: error: '#pragma hce taskwait' must be a statement of a block ({ ... }), not the body of an 'if', a loop or a label
#pragma hce taskwait
    B[0] = 1;
#endif
#ifdef TWLOOP
#pragma hce co_exec map(tofrom: B[i:1])
  for (int i = 0; i < n; i++) {
// TWLOOP: {{^}}{{.*}}diag.c:[[@LINE+1]]:13: error: '#pragma hce taskwait' cannot appear inside a co_exec loop
#pragma hce taskwait
    B[i] = 2;
  }
#endif
}
