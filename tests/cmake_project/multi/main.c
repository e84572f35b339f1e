/* Calls the three annotated parts and checks them against util.c. */
#include "multi.h"

#include <stdio.h>
#include <string.h>

static double x[MULTI_N][MULTI_M], y[MULTI_N][MULTI_M], y0[MULTI_N][MULTI_M];
static double v[MULTI_N], v0[MULTI_N], w[MULTI_N];

int main(void) {
  multi_fill(&x[0][0], MULTI_N * MULTI_M, 1);
  multi_fill(&y0[0][0], MULTI_N * MULTI_M, 2);
  multi_fill(v0, MULTI_N, 3);
  memcpy(y, y0, sizeof y);
  memcpy(v, v0, sizeof v);
  multi_axpy(1.5, (const double (*)[MULTI_M])x, y);
  double sum = multi_square(v);
  multi_ends((const double (*)[MULTI_M])x, w);
  int bad = multi_check((const double (*)[MULTI_M])x,
                        (const double (*)[MULTI_M])y0,
                        (const double (*)[MULTI_M])y, v0, v, sum, w);
  printf("multi (%s): %d mismatches\n",
#ifdef __cplusplus
         "C++",
#else
         "C",
#endif
         bad);
  return bad != 0;
}
