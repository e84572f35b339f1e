/* FDTD-2D (PolyBench fdtd-2d): T steps of the 2-D finite-difference
 * time-domain method on NX x NY grids ex, ey, hz.  Each step updates ey, ex
 * and hz with three co-executed loops over rows; ey reads the hz row above,
 * hz reads the ey row below.
 *
 *   usage: fdtd2d [NX] [NY] [T] [seed]      (default 4096 x 4096, 50 steps)
 * Exits 0 when the fields match a sequential computation, 1 otherwise.
 * Tolerance: a GPU compiler may contract `a - c*(b - d)` into a fused
 * multiply-add (nvcc does by default), so results are compared with a
 * relative tolerance of 1e-12 instead of bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double uniform(unsigned long long *state) {
  /* xorshift64*: reproducible random numbers in [-1, 1) without libc rand */
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return (double)((*state * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
}

/* Elements of x that differ from the reference r by more than tol relative
 * to max(1, |r|). */
static size_t mismatches(const double *x, const double *r, size_t n, double tol) {
  size_t bad = 0;
  for (size_t k = 0; k < n; k++) {
    double scale = fabs(r[k]) > 1.0 ? fabs(r[k]) : 1.0;
    if (!(fabs(x[k] - r[k]) <= tol * scale))
      bad++;
  }
  return bad;
}

int main(int argc, char **argv) {
  int NX = argc > 1 ? atoi(argv[1]) : 4096;
  int NY = argc > 2 ? atoi(argv[2]) : 4096;
  int T = argc > 3 ? atoi(argv[3]) : 50;
  unsigned long long seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 42;
  if (NX < 2 || NY < 2 || T < 0) {
    fprintf(stderr, "fdtd2d: need NX, NY >= 2 and T >= 0\n");
    return 2;
  }
  size_t n = (size_t)NX * (size_t)NY;
  double *ex = malloc(n * sizeof *ex), *ey = malloc(n * sizeof *ey),
         *hz = malloc(n * sizeof *hz), *fict = malloc((size_t)(T + 1) * sizeof *fict);
  double *rex = malloc(n * sizeof *rex), *rey = malloc(n * sizeof *rey),
         *rhz = malloc(n * sizeof *rhz);
  if (!ex || !ey || !hz || !fict || !rex || !rey || !rhz) {
    fprintf(stderr, "fdtd2d: out of memory for %d x %d\n", NX, NY);
    return 2;
  }
  unsigned long long state = seed | 1;
  for (size_t k = 0; k < n; k++) {
    ex[k] = rex[k] = uniform(&state);
    ey[k] = rey[k] = uniform(&state);
    hz[k] = rhz[k] = uniform(&state);
  }
  for (int t = 0; t <= T; t++)
    fict[t] = uniform(&state);

  /* The fields stay on the devices for the whole time loop; row 0 of ey,
   * set on the host each step, is pushed to them with an update. */
#pragma hce data map(tofrom: ex[0:NX*NY], ey[0:NX*NY], hz[0:NX*NY])
  for (int t = 0; t < T; t++) {
    for (int j = 0; j < NY; j++) /* the source: one row, set on the host */
      ey[j] = fict[t];
#pragma hce update to(ey[0:NY])
#pragma hce co_exec schedule(fdets) name("fdtd2d.ey") map(tofrom: ey[i*NY:NY]) map(to: hz[(i-1)*NY:2*NY])
#pragma omp parallel for
    for (int i = 1; i < NX; i++)
      for (int j = 0; j < NY; j++)
        ey[i * NY + j] = ey[i * NY + j] - 0.5 * (hz[i * NY + j] - hz[(i - 1) * NY + j]);
#pragma hce co_exec schedule(fdets) name("fdtd2d.ex") map(tofrom: ex[i*NY:NY]) map(to: hz[i*NY:NY])
#pragma omp parallel for
    for (int i = 0; i < NX; i++)
      for (int j = 1; j < NY; j++)
        ex[i * NY + j] = ex[i * NY + j] - 0.5 * (hz[i * NY + j] - hz[i * NY + j - 1]);
#pragma hce co_exec schedule(fdets) name("fdtd2d.hz") map(tofrom: hz[i*NY:NY]) map(to: ex[i*NY:NY], ey[i*NY:2*NY])
#pragma omp parallel for
    for (int i = 0; i < NX - 1; i++)
      for (int j = 0; j < NY - 1; j++)
        hz[i * NY + j] = hz[i * NY + j] - 0.7 * (ex[i * NY + j + 1] - ex[i * NY + j] +
                                                 ey[(i + 1) * NY + j] - ey[i * NY + j]);
  }

  /* Sequential reference on separate arrays. */
  for (int t = 0; t < T; t++) {
    for (int j = 0; j < NY; j++)
      rey[j] = fict[t];
    for (int i = 1; i < NX; i++)
      for (int j = 0; j < NY; j++)
        rey[i * NY + j] = rey[i * NY + j] - 0.5 * (rhz[i * NY + j] - rhz[(i - 1) * NY + j]);
    for (int i = 0; i < NX; i++)
      for (int j = 1; j < NY; j++)
        rex[i * NY + j] = rex[i * NY + j] - 0.5 * (rhz[i * NY + j] - rhz[i * NY + j - 1]);
    for (int i = 0; i < NX - 1; i++)
      for (int j = 0; j < NY - 1; j++)
        rhz[i * NY + j] = rhz[i * NY + j] - 0.7 * (rex[i * NY + j + 1] - rex[i * NY + j] +
                                                   rey[(i + 1) * NY + j] - rey[i * NY + j]);
  }

  const double tol = 1e-12;
  size_t bad = mismatches(ex, rex, n, tol) + mismatches(ey, rey, n, tol) +
               mismatches(hz, rhz, n, tol);
  printf("fdtd2d %d x %d, %d steps: %s (%zu of %zu elements wrong)\n", NX, NY, T,
         bad ? "FAILED" : "verified against sequential", bad, 3 * n);
  free(ex);
  free(ey);
  free(hz);
  free(fict);
  free(rex);
  free(rey);
  free(rhz);
  return bad ? 1 : 0;
}
