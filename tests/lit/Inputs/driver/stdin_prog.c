/* Input of driver-clang-modes.c: a whole program read from standard input,
   a co_exec loop checked against a sequential loop. */
#include <stdio.h>

int main(void) {
  enum { n = 1000 };
  static double a[n], ref[n];
  for (int i = 0; i < n; i++)
    a[i] = ref[i] = (i * 37 % 101) / 3.0;
#pragma hce co_exec map(tofrom: a[i:1])
  for (int i = 0; i < n; i++)
    a[i] = 2 * a[i] + 1;
  int bad = 0;
  for (int i = 0; i < n; i++)
    bad += a[i] != 2 * ref[i] + 1;
  printf("stdin: mismatches=%d\n", bad);
  return bad != 0;
}
