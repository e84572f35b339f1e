/* N-body (all pairs, as in the CUDA SDK nbody): n bodies under softened
 * gravity, T leapfrog-style steps.  Per step two co-executed loops: the
 * velocity update of body i reads every position (a broadcast section) and
 * writes its own velocity; the position update of body i reads and writes
 * only its own entries.
 *
 *   usage: nbody [n] [T] [seed]      (default 65536 bodies, 2 steps)
 * Exits 0 when positions and velocities match a sequential computation,
 * 1 otherwise.  The reference is a separate plain loop, OpenMP-parallel over
 * bodies (each body summed by one thread in the same order).  Tolerance
 * relative 1e-9 of the largest magnitude (a GPU compiler may fuse
 * multiply-adds). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double uniform(unsigned long long *state) {
  /* xorshift64*: reproducible random numbers in [-1, 1) without libc rand */
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return (double)((*state * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
}

/* Elements differing from the reference by more than tol * max |reference|. */
static size_t mismatches(const double *x, const double *r, size_t n, double tol) {
  double big = 0.0;
  for (size_t k = 0; k < n; k++)
    big = fabs(r[k]) > big ? fabs(r[k]) : big;
  size_t bad = 0;
  for (size_t k = 0; k < n; k++)
    if (!(fabs(x[k] - r[k]) <= tol * (big + 1e-300)))
      bad++;
  return bad;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 65536;
  int T = argc > 2 ? atoi(argv[2]) : 2;
  unsigned long long seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 42;
  if (n < 1 || T < 0) {
    fprintf(stderr, "nbody: need n >= 1 and T >= 0\n");
    return 2;
  }
  /* pos: x, y, z, mass per body; vel: vx, vy, vz per body. */
  double *pos = malloc((size_t)n * 4 * sizeof *pos), *vel = malloc((size_t)n * 3 * sizeof *vel);
  double *rpos = malloc((size_t)n * 4 * sizeof *rpos), *rvel = malloc((size_t)n * 3 * sizeof *rvel);
  if (!pos || !vel || !rpos || !rvel) {
    fprintf(stderr, "nbody: out of memory for %d bodies\n", n);
    return 2;
  }
  unsigned long long state = seed | 1;
  for (int i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++)
      pos[4 * i + c] = uniform(&state);
    pos[4 * i + 3] = (1.5 + uniform(&state)) / n; /* masses 0.5/n .. 2.5/n */
    for (int c = 0; c < 3; c++)
      vel[3 * i + c] = 0.1 * uniform(&state);
  }
  memcpy(rpos, pos, (size_t)n * 4 * sizeof *pos);
  memcpy(rvel, vel, (size_t)n * 3 * sizeof *vel);
  const double dt = 0.001, eps2 = 0.01; /* time step, softening squared */

  for (int t = 0; t < T; t++) {
#pragma hce co_exec schedule(fdets) name("nbody.forces") map(to: pos[0:4*n]) map(tofrom: vel[3*i:3])
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
      double ax = 0.0, ay = 0.0, az = 0.0;
      double xi = pos[4 * i], yi = pos[4 * i + 1], zi = pos[4 * i + 2];
#pragma omp simd reduction(+ : ax, ay, az)
      for (int j = 0; j < n; j++) {
        double dx = pos[4 * j] - xi, dy = pos[4 * j + 1] - yi, dz = pos[4 * j + 2] - zi;
        double r2 = dx * dx + dy * dy + dz * dz + eps2;
        double inv = 1.0 / sqrt(r2);
        double s = pos[4 * j + 3] * inv * inv * inv;
        ax += s * dx;
        ay += s * dy;
        az += s * dz;
      }
      vel[3 * i] += dt * ax;
      vel[3 * i + 1] += dt * ay;
      vel[3 * i + 2] += dt * az;
    }
#pragma hce co_exec schedule(fdets) name("nbody.move") map(tofrom: pos[4*i:4]) map(to: vel[3*i:3])
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      for (int c = 0; c < 3; c++)
        pos[4 * i + c] += dt * vel[3 * i + c];
  }

  /* Reference: the same steps in plain loops on separate arrays. */
  for (int t = 0; t < T; t++) {
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
      double a[3] = {0.0, 0.0, 0.0};
      for (int j = 0; j < n; j++) {
        double d[3];
        for (int c = 0; c < 3; c++)
          d[c] = rpos[4 * j + c] - rpos[4 * i + c];
        double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
        double inv = 1.0 / sqrt(r2);
        double s = rpos[4 * j + 3] * inv * inv * inv;
        for (int c = 0; c < 3; c++)
          a[c] += s * d[c];
      }
      for (int c = 0; c < 3; c++)
        rvel[3 * i + c] += dt * a[c];
    }
    for (int i = 0; i < n; i++)
      for (int c = 0; c < 3; c++)
        rpos[4 * i + c] += dt * rvel[3 * i + c];
  }

  size_t bad = mismatches(pos, rpos, (size_t)n * 4, 1e-9) + mismatches(vel, rvel, (size_t)n * 3, 1e-9);
  printf("nbody %d bodies, %d steps: %s (%zu of %zu values wrong)\n", n, T,
         bad ? "FAILED" : "verified against sequential", bad, (size_t)n * 7);
  free(pos);
  free(vel);
  free(rpos);
  free(rvel);
  return bad ? 1 : 0;
}
