/* Conjugate gradient (as in NPB CG / Rodinia): solves A x = b for a random
 * symmetric positive definite banded matrix A stored in CSR form.  Every
 * row stores the same number w = 2k+1 of entries (the band, padded with
 * zeros at the edges), so row i's entries are val[i*w : w] and col[i*w : w]:
 * affine sections the runtime can split between devices.  The search
 * direction p is kept with k ghost zeros on each side (p[k + j] is p_j), so
 * row i of the product reads the window p[i : w] (a halo) and its column
 * indices are already shifted into it.
 *
 * Per iteration four co-executed loops: the sparse matrix-vector product
 * q = A p, the dot product p.q (reduction), the updates of x and r with the
 * new r.r (reduction), and the update of p.
 *
 *   usage: cg [n] [k] [iterations] [seed]   (default 2^22 rows, k = 4, 25)
 * Exits 0 when x and the residual norms match a sequential solve, 1
 * otherwise.  Tolerances: dot products relative 1e-9 (summed in another
 * order), x relative 1e-9 of max |x|. */
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

/* Off-diagonal a(i, j) = a(j, i), i != j: a hash of the unordered pair. */
static double offdiag(unsigned long long seed, long i, long j) {
  unsigned long long lo = (unsigned long long)(i < j ? i : j), hi = (unsigned long long)(i < j ? j : i);
  unsigned long long z = seed * 0x9E3779B97F4A7C15ULL + lo * 0x100000001B3ULL + hi;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) / 4503599627370496.0 - 1.0;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1L << 22;
  int k = argc > 2 ? atoi(argv[2]) : 4;
  int iters = argc > 3 ? atoi(argv[3]) : 25;
  unsigned long long seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 42;
  if (n < 1 || k < 0 || iters < 0) {
    fprintf(stderr, "cg: need n >= 1, k >= 0, iterations >= 0\n");
    return 2;
  }
  int w = 2 * k + 1;
  size_t nnz = (size_t)n * w;
  long *rowptr = malloc(((size_t)n + 1) * sizeof *rowptr);
  int *col = malloc(nnz * sizeof *col);
  double *val = malloc(nnz * sizeof *val);
  double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x), *r = malloc(n * sizeof *r),
         *q = malloc(n * sizeof *q), *p = malloc((n + 2 * k) * sizeof *p);
  double *rx = malloc(n * sizeof *rx), *rr_ = malloc(n * sizeof *rr_), *rq = malloc(n * sizeof *rq),
         *rp = malloc((n + 2 * k) * sizeof *rp);
  double *rr_log = malloc(((size_t)iters + 1) * sizeof *rr_log);
  if (!rowptr || !col || !val || !b || !x || !r || !q || !p || !rx || !rr_ || !rq || !rp ||
      !rr_log) {
    fprintf(stderr, "cg: out of memory for %ld rows\n", n);
    return 2;
  }
  /* The matrix: band entries i-k .. i+k, diagonal 1 + sum of |off-diagonals|
   * (symmetric, strictly diagonally dominant, so positive definite).
   * Column indices point into the padded vector: column j is stored as j+k. */
  for (long i = 0; i < n; i++) {
    rowptr[i] = i * w;
    double diag = 1.0;
    for (int o = -k; o <= k; o++) {
      long j = i + o, e = i * w + o + k;
      col[e] = (int)(i + o + k);
      if (o == 0 || j < 0 || j >= n) {
        val[e] = 0.0; /* the diagonal is set below; outside the matrix: padding */
        continue;
      }
      val[e] = offdiag(seed, i, j);
      diag += fabs(val[e]);
    }
    val[i * w + k] = diag;
  }
  rowptr[n] = (long)nnz;
  unsigned long long state = seed | 1;
  for (long i = 0; i < n; i++)
    b[i] = uniform(&state);

  /* x = 0, r = b, p = r (with zero ghosts). */
  memset(p, 0, (n + 2 * k) * sizeof *p);
  for (long i = 0; i < n; i++) {
    x[i] = 0.0;
    r[i] = b[i];
    p[i + k] = b[i];
  }
  double rr = 0.0;
  for (long i = 0; i < n; i++)
    rr += r[i] * r[i];
  const double rr0 = rr;

  /* The matrix is uploaded once and the vectors stay on the devices between
   * the four kernels of every iteration; the host only reads the reduced
   * scalars until the loop ends. */
