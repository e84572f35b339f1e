/* Input of driver-options.c: calls scale() from another unit and checks. */
#include <stdio.h>
#include "drv_config.h"

void scale(int n, double *v);

int main(void) {
  double v[100];
  int bad = 0;
  for (int i = 0; i < 100; i++)
    v[i] = i % 7 + 1;
  scale(100, v);
  for (int i = 0; i < 100; i++)
    bad += v[i] != SCALE * (i % 7 + 1);
  printf("VALUE=%d mismatches=%d\n", VALUE, bad);
  return bad != 0;
}
