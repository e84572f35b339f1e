/* The file whose loop reads header globals (tests/lit/header-globals.c). */
#include <stdio.h>
#include "kdefs.h"

static float feature(centre_t c, int j) { return sq(c.w[j]) * weight(j); }

float weight(int j) { return hdr_scale((float)(j + 1)); }

float score_points(int n, const float *pts, float *out) {
  centre_t c;
  for (int j = 0; j < NFEAT; j++)
    c.w[j] = 0.25f * (float)(j + 1);
  calls++;
#pragma hce co_exec map(to: pts[i*NFEAT:NFEAT], table[0:NFEAT]) map(from: out[i:1])
  for (int i = 0; i < n; i++) {
    float s = bias;
    for (int j = 0; j < NFEAT; j++)
      s += pts[i * NFEAT + j] * table[j] * SCALE + feature(c, j);
    out[i] = s;
  }
  return bias;
}
