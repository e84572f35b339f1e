// Clause expressions are checked where the user wrote them, not left to
// fail in the generated code: no side effects, every name declared, and a
// mapped name must be a visible variable.
//
// RUN: rm -f %t.out.c
// RUN: not %hce-translate %s -o %t.out.c -- -DCHUNK_INC 2>&1 | FileCheck %s --check-prefix=CHUNK_INC
// RUN: not %hce-translate %s -o %t.out.c -- -DCHUNK_UNDECL 2>&1 | FileCheck %s --check-prefix=CHUNK_UNDECL
// RUN: not %hce-translate %s -o %t.out.c -- -DSECTION_UNDECL 2>&1 | FileCheck %s --check-prefix=SECTION_UNDECL
// RUN: not %hce-translate %s -o %t.out.c -- -DMAP_UNDECL 2>&1 | FileCheck %s --check-prefix=MAP_UNDECL
// RUN: not %hce-translate %s -o %t.out.c -- -DALPHA_ASSIGN 2>&1 | FileCheck %s --check-prefix=ALPHA_ASSIGN
// RUN: test ! -e %t.out.c
// Names that are declared (a parameter, a macro, a global, an enumerator)
// are fine:
// RUN: %hce-translate %s -o %t.ok.c

#define CH 64
enum { HALF = 2 };
static int g_chunk = 16;

void f(int n, double *x) {
  (void)g_chunk;
#ifdef CHUNK_INC
// CHUNK_INC: diag-clause-exprs.c:[[@LINE+1]]:48: error: '++' is not allowed in a clause expression: it must not modify anything
#pragma hce co_exec map(tofrom: x[i:1]) chunk(1++1)
  for (int i = 0; i < n; i++)
    x[i] = 1;
#endif
#ifdef CHUNK_UNDECL
// CHUNK_UNDECL: diag-clause-exprs.c:[[@LINE+1]]:47: error: use of undeclared identifier 'nn'
#pragma hce co_exec map(tofrom: x[i:1]) chunk(nn)
  for (int i = 0; i < n; i++)
    x[i] = 1;
#endif
#ifdef SECTION_UNDECL
// SECTION_UNDECL: diag-clause-exprs.c:[[@LINE+1]]:35: error: use of undeclared identifier 'm'
#pragma hce co_exec map(tofrom: x[m*i:1])
  for (int i = 0; i < n; i++)
    x[i] = 1;
#endif
#ifdef MAP_UNDECL
// MAP_UNDECL: diag-clause-exprs.c:[[@LINE+1]]:41: error: no variable named 'zz' is visible here
#pragma hce co_exec map(tofrom: x[i:1], zz[0:4])
  for (int i = 0; i < n; i++)
    x[i] = 1;
#endif
#ifdef ALPHA_ASSIGN
// ALPHA_ASSIGN: diag-clause-exprs.c:[[@LINE+1]]:55: error: '=' is not allowed in a clause expression: it must not modify anything
#pragma hce co_exec map(tofrom: x[i:1]) alpha(g_chunk = 1)
  for (int i = 0; i < n; i++)
    x[i] = 1;
#endif
#pragma hce co_exec map(tofrom: x[HALF*i:1]) chunk(CH + g_chunk + n)
  for (int i = 0; i < n / 2; i++)
    x[2 * i] = 1;
}