#pragma hce data map(to: val[0:nnz], col[0:nnz], rowptr[0:n+1]) map(tofrom: x[0:n], r[0:n], p[0:n+2*k]) map(alloc: q[0:n])
  for (int it = 0; it < iters && rr > 0.0; it++) {
    /* q = A p */
#pragma hce co_exec schedule(fdets) name("cg.spmv") map(to: rowptr[i:2], val[i*w:w], col[i*w:w], p[i:w]) map(from: q[i:1])
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
      double s = 0.0;
      for (long e = rowptr[i]; e < rowptr[i + 1]; e++)
        s += val[e] * p[col[e]];
      q[i] = s;
    }
    double pq = 0.0;
#pragma hce co_exec schedule(fdets) name("cg.dot") map(to: p[i+k:1], q[i:1]) reduction(+: pq)
#pragma omp parallel for reduction(+ : pq)
    for (long i = 0; i < n; i++)
      pq += p[i + k] * q[i];
    double alpha = rr / pq, rr_new = 0.0;
#pragma hce co_exec schedule(fdets) name("cg.update_xr") map(to: p[i+k:1], q[i:1]) map(tofrom: x[i:1], r[i:1]) reduction(+: rr_new)
#pragma omp parallel for reduction(+ : rr_new)
    for (long i = 0; i < n; i++) {
      x[i] += alpha * p[i + k];
      r[i] -= alpha * q[i];
      rr_new += r[i] * r[i];
    }
    double beta = rr_new / rr;
    rr = rr_new;
    rr_log[it] = rr;
#pragma hce co_exec schedule(fdets) name("cg.update_p") map(to: r[i:1]) map(tofrom: p[i+k:1])
#pragma omp parallel for
    for (long i = 0; i < n; i++)
      p[i + k] = r[i] + beta * p[i + k];
  }

  /* Sequential reference solve, on separate vectors. */
  memset(rp, 0, (n + 2 * k) * sizeof *rp);
  for (long i = 0; i < n; i++) {
    rx[i] = 0.0;
    rr_[i] = b[i];
    rp[i + k] = b[i];
  }
  double srr = rr0;
  size_t bad = 0;
  int done = 0;
  for (int it = 0; it < iters && srr > 0.0; it++, done++) {
    for (long i = 0; i < n; i++) {
      double s = 0.0;
      for (long e = rowptr[i]; e < rowptr[i + 1]; e++)
        s += val[e] * rp[col[e]];
      rq[i] = s;
    }
    double pq = 0.0;
    for (long i = 0; i < n; i++)
      pq += rp[i + k] * rq[i];
    double alpha = srr / pq, rr_new = 0.0;
    for (long i = 0; i < n; i++) {
      rx[i] += alpha * rp[i + k];
      rr_[i] -= alpha * rq[i];
      rr_new += rr_[i] * rr_[i];
    }
    double beta = rr_new / srr;
    srr = rr_new;
    if (!(fabs(rr_log[it] - srr) <= 1e-9 * srr)) {
      fprintf(stderr, "cg: iteration %d: r.r = %.17g, reference %.17g\n", it, rr_log[it], srr);
      bad++;
    }
    for (long i = 0; i < n; i++)
      rp[i + k] = rr_[i] + beta * rp[i + k];
  }
  double big = 0.0;
  for (long i = 0; i < n; i++)
    big = fabs(rx[i]) > big ? fabs(rx[i]) : big;
  for (long i = 0; i < n; i++)
    bad += !(fabs(x[i] - rx[i]) <= 1e-9 * big);
  printf("cg %ld rows, band %d, %d iterations, |r|/|b| = %.3e: %s (%zu mismatches)\n", n, w,
         done, sqrt(rr / rr0), bad ? "FAILED" : "verified against sequential", bad);
  free(rowptr);
  free(col);
  free(val);
  free(b);
  free(x);
  free(r);
  free(q);
  free(p);
  free(rx);
  free(rr_);
  free(rq);
  free(rp);
  free(rr_log);
  return bad ? 1 : 0;
}
