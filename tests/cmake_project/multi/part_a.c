/* Each part has a static helper of the same name, and parts a and c have
   their loop on the same line: generated names must not clash. */
#include "multi.h"

static double helper(double a, double x, double y) { return a * x + y; }

void multi_axpy(double a, const double (*x)[MULTI_M], double (*y)[MULTI_M]) {
#pragma hce co_exec schedule(hguided) map(to: x[i][0:MULTI_M]) map(tofrom: y[i][0:MULTI_M])
  for (int i = 0; i < MULTI_N; i++)
    for (int j = 0; j < MULTI_M; j++)
      y[i][j] = helper(a, x[i][j], y[i][j]);
}
