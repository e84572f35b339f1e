/* Several regions at once: the task-mapping seed's workloads as one task
 * graph (docs/task-graph.md).
 *
 *   apps independent "applications" of vector add + scale:
 *       z = x + y;  w = s * z;  y = w + x          (a chain of three)
 *   one chain of matrix products:
 *       P1 = M0 * M1 / m,  P2 = P1 * M2 / m, ...    (chain products)
 *
 * Every loop is a `nowait` region with its dependences; `#pragma hce
 * taskwait` waits for all of them.  The runtime maps whole regions to
 * devices (HCE_TASK_MAP=ratio|rank|heft) and runs independent ones at once.
 * The result is checked against a sequential computation.
 *
 * usage: taskgraph [n=1048576] [m=256] [chain=4] [apps=2]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

static void fill(double *a, long n, unsigned seed) {
  for (long i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    a[i] = 0.5 + (double)(seed >> 8) / (double)(1u << 24); /* [0.5, 1.5) */
  }
}

static int close_enough(const double *a, const double *b, long n, const char *what) {
  for (long i = 0; i < n; i++)
    if (fabs(a[i] - b[i]) > 1e-9 * (1.0 + fabs(b[i]))) {
      printf("FAILED: %s[%ld] = %.17g, expected %.17g\n", what, i, a[i], b[i]);
      return 0;
    }
  return 1;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1L << 20;
  int m = argc > 2 ? atoi(argv[2]) : 256;
  int chain = argc > 3 ? atoi(argv[3]) : 4;
  int apps = argc > 4 ? atoi(argv[4]) : 2;
  if (n < 1 || m < 1 || chain < 1 || apps < 0) {
    fprintf(stderr, "usage: %s [n] [m] [chain] [apps]\n", argv[0]);
    return 2;
  }
  const double s = 0.75;
  double **x = malloc(sizeof(double *) * (size_t)(apps + 1));
  double **y = malloc(sizeof(double *) * (size_t)(apps + 1));
  double **z = malloc(sizeof(double *) * (size_t)(apps + 1));
  double **w = malloc(sizeof(double *) * (size_t)(apps + 1));
  double **M = malloc(sizeof(double *) * (size_t)(chain + 1));
  double **P = malloc(sizeof(double *) * (size_t)(chain + 1));
  for (int a = 0; a < apps; a++) {
    x[a] = malloc(sizeof(double) * (size_t)n);
    y[a] = malloc(sizeof(double) * (size_t)n);
    z[a] = malloc(sizeof(double) * (size_t)n);
    w[a] = malloc(sizeof(double) * (size_t)n);
    fill(x[a], n, 11u + (unsigned)a);
    fill(y[a], n, 101u + (unsigned)a);
  }
  for (int k = 0; k <= chain; k++) {
    M[k] = malloc(sizeof(double) * (size_t)m * (size_t)m);
    P[k] = malloc(sizeof(double) * (size_t)m * (size_t)m);
    fill(M[k], (long)m * m, 1000u + (unsigned)k);
  }
  for (long e = 0; e < (long)m * m; e++)
    P[0][e] = M[0][e];

  double t0 = omp_get_wtime();
  /* The chain of matrix products first: its regions are the long ones. */
  for (int k = 1; k <= chain; k++) {
    double *prev = P[k - 1], *mk = M[k], *out = P[k];
#pragma hce co_exec nowait depend(in: prev, mk) depend(out: out) name("matmul") map(to: prev[i*m:m], mk[0:m*m]) map(from: out[i*m:m])
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++) {
        double acc = 0;
        for (int q = 0; q < m; q++)
          acc += prev[i * m + q] * mk[q * m + j];
        out[i * m + j] = acc / m;
      }
  }
  for (int a = 0; a < apps; a++) {
    double *xa = x[a], *ya = y[a], *za = z[a], *wa = w[a];
#pragma hce co_exec nowait depend(in: xa, ya) depend(out: za) name("vadd") map(to: xa[i:1], ya[i:1]) map(from: za[i:1])
    for (long i = 0; i < n; i++)
      za[i] = xa[i] + ya[i];
#pragma hce co_exec nowait depend(in: za) depend(out: wa) name("scale") map(to: za[i:1]) map(from: wa[i:1])
    for (long i = 0; i < n; i++)
      wa[i] = s * za[i];
    /* No depend clause: the maps alone order it after both (it reads wa,
     * rewrites ya which the first region read). */
#pragma hce co_exec nowait name("vadd2") map(to: wa[i:1], xa[i:1]) map(from: ya[i:1])
    for (long i = 0; i < n; i++)
      ya[i] = wa[i] + xa[i];
  }
#pragma hce taskwait
  double t1 = omp_get_wtime();
  const char *mapper = getenv("HCE_TASK_MAP");
  printf("taskgraph: n=%ld m=%d chain=%d apps=%d mapper=%s completion %.6f s\n",
         n, m, chain, apps, mapper && *mapper ? mapper : "ratio", t1 - t0);

  /* Sequential check. */
  int ok = 1;
  double *rz = malloc(sizeof(double) * (size_t)n);
  double *rw = malloc(sizeof(double) * (size_t)n);
  double *ry = malloc(sizeof(double) * (size_t)n);
  for (int a = 0; a < apps && ok; a++) {
    double *y0 = malloc(sizeof(double) * (size_t)n);
    fill(y0, n, 101u + (unsigned)a);
    for (long i = 0; i < n; i++) {
      rz[i] = x[a][i] + y0[i];
      rw[i] = s * rz[i];
      ry[i] = rw[i] + x[a][i];
    }
    ok = close_enough(z[a], rz, n, "z") && close_enough(w[a], rw, n, "w") &&
         close_enough(y[a], ry, n, "y");
    free(y0);
  }
  double *rp = malloc(sizeof(double) * (size_t)m * (size_t)m);
  double *rq = malloc(sizeof(double) * (size_t)m * (size_t)m);
  for (long e = 0; e < (long)m * m; e++)
    rp[e] = M[0][e];
  for (int k = 1; k <= chain && ok; k++) {
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++) {
        double acc = 0;
        for (int q = 0; q < m; q++)
          acc += rp[i * m + q] * M[k][q * m + j];
        rq[i * m + j] = acc / m;
      }
    ok = close_enough(P[k], rq, (long)m * m, "P");
    double *t = rp;
    rp = rq;
    rq = t;
  }
  if (ok)
    printf("taskgraph: verified against sequential\n");
  free(rz);
  free(rw);
  free(ry);
  free(rp);
  free(rq);
  for (int a = 0; a < apps; a++) {
    free(x[a]);
    free(y[a]);
    free(z[a]);
    free(w[a]);
  }
  for (int k = 0; k <= chain; k++) {
    free(M[k]);
    free(P[k]);
  }
  free(x);
  free(y);
  free(z);
  free(w);
  free(M);
  free(P);
  return ok ? 0 : 1;
}
