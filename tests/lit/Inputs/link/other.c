/* The second file of link-two-files.c: its own co_exec region 0. */
#include "shared.h"

void add_one(int n, float *x) {
#pragma hce co_exec map(tofrom: x[i:1])
  for (int i = 0; i < n; i++)
    x[i] += 1;
}
