// Preprocessor conditionals between the pragmas and the loop (Rodinia's
// `#ifdef OPEN ... #endif` idiom): every directive and every inactive line
// is kept, the output preprocesses as the input did and compiles cleanly,
// with the guard macro defined or not.
//
// RUN: %hce-translate %s -o %t.c -- -DOPEN
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Wextra -Werror -DOPEN -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: %t.exe | FileCheck %s --check-prefix=EXEC
// RUN: %hce-translate %s -o %t2.c
// RUN: FileCheck %s --input-file %t2.c --check-prefix=OFF
// RUN: %clang -fopenmp -Wall -Wextra -Werror -I%hce-include %t2.c %mockrt -o %t2.exe -lm
// RUN: %t2.exe | FileCheck %s --check-prefix=EXEC
// Something other than directives between the pragma and the loop is still
// refused:
// RUN: not %hce-translate %s -o %t3.c -- -DOPEN -DBAD 2>&1 | FileCheck %s --check-prefix=BAD

#include <stdio.h>
#include <stdlib.h>
#ifdef OPEN
#include <omp.h>
#endif

#define N 500
static float in[N], out[N], ref[N];

int main(void) {
  int i, fails = 0, threads = 2;
  srand(3);
  for (i = 0; i < N; i++)
    in[i] = (float)(rand() % 1000);

  // The guard holds the OpenMP pragma only.
  // CHECK-LABEL: int main(void)
  // CHECK: {{^}}#ifdef OPEN{{$}}
  // CHECK-NEXT: {{^}}#endif{{$}}
  // CHECK-NEXT: { /* hce co_exec region 0 */
  // OFF-LABEL: int main(void)
  // OFF: {{^}}#ifdef OPEN{{$}}
  // OFF-NEXT: {{^}}#pragma omp parallel for{{$}}
  // OFF-NEXT: {{^}}#endif{{$}}
  // OFF-NEXT: { /* hce co_exec region 0 */
#pragma hce co_exec map(to: in[i:1]) map(from: out[i:1])
#ifdef OPEN
#pragma omp parallel for
#endif
  for (i = 0; i < N; i++)
    out[i] = in[i] * 2;
  for (i = 0; i < N; i++)
    fails += out[i] != in[i] * 2;

  // The guard holds a statement and the OpenMP pragma; co_exec right above
  // the loop, an #else branch.
  // CHECK: {{^}}  omp_set_num_threads(threads);
  // CHECK-NEXT: {{^}}#else
  // CHECK-NEXT: {{^}}  (void)threads;
  // CHECK-NEXT: {{^}}#endif
  // CHECK-NEXT: {{^}}{ /* hce co_exec region 1 */
#ifdef OPEN
  omp_set_num_threads(threads);
#pragma omp parallel for shared(in, out) private(i)
#else
  (void)threads;
#endif
#pragma hce co_exec map(to: in[i:1]) map(from: out[i:1])
  for (i = 0; i < N; i++)
    out[i] = in[i] + 1;
  for (i = 0; i < N; i++)
    fails += out[i] != in[i] + 1;

  // Nested guards and a comment between the lines.
  // CHECK: {{^}}#if defined(OPEN) && !defined(SERIAL)
  // CHECK-NEXT: {{^}}#ifdef DEBUG
  // CHECK-NEXT: {{^}}#warning debug build
  // CHECK-NEXT: {{^}}#endif
  // CHECK-NEXT: {{^}}  /* the hot loop */
  // CHECK-NEXT: {{^}}#endif
  // CHECK-NEXT: { /* hce co_exec region 2 */
#pragma hce co_exec map(to: in[i:1]) map(from: ref[i:1])
#if defined(OPEN) && !defined(SERIAL)
#ifdef DEBUG
#warning debug build
#endif
#pragma omp parallel for
  /* the hot loop */
#endif
  for (i = 0; i < N; i++)
    ref[i] = in[i] - 1;
  for (i = 0; i < N; i++)
    fails += ref[i] != in[i] - 1;

#ifdef BAD
// BAD: preprocessor-guards.c:[[@LINE+1]]:13: error: '#pragma hce co_exec' must be followed by a 'for' loop
#pragma hce co_exec map(from: out[i:1])
#ifdef OPEN
  {
#endif
  for (i = 0; i < N; i++)
    out[i] = 0;
#ifdef OPEN
  }
#endif
#endif
  printf("%s\n", fails ? "FAIL" : "ok");
  // EXEC: ok
  return fails;
}
