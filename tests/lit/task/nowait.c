// co_exec ... nowait depend(...) and #pragma hce taskwait: the generated
// code submits the region with hce_co_exec_nowait (the runtime copies the
// descriptor, so the block may end at once) and the taskwait becomes a call.
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Werror -fsyntax-only -I%hce-include %t.c
// RUN: %hce-translate %s -o %t.nl.c --no-line-directives
// RUN: %clang -fopenmp -Wall -Werror -fsyntax-only -I%hce-include %t.nl.c

struct S {
  double v;
};

void pipeline(long n, double *x, double *y, double z[64], double s, double *out) {
  double sum = 0;
  struct S st = {1.0};
// CHECK-LABEL: {{^}}{ /* hce co_exec region 0 */
// CHECK-NOT: hce_co_exec{{_}}or_exit
// CHECK: {{^}}  hce_depend __hce_d[3];
// CHECK-NEXT: __hce_d[0].addr = (const void *)(x);
// CHECK-NEXT: __hce_d[0].kind = HCE_DEP_IN;
// CHECK-NEXT: __hce_d[1].addr = (const void *)(z);
// CHECK-NEXT: __hce_d[1].kind = HCE_DEP_IN;
// CHECK-NEXT: __hce_d[2].addr = (const void *)(y);
// CHECK-NEXT: __hce_d[2].kind = HCE_DEP_OUT;
// CHECK-NEXT: hce_co_exec_nowait_or_exit(&__hce_r, 3, __hce_d);
#pragma hce co_exec nowait depend(in: x, z) depend(out: y) map(to: x[i:1]) map(from: y[i:1]) map(to: z[0:64])
  for (long i = 0; i < n; i++)
    y[i] = s * x[i] + z[i % 64];
// A scalar names its own address; no depend clause: no list at all.
// CHECK-LABEL: {{^}}{ /* hce co_exec region 1 */
// CHECK: {{^}}  __hce_d[0].addr = (const void *)&(st);
// CHECK-NEXT: __hce_d[0].kind = HCE_DEP_INOUT;
// CHECK-NEXT: hce_co_exec_nowait_or_exit(&__hce_r, 1, __hce_d);
#pragma hce co_exec nowait, depend(inout: st) map(tofrom: y[i:1])
  for (long i = 0; i < n; i++)
    y[i] += 1.0;
// CHECK-LABEL: {{^}}{ /* hce co_exec region 2 */
// CHECK: {{^}}  __hce_red[0].var = (void *)&sum;
// CHECK: {{^}}  hce_co_exec_nowait_or_exit(&__hce_r, 0, 0);
#pragma hce co_exec nowait map(to: y[i:1]) reduction(+: sum)
  for (long i = 0; i < n; i++)
    sum += y[i];
// CHECK: {{^}}  hce_taskwait_or_exit();{{$}}
  #pragma hce taskwait
  *out = sum + st.v;
// A synchronous region is unchanged.
// CHECK-LABEL: {{^}}{ /* hce co_exec region 3 */
// CHECK: {{^}}  hce_co_exec_or_exit(&__hce_r);
#pragma hce co_exec map(tofrom: y[i:1])
  for (long i = 0; i < n; i++)
    y[i] *= 2;
  if (n > 0) {
// CHECK: {{^}}hce_taskwait_or_exit();{{$}}
#pragma hce taskwait
  }
}
