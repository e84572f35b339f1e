/* A co_exec loop with a reduction, checked against a sequential run. */
#include <stdio.h>
#include <stdlib.h>

#ifndef N_ELEMS
#error "N_ELEMS must come from the CMake project"
#endif

int main(void) {
  enum { n = N_ELEMS, m = 8 };
  static double x[n][m], y[n][m], ref[n][m];
  double sum = 0, rsum = 0;
  srand(7);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      x[i][j] = rand() % 100 / 7.0 + 1, y[i][j] = ref[i][j] = rand() % 13;

#pragma hce co_exec schedule(fdets) map(to: x[i][0:m]) map(tofrom: y[i]) reduction(+: sum)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      y[i][j] = 2.5 * x[i][j] + y[i][j];
      sum += y[i][j];
    }

  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      ref[i][j] = 2.5 * x[i][j] + ref[i][j];
      rsum += ref[i][j];
    }
  int bad = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      bad += y[i][j] != ref[i][j];
  bad += (sum - rsum) * (sum - rsum) > 1e-12 * rsum * rsum;
  printf("vecscale: %d mismatches\n", bad);
  return bad != 0;
}
