// The translator accepts every name of runtime/include/hce/names.def, the
// one list the runtime reads too (schedule(profile) was refused while the
// runtime took it): each scheduler, device kind and communication mode is
// translated in a clause, and an unknown one lists the table's names.
//
// RUN: bash -c 'for s in $(sed -n "s/^HCE_NAME_SCHEDULER(\(.*\))$/\1/p" %hce-include/hce/names.def); do sed "s/@SCHED@/$s/" %s > %t.$s.c && %hce-translate %t.$s.c -o %t.$s.out.c && grep -q "__hce_r.schedule = \"$s\";" %t.$s.out.c || { echo "FAIL $s"; exit 1; }; done; echo all schedulers' | FileCheck %s --check-prefix=SCHED
// RUN: bash -c 'for d in $(sed -n "s/^HCE_NAME_DEVICE(\(.*\))$/\1/p" %hce-include/hce/names.def); do sed "s/@SCHED@/static/; s/devices(cpu)/devices($d)/" %s > %t.d$d.c && %hce-translate %t.d$d.c -o %t.d$d.out.c || exit 1; done; echo all devices' | FileCheck %s --check-prefix=DEV
// RUN: bash -c 'for c in $(sed -n "s/^HCE_NAME_CO(\(.*\))$/\1/p" %hce-include/hce/names.def); do sed "s/@SCHED@/static/; s/co(none)/co($c)/" %s > %t.c$c.c && %hce-translate %t.c$c.c -o %t.c$c.out.c || exit 1; done; echo all modes' | FileCheck %s --check-prefix=CO
// RUN: sed "s/@SCHED@/dynamic/" %s > %t.bad.c
// RUN: not %hce-translate %t.bad.c -o %t.bad.out.c 2>&1 | FileCheck %s --check-prefix=BAD
// SCHED: all schedulers
// DEV: all devices
// CO: all modes
// BAD: error: unknown schedule 'dynamic'; expected static, {{.*}} or profile

void f(int n, double *A) {
#pragma hce co_exec schedule(@SCHED@) devices(cpu) co(none) map(tofrom: A[i:1])
  for (int i = 0; i < n; i++)
    A[i] += 1;
}
