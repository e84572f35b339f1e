/* The second file: its own co_exec loop, and the header's globals through
   extern declarations (tests/lit/header-globals.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "kshared.h"

extern int calls;
extern float bias;
extern float table[4];

void scale_points(int n, float *pts, float by) {
#pragma hce co_exec map(tofrom: pts[i:1])
  for (int i = 0; i < n; i++)
    pts[i] *= by;
}

int main(void) {
  const int n = NPTS;
  float *pts = malloc(sizeof(float) * 4 * n), *out = malloc(sizeof(float) * n);
  unsigned seed = 12345;
  for (int k = 0; k < 4 * n; k++) {
    seed = seed * 1103515245u + 12345u;
    pts[k] = (float)((seed >> 8) % 1000) / 100.0f - 5.0f;
  }
  scale_points(4 * n, pts, 2.0f);
  bias = 1.5f;
  score_points(n, pts, out);
  score_points(n, pts, out);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    float s = bias;
    for (int j = 0; j < 4; j++) {
      float w = 0.25f * (float)(j + 1);
      s += pts[i * 4 + j] * table[j] * 3 + w * w * ((float)(j + 1) * 0.5f);
    }
    bad += fabsf(s - out[i]) > 1e-4f * (1.0f + fabsf(s));
  }
  printf("calls=%d mismatches=%d\n", calls, bad);
  free(pts);
  free(out);
  return bad != 0;
}
