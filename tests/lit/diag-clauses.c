// Malformed clauses: the error points at the offending token of the pragma.
//
// RUN: rm -f %t.out.c
// RUN: not %hce-translate %s -o %t.out.c -- -DUNKNOWN 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %hce-translate %s -o %t.out.c -- -DNOPAREN 2>&1 | FileCheck %s --check-prefix=NOPAREN
// RUN: not %hce-translate %s -o %t.out.c -- -DMAPCOLON 2>&1 | FileCheck %s --check-prefix=MAPCOLON
// RUN: not %hce-translate %s -o %t.out.c -- -DMAPTYPE 2>&1 | FileCheck %s --check-prefix=MAPTYPE
// RUN: not %hce-translate %s -o %t.out.c -- -DUNBALANCED 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// RUN: not %hce-translate %s -o %t.out.c -- -DSTRIDE 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not %hce-translate %s -o %t.out.c -- -DSCHED 2>&1 | FileCheck %s --check-prefix=SCHED
// RUN: not %hce-translate %s -o %t.out.c -- -DSCHEDCHUNK 2>&1 | FileCheck %s --check-prefix=SCHEDCHUNK
// RUN: not %hce-translate %s -o %t.out.c -- -DDUP 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: not %hce-translate %s -o %t.out.c -- -DREDOP 2>&1 | FileCheck %s --check-prefix=REDOP
// RUN: not %hce-translate %s -o %t.out.c -- -DREDMINUS 2>&1 | FileCheck %s --check-prefix=REDMINUS
// RUN: not %hce-translate %s -o %t.out.c -- -DDEVICE 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not %hce-translate %s -o %t.out.c -- -DDEVNUM 2>&1 | FileCheck %s --check-prefix=DEVNUM
// RUN: not %hce-translate %s -o %t.out.c -- -DRATIO 2>&1 | FileCheck %s --check-prefix=RATIO
// RUN: not %hce-translate %s -o %t.out.c -- -DCO 2>&1 | FileCheck %s --check-prefix=CO
// RUN: not %hce-translate %s -o %t.out.c -- -DNAME 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not %hce-translate %s -o %t.out.c -- -DSTRING 2>&1 | FileCheck %s --check-prefix=STRING
// RUN: not %hce-translate %s -o %t.out.c -- -DCHUNKEMPTY 2>&1 | FileCheck %s --check-prefix=CHUNKEMPTY
// RUN: test ! -e %t.out.c

void f(int n, double *A, double s) {
#ifdef UNKNOWN
// UNKNOWN: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:41: error: unknown clause 'bogus' in '#pragma hce co_exec'
#pragma hce co_exec map(tofrom: A[i:1]) bogus(3)
#endif
#ifdef NOPAREN
// NOPAREN: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:30: error: expected '(' after 'schedule', found 'fdets'
#pragma hce co_exec schedule fdets
#endif
#ifdef MAPCOLON
// MAPCOLON: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:32: error: expected ',' or ')' in 'map', found 'A'
#pragma hce co_exec map(tofrom A[i:1])
#endif
#ifdef MAPTYPE
// MAPTYPE: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:25: error: unknown map type or modifier 'into'; expected to, from, tofrom, alloc or always
#pragma hce co_exec map(into: A[i:1])
#endif
#ifdef UNBALANCED
// UNBALANCED: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:38: error: unbalanced ')' in a section start
#pragma hce co_exec map(tofrom: A[(i)):1])
#endif
#ifdef STRIDE
// STRIDE: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:38: error: array sections with a stride are not supported
#pragma hce co_exec map(tofrom: A[i:1:2])
#endif
#ifdef SCHED
// SCHED: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:30: error: unknown schedule 'dynamic'; expected static, quick, split, hguided, logfit, fdets, adets, eft, auto or profile
#pragma hce co_exec schedule(dynamic) map(tofrom: A[i:1])
#endif
#ifdef SCHEDCHUNK
// SCHEDCHUNK: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:36: error: 'schedule' takes only the scheduler name; give the chunk with 'chunk(...)'
#pragma hce co_exec schedule(static, 4) map(tofrom: A[i:1])
#endif
#ifdef DUP
// DUP: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:37: error: duplicate 'schedule' clause
#pragma hce co_exec schedule(fdets) schedule(adets)
#endif
#ifdef REDOP
// REDOP: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:31: error: unknown reduction operator '/'; expected +, *, min, max, &, |, ^, && or ||
#pragma hce co_exec reduction(/: s)
#endif
#ifdef REDMINUS
// REDMINUS: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:31: error: reduction operator '-' is not supported; use '+'
#pragma hce co_exec reduction(-: s)
#endif
#ifdef DEVICE
// DEVICE: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:34: error: unknown device 'gpu'; expected cpu, cuda[:N], omp[:N] or sim[:N]
#pragma hce co_exec devices(cpu, gpu)
#endif
#ifdef DEVNUM
// DEVNUM: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:34: error: expected a device number after 'cuda:'
#pragma hce co_exec devices(cuda:x)
#endif
#ifdef RATIO
// RATIO: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:31: error: invalid ratio '0.3x'; expected a non-negative number
#pragma hce co_exec ratio(cpu=0.3x, sim:0=0.7)
#endif
#ifdef CO
// CO: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:24: error: unknown communication optimisation 'fast'; expected none, incremental or pipelined
#pragma hce co_exec co(fast)
#endif
#ifdef NAME
// NAME: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:26: error: expected a string literal in 'name', found 'loop1'
#pragma hce co_exec name(loop1)
#endif
#ifdef STRING
// STRING: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:26: error: unterminated literal or comment
#pragma hce co_exec name("loop1)
#endif
#ifdef CHUNKEMPTY
// CHUNKEMPTY: {{^}}{{.*}}diag-clauses.c:[[@LINE+1]]:27: error: expected an expression in 'chunk'
#pragma hce co_exec chunk()
#endif
  for (int i = 0; i < n; i++)
    A[i] = s;
}
