/* Each part has a static helper of the same name, and parts a and c have
   their loop on the same line: generated names must not clash. */
#include "multi.h"
#include "b_only.h"
static double helper(double v) { return v * v + B_OFFSET; }

double multi_square(double *v) {
  double sum = 0;
#pragma hce co_exec schedule(fdets) map(tofrom: v[i:1]) reduction(+: sum)
  for (int i = 0; i < MULTI_N; i++) {
    v[i] = helper(v[i]);
    sum += v[i];
  }
  return sum;
}
