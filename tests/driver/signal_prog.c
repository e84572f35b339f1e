/* Run by stats_on_signal.py: co-executes one region over and over, says
   "ready" after the first execution, and is stopped by a signal. */
#include <stdio.h>
#include <time.h>

int main(void) {
  enum { n = 4096 };
  static double a[n];
  for (int i = 0; i < n; i++)
    a[i] = i % 13;
  time_t start = time(NULL);
  for (long rep = 0; time(NULL) - start < 60; rep++) {
#pragma hce co_exec map(tofrom: a[i:1])
    for (int i = 0; i < n; i++)
      a[i] = a[i] * 0.5 + 1;
    if (rep == 0) {
      printf("ready\n");
      fflush(stdout);
    }
  }
  printf("not stopped\n");
  return 1;
}
