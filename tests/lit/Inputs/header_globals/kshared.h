/* Declarations both files share. */
#ifndef KSHARED_H
#define KSHARED_H
#define NPTS 1000
float score_points(int n, const float *pts, float *out);
void scale_points(int n, float *pts, float by);
#endif
