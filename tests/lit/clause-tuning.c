// chunk(expr), alpha(x), ratio(dev=r, ...), devices(...), co(...) and
// name("..."): each lands in its hce_region field; expressions are
// evaluated at the loop site. The mock runtime prints what it received.
//
// RUN: %hce-translate %s -o %t.c
// RUN: FileCheck %s --input-file %t.c
// RUN: %clang -fopenmp -Wall -Werror -I%hce-include %t.c %mockrt -o %t.exe -lm
// RUN: env MOCK_HCE_VERBOSE=1 %t.exe | FileCheck %s --check-prefix=EXEC

#define CHUNK 16

void f(int n, double *A) {
#pragma hce co_exec chunk(n / 8) alpha(0.25) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
// CHECK: {{^}}  __hce_r.chunk = (int64_t)(n / 8);
// CHECK-NEXT: {{^}}  __hce_r.alpha = (double)(0.25);

#pragma hce co_exec chunk(CHUNK) ratio(cpu = 0.3, sim:0=0.7) devices(cpu, sim:0) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
// CHECK: {{^}}  __hce_r.devices = "cpu,sim:0";
// CHECK-NEXT: {{^}}  __hce_r.ratios = "cpu=0.3,sim:0=0.7";
// CHECK-NEXT: {{^}}  __hce_r.iterations = __hce_W;
// CHECK-NEXT: {{^}}  __hce_r.chunk = (int64_t)(CHUNK);

#pragma hce co_exec co(none) name("no CO") devices(cuda:1, omp:0, cuda) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
// CHECK: {{^}}  __hce_r.name = "no CO";
// CHECK-NEXT: {{^}}  __hce_r.devices = "cuda:1,omp:0,cuda";
// CHECK-NEXT: {{^}}  __hce_r.co = "none";

#pragma hce co_exec co(incremental) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
// CHECK: {{^}}  __hce_r.co = "incremental";

#pragma hce co_exec co(pipelined) name("pipe" "lined") map(tofrom: A[i:1])
  for (int i = 0; i < n; i++) A[i] += 1;
// CHECK: {{^}}  __hce_r.name = "pipelined";
// CHECK-NEXT: {{^}}  __hce_r.co = "pipelined";
}

int main(void) {
  double A[100] = {0};
  f(100, A);
  return A[99] == 5 ? 0 : 1;
}

// EXEC: {{^}}region clause-tuning.c:13: W=100 schedule=(null) devices=(null) co=(null) ratios=(null) chunk=12 alpha=0.25
// EXEC: {{^}}region clause-tuning.c:18: W=100 schedule=(null) devices=cpu,sim:0 co=(null) ratios=cpu=0.3,sim:0=0.7 chunk=16 alpha=0
// EXEC: {{^}}region no CO: W=100 schedule=(null) devices=cuda:1,omp:0,cuda co=none ratios=(null) chunk=0 alpha=0
// EXEC: {{^}}region clause-tuning.c:31: W=100 {{.*}} co=incremental
// EXEC: {{^}}region pipelined: W=100 {{.*}} co=pipelined
