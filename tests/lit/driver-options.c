// hce-cc options: --version, -c with several inputs, -o, -D/-I passthrough,
// quoted includes relative to the source, -### dry run, -save-temps,
// exit status of a failing compile, no output after a translation error.
// The programs link against the real libhce and run on the CPU.
//
// RUN: %hce-cc --version | FileCheck %s --check-prefix=VERSION
// VERSION: {{^}}hce-cc (HCE) {{[0-9]+\.[0-9]+\.[0-9]+}}
//
// -c with several inputs: one object per source, named after it.
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
// RUN: %hce-cc -c -DVALUE=7 -I %S/Inputs/driver/inc %S/Inputs/driver/scale.c %S/Inputs/driver/main.c
// RUN: test -f scale.o && test -f main.o
// RUN: %hce-cc scale.o main.o -o prog
// RUN: env HCE_DEVICES=cpu ./prog | FileCheck %s --check-prefix=PROG
// PROG-NOT: mismatches={{[1-9]}}
// PROG: {{^}}VALUE=7 mismatches=0
//
// Compile and link in one go, -Dname=value and -Idir in both spellings.
// RUN: %hce-cc -DVALUE=42 -I%S/Inputs/driver/inc %S/Inputs/driver/scale.c %S/Inputs/driver/main.c -o prog2
// RUN: env HCE_DEVICES=cpu ./prog2 | FileCheck %s --check-prefix=PROG2
// PROG2: {{^}}VALUE=42 mismatches=0
//
// -c -o with several sources is an error.
// RUN: not %hce-cc -c -DVALUE=1 %S/Inputs/driver/scale.c %S/Inputs/driver/main.c -o x.o 2>&1 | FileCheck %s --check-prefix=COMBINE
// COMBINE: {{^}}hce-cc: error: cannot specify -o with -c and several source files
//
// -### prints the commands and runs nothing.
// RUN: %hce-cc -### -c -DVALUE=1 %S/Inputs/driver/scale.c -o dry.o 2>&1 | FileCheck %s --check-prefix=DRY
// RUN: test ! -e dry.o
// DRY: {{^}}{{[^ ]*}}hce-translate {{.*}}scale.c -o {{.*}}scale.hce.c
// DRY-SAME: -- -x c {{(-f[^ ]+ )*}}-DVALUE=1
// DRY: {{^}}{{[^ ]*}}clang{{[^ ]*}} -fopenmp -x c -I {{.*}}-DVALUE=1 -c {{.*}}scale.hce.c -o {{.*}}dry.o
//
// -save-temps keeps the translated file next to the output.
// RUN: rm -f scale.hce.c
// RUN: %hce-cc -save-temps -c -DVALUE=1 %S/Inputs/driver/scale.c -o kept.o
// RUN: test -f kept.o && FileCheck %s --check-prefix=TEMPS --input-file scale.hce.c
// TEMPS: {{^}}#include <hce/hce.h>
// TEMPS: hce_co_exec_or_exit(&__hce_r);
//
// A failing compile step: its exit status comes back, no object is left.
// RUN: not %hce-cc -c -Werror -Wunused-variable %S/Inputs/driver/warn.c -o warn.o 2>&1 | FileCheck %s --check-prefix=WERROR
// RUN: test ! -e warn.o
// WERROR: warn.c:3:7: error: unused variable 'unused'
//
// A translation error: diagnostic from hce-translate, exit 1, no output.
// RUN: not %hce-cc -c %S/Inputs/driver/bad_pragma.c -o bad.o 2>&1 | FileCheck %s --check-prefix=TRERR
// RUN: test ! -e bad.o && test ! -e a.out
// RUN: not %hce-cc %S/Inputs/driver/bad_pragma.c -o bad.exe
// RUN: test ! -e bad.exe
// TRERR: bad_pragma.c:3:35: error: the section start 'i*i' is not affine in the loop variable 'i'
