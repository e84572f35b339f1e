// Jumps out of the loop body. Jumps that stay inside it are fine.
//
// RUN: rm -f %t.out.c
// RUN: not %hce-translate %s -o %t.out.c -- -DBREAK 2>&1 | FileCheck %s --check-prefix=BREAK
// RUN: not %hce-translate %s -o %t.out.c -- -DRETURN 2>&1 | FileCheck %s --check-prefix=RETURN
// RUN: not %hce-translate %s -o %t.out.c -- -DGOTO 2>&1 | FileCheck %s --check-prefix=GOTO
// RUN: test ! -e %t.out.c
// RUN: %hce-translate %s -o %t.out.c -- -DINSIDE
// RUN: %clang -fsyntax-only -fopenmp -I%hce-include %t.out.c

int f(int n, double *A) {
#ifdef BREAK
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) {
    if (A[i] < 0)
// BREAK: {{^}}{{.*}}diag-exits.c:[[@LINE+1]]:7: error: 'break' cannot leave a co_exec loop
      break;
    A[i] = 1;
  }
#endif
#ifdef RETURN
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) {
    if (A[i] < 0)
// RETURN: {{^}}{{.*}}diag-exits.c:[[@LINE+1]]:7: error: 'return' cannot leave a co_exec loop
      return 1;
    A[i] = 1;
  }
#endif
#ifdef GOTO
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) {
    if (A[i] < 0)
// GOTO: {{^}}{{.*}}diag-exits.c:[[@LINE+1]]:7: error: 'goto' cannot leave a co_exec loop
      goto out;
    A[i] = 1;
  }
out:
#endif
#ifdef INSIDE
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 10; j++)
      if (j > 3)
        break;
    switch (i % 3) {
    case 0:
      A[i] = 0;
      break;
    default:
      continue;
    }
    if (A[i] > 5)
      goto next;
    A[i] += 1;
  next:;
  }
#endif
  return 0;
}
