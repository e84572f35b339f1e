/* A header in the style of older C codes: types, macros and prototypes, and
   also the program's globals, defined here (only kloop.c includes it). */
#ifndef KDEFS_H
#define KDEFS_H
#include <math.h>
#include "kshared.h"

#define NFEAT 4
typedef struct {
  float w[NFEAT];
} centre_t;
enum { SCALE = 3 };

int calls = 0;        /* defined in the header */
float bias = 0.5f;    /* defined in the header, read by the loop */
float table[NFEAT] = {1.0f, 2.0f, 3.0f, 4.0f}; /* mapped by the loop */
const float half = 0.5f;

float weight(int j);  /* defined in kloop.c, after its caller */
static inline float sq(float x) { return x * x; }
float hdr_scale(float x) { return x * half; } /* defined in the header */
#endif
