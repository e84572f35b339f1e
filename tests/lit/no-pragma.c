// A file without '#pragma hce' is copied byte for byte (no include added),
// even with other pragmas, macros and OpenMP loops in it.
//
// RUN: %hce-translate %s -o %t.c -- -DUNUSED=1
// RUN: cmp %s %t.c

#include <stdio.h>
#define TWICE(x) ((x) * 2)
#pragma once
void f(int n, double *A) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    A[i] = TWICE(A[i]);
}
