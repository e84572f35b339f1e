/* Input of driver-options.c: a co_exec loop in one translation unit. */
#include "inc/drv_config.h"

void scale(int n, double *v) {
#pragma hce co_exec map(tofrom: v[i:1])
  for (int i = 0; i < n; i++)
    v[i] = SCALE * v[i];
}
