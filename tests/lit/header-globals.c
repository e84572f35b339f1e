// Globals (and functions) defined in a header the loop file includes must
// not be defined again by the device companions, or the program fails to
// link ("multiple definition of `calls'"), which showed only where nvcc
// exists. When a user header defines something with external linkage, the
// companions include no user header: they replay the headers' system
// includes and macros and copy the declarations the loops need (types,
// const scalars, functions, prototypes), as for the main file. The loop
// reads the header's globals by value (scalars) or through its maps
// (arrays), never through the host symbol.
//
// RUN: %hce-translate %S/Inputs/header_globals/kloop.c -o %t.c --cuda-out %t.cu --offload-out %t.off.c
// RUN: FileCheck %s --input-file %t.cu
// RUN: FileCheck %s --input-file %t.off.c --check-prefix=OFF
// RUN: %clang -fsyntax-only -fopenmp -Wall -Werror -I%hce-include %t.off.c
// RUN: %if nvcc %{ %nvcc -Werror all-warnings -I%hce-include -c %t.cu -o %t.cu.o %}
//
// A file whose headers define nothing still includes them:
// RUN: %hce-translate %S/Inputs/header_globals/kmain.c -o %t.main.c --cuda-out %t.main.cu
// RUN: FileCheck %s --input-file %t.main.cu --check-prefix=KEEP
//
// The two files build into one program with hce-cc (with their CUDA
// variants where nvcc is) and compute the right result with a simulated
// accelerator doing part of the work:
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
// RUN: %hce-cc -O2 -Wall -Wextra -Werror %S/Inputs/header_globals/kloop.c %S/Inputs/header_globals/kmain.c -o prog -lm
// RUN: env HCE_DEVICES=cpu,sim:0 HCE_SCHEDULE=static HCE_MIN_SHARE=0 HCE_PROFILE=off HCE_STATS=1 ./prog 2> stats.txt | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=SIM --input-file stats.txt
// RUN: env HCE_DEVICES=cpu HCE_PROFILE=off ./prog | FileCheck %s --check-prefix=OUT
//
// GPU check (the lead): the same build on the H100, then
//   HCE_DEVICES=cpu,cuda:0 HCE_SCHEDULE=static HCE_STATS=1 ./prog

// CHECK-NOT: #include "{{.*}}kdefs.h"
// CHECK-NOT: #include "{{.*}}kshared.h"
// CHECK: #define KDEFS_H
// CHECK-NEXT: #include <math.h>
// CHECK: #define NFEAT 4
// CHECK: typedef struct {
// CHECK-NEXT: float w[NFEAT];
// CHECK-NEXT: } centre_t;
// CHECK: enum { SCALE = 3 };
// CHECK: static __device__ const float half = 0.5f;
// CHECK: __device__ float weight(int j);
// CHECK: __device__ static inline float sq(float x)
// CHECK: __device__ float hdr_scale(float x) { return x * half; }
// CHECK: __device__ static float feature(centre_t c, int j)
// CHECK: __device__ float weight(int j) {
// CHECK-NOT: calls
// CHECK-NOT: bias =
// CHECK-NOT: table[NFEAT] =
// CHECK: float bias;
// CHECK: float *table = (float *)__hce_p.p[1];
// CHECK: const float bias = __hce_a.bias;

// OFF-NOT: #include "{{.*}}kdefs.h"
// OFF-NOT: calls
// OFF-NOT: float bias = 0.5f;
// OFF: static float hdr_scale(float x) { return x * half; }
// OFF-NOT: calls
// OFF-NOT: float bias = 0.5f;

// KEEP: #include "{{.*}}kshared.h"

// OUT: calls=2 mismatches=0
// Both regions ran partly on the simulated accelerator:
// SIM: {{^}}hce: region kmain.c:13
// SIM: {{^}}hce:   sim:0 {{ *[1-9][0-9]* }}
// SIM: {{^}}hce: region kloop.c:14
// SIM: {{^}}hce:   sim:0 {{ *[1-9][0-9]* }}
