/* A program with co_exec loops in three files (part_a.c, part_b.c,
   part_c.c), built as C and as C++, linked with util.c built by gcc. */
#ifndef HCE_MULTI_H
#define HCE_MULTI_H
#ifdef __cplusplus
extern "C" {
#endif

enum { MULTI_N = 3000, MULTI_M = 16 };

/* part_a.c: y = a*x + y row by row. */
void multi_axpy(double a, const double (*x)[MULTI_M], double (*y)[MULTI_M]);
/* part_b.c: v[i] = v[i]^2 + B_OFFSET, returns the sum. */
double multi_square(double *v);
/* part_c.c: w[i] = x[i][0] + x[i][M-1]. */
void multi_ends(const double (*x)[MULTI_M], double *w);

/* util.c (gcc): random data and the sequential references. */
void multi_fill(double *p, int count, unsigned seed);
int multi_check(const double (*x)[MULTI_M], const double (*y0)[MULTI_M],
                const double (*y)[MULTI_M], const double *v0, const double *v,
                double vsum, const double *w);

#ifdef __cplusplus
}
#endif
#endif
