// Legacy C parses as the user's flags say (issue 13.5): a call to an
// undeclared function is an error for clang 19 in C99, and so for hce-cc;
// with -Wno-error=implicit-function-declaration clang accepts it,
// and hce-cc passes the flag to the translator, which accepts it too.
//
// RUN: not %hce-cc --hce-no-cuda %s -o %t.exe 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: %hce-cc --hce-no-cuda -Wno-error=implicit-function-declaration %s -o %t.exe
// RUN: env HCE_DEVICES=cpu %t.exe | FileCheck %s
// ERR: legacy-c-flags.c:[[@LINE+6]]:{{[0-9]+}}: error: call to undeclared function 'clock'
// CHECK: sum=2016 clock=ok

#include <stdio.h>
int main(void) {
  static double A[64];
  long t0 = clock();
  double sum = 0;
#pragma hce co_exec map(from: A[i:1]) reduction(+: sum)
  for (int i = 0; i < 64; i++) {
    A[i] = i;
    sum += i;
  }
  printf("sum=%g clock=%s\n", sum, clock() >= t0 ? "ok" : "bad");
  return 0;
}
