// The output carries #line directives, so that diagnostics of the compiler
// that builds it point into the original file, body included; they can be
// turned off.
//
// RUN: %hce-translate %s -o %t.c
// RUN: %clang -fsyntax-only -fopenmp -Wunused-variable -I%hce-include %t.c 2>&1 | FileCheck %s
// RUN: %hce-translate %s -o %t.noline.c --no-line-directives
// RUN: not grep -n '^#line' %t.noline.c
// RUN: %clang -fsyntax-only -fopenmp -I%hce-include %t.noline.c

void f(int n, double *A) {
#pragma hce co_exec map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) {
// CHECK: {{^}}{{.*}}line-directives.c:[[@LINE+1]]:9: warning: unused variable 'unused_in_body'
    int unused_in_body;
    A[i] += 1;
  }
// CHECK: {{^}}{{.*}}line-directives.c:[[@LINE+1]]:7: warning: unused variable 'unused_after'
  int unused_after;
}
