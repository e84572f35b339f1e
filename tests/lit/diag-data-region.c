// Errors of #pragma hce data / update: jumps that would skip hce_data_end
// (or hce_data_begin), what may follow a data directive, where update may
// appear, and their clauses. No output file is left behind.
//
// RUN: rm -f %t.out.c
// RUN: not %hce-translate %s -o %t.out.c -- -DBREAK 2>&1 | FileCheck %s --check-prefix=BREAK
// RUN: not %hce-translate %s -o %t.out.c -- -DCONTINUE 2>&1 | FileCheck %s --check-prefix=CONTINUE
// RUN: not %hce-translate %s -o %t.out.c -- -DRETURN 2>&1 | FileCheck %s --check-prefix=RETURN
// RUN: not %hce-translate %s -o %t.out.c -- -DGOTOOUT 2>&1 | FileCheck %s --check-prefix=GOTOOUT
// RUN: not %hce-translate %s -o %t.out.c -- -DGOTOIN 2>&1 | FileCheck %s --check-prefix=GOTOIN
// RUN: not %hce-translate %s -o %t.out.c -- -DDECL 2>&1 | FileCheck %s --check-prefix=DECL
// RUN: not %hce-translate %s -o %t.out.c -- -DATEND 2>&1 | FileCheck %s --check-prefix=ATEND
// RUN: not %hce-translate %s -o %t.out.c -- -DDATAUPDATE 2>&1 | FileCheck %s --check-prefix=DATAUPDATE
// RUN: not %hce-translate %s -o %t.out.c -- -DLOOPVAR 2>&1 | FileCheck %s --check-prefix=LOOPVAR
// RUN: not %hce-translate %s -o %t.out.c -- -DCOEXECVAR 2>&1 | FileCheck %s --check-prefix=COEXECVAR
// RUN: not %hce-translate %s -o %t.out.c -- -DINCOEXEC 2>&1 | FileCheck %s --check-prefix=INCOEXEC
// RUN: not %hce-translate %s -o %t.out.c -- -DUPDATEBODY 2>&1 | FileCheck %s --check-prefix=UPDATEBODY
// RUN: not %hce-translate %s -o %t.out.c -- -DFILESCOPE 2>&1 | FileCheck %s --check-prefix=FILESCOPE
// RUN: not %hce-translate %s -o %t.out.c -- -DNOCLAUSE 2>&1 | FileCheck %s --check-prefix=NOCLAUSE
// RUN: not %hce-translate %s -o %t.out.c -- -DNOMAP 2>&1 | FileCheck %s --check-prefix=NOMAP
// RUN: not %hce-translate %s -o %t.out.c -- -DBADCLAUSE 2>&1 | FileCheck %s --check-prefix=BADCLAUSE
// RUN: not %hce-translate %s -o %t.out.c -- -DDUP 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: not %hce-translate %s -o %t.out.c -- -DDATADUP 2>&1 | FileCheck %s --check-prefix=DATADUP
// RUN: not %hce-translate %s -o %t.out.c -- -DUNKNOWNVAR 2>&1 | FileCheck %s --check-prefix=UNKNOWNVAR
// RUN: not %hce-translate %s -o %t.out.c -- -DSCALAR 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: test ! -e %t.out.c
// Jumps that stay inside the region are fine:
// RUN: %hce-translate %s -o %t.ok.c -- -DINNERJUMPS

#ifdef FILESCOPE
// FILESCOPE: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:13: error: '#pragma hce update' must be inside a function body
#pragma hce update to(G[0:4])
#endif
double G[4];

