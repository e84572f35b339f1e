/* Each part has a static helper of the same name, and parts a and c have
   their loop on the same line: generated names must not clash. */
#include "multi.h"

static double helper(double a, double b) { return a + b; }

void multi_ends(const double (*x)[MULTI_M], double *w) {
#pragma hce co_exec map(to: x[i][0:MULTI_M]) map(from: w[i:1])
  for (int i = 0; i < MULTI_N; i++)
    w[i] = helper(x[i][0], x[i][MULTI_M - 1]);
}