void f(int n, double *A, double s) {
  (void)s;
#ifdef BREAK
  for (int t = 0; t < 3; t++) {
#pragma hce data map(tofrom: A[0:n])
    {
      if (A[0] > 1)
// BREAK: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:9: error: 'break' cannot leave a '#pragma hce data' region (its hce_data_end would be skipped); leave the region at its end instead
        break;
    }
  }
#endif
#ifdef CONTINUE
  for (int t = 0; t < 3; t++)
#pragma hce data map(tofrom: A[0:n])
  {
// CONTINUE: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:17: error: 'continue' cannot leave a '#pragma hce data' region
    if (t == 1) continue;
  }
#endif
#ifdef RETURN
#pragma hce data map(tofrom: A[0:n])
  {
// RETURN: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:16: error: 'return' cannot leave a '#pragma hce data' region
    if (n < 0) return;
  }
#endif
#ifdef GOTOOUT
#pragma hce data map(tofrom: A[0:n])
  {
// GOTOOUT: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:16: error: 'goto' cannot leave a '#pragma hce data' region
    if (n < 0) goto out;
  }
out:
  ;
#endif
#ifdef GOTOIN
// GOTOIN: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:14: error: 'goto' cannot jump into a '#pragma hce data' region (its hce_data_begin would be skipped)
  if (n > 4) goto in;
#pragma hce data map(tofrom: A[0:n])
  {
  in:
    A[0] = 1;
  }
#endif
#ifdef DECL
// DECL: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:13: error: '#pragma hce data' cannot apply to a declaration (its scope would end with the region); put the region in braces
#pragma hce data map(tofrom: A[0:n])
  double x = A[0];
// DECL: {{^}}{{.*}}diag-data-region.c:[[@LINE-1]]:3: note: this declaration
  (void)x;
#endif
#ifdef ATEND
  {
    A[0] = 1;
// ATEND: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:13: error: '#pragma hce data' must be followed by a statement
#pragma hce data map(tofrom: A[0:n])
  }
#endif
#ifdef DATAUPDATE
// DATAUPDATE: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:13: error: '#pragma hce data' must be followed by a statement, not by '#pragma hce update'
#pragma hce data map(tofrom: A[0:n])
#pragma hce update to(A[0:n])
  A[0] = 1;
#endif
#ifdef LOOPVAR
// LOOPVAR: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:32: error: the sections of '#pragma hce data' are evaluated once, before the loop: they cannot use its variable 't'
#pragma hce data map(tofrom: A[t:1])
  for (int t = 0; t < n; t++)
    A[t] += 1;
#endif
#ifdef COEXECVAR
// COEXECVAR: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:34: error: the sections of '#pragma hce data' are evaluated once, before the loop: they cannot use its variable 'i'
#pragma hce data map(tofrom: A[0:i])
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++)
    A[i] += 1;
#endif
#ifdef INCOEXEC
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) {
// INCOEXEC: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:13: error: '#pragma hce update' cannot appear inside a co_exec loop
#pragma hce update to(A[i:1])
    A[i] += 1;
  }
#endif
#ifdef UPDATEBODY
  if (n > 2)
// UPDATEBODY: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:13: error: '#pragma hce update' must be a statement of a block ({ ... }), not the body of an 'if', a loop or a label
#pragma hce update from(A[0:n])
  A[0] = 0;
#endif
#ifdef NOCLAUSE
// NOCLAUSE: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:19: error: '#pragma hce update' needs at least one to(...) or from(...) clause
#pragma hce update
#endif
#ifdef NOMAP
// NOMAP: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:17: error: '#pragma hce data' needs at least one map(...) clause
#pragma hce data
  { A[0] = 1; }
#endif
#ifdef BADCLAUSE
// BADCLAUSE: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:20: error: unknown clause 'map' in '#pragma hce update'; expected to(...) or from(...)
#pragma hce update map(to: A[0:n])
#endif
#ifdef DUP
// Several sections of one array in one list are fine (update-sections.c),
// but not one array in both lists (OpenMP's rule for target update).
// DUP: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:46: error: 'A' appears in both to(...) and from(...) of '#pragma hce update'
#pragma hce update to(A[0:1], A[n-1:1]) from(A[0:n])
#endif
#ifdef DATADUP
// DATADUP: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:44: error: 'A' appears more than once in '#pragma hce data'
#pragma hce data map(to: A[0:1]) map(from: A[1:1])
  { A[0] = 1; }
#endif
#ifdef UNKNOWNVAR
// UNKNOWNVAR: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:38: error: no variable named 'nothere' is visible here
#pragma hce data map(to: A[0:n]) map(nothere[0:4])
  { A[0] = 1; }
#endif
#ifdef SCALAR
// SCALAR: {{^}}{{.*}}diag-data-region.c:[[@LINE+1]]:23: error: cannot map 's': it is not a pointer or an array
#pragma hce update to(s)
#endif
#ifdef INNERJUMPS
#pragma hce data map(tofrom: A[0:n])
  {
    for (int t = 0; t < n; t++) {
      if (t == 2) continue;
      if (A[t] > 3) break;
      switch (t) { case 1: break; default: goto next; }
    next:
      A[t] += 1;
    }
  }
#endif
}
