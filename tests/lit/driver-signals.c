// A tool hce-cc runs that dies of a signal is reported by name, and hce-cc
// exits non-zero with no output left behind. A copy of hce-cc next to a
// stand-in hce-translate that kills itself with SIGSEGV.
//
// RUN: rm -rf %t.bin && mkdir -p %t.bin
// RUN: cp %hce-cc %t.bin/hce-cc && cp %S/Inputs/driver/crashing_tool.sh %t.bin/hce-translate
// RUN: not %t.bin/hce-cc --hce-no-cuda -c -DVALUE=1 %S/Inputs/driver/scale.c -o %t.bin/out.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.bin/out.o
// CHECK: {{^}}hce-cc: error: hce-translate terminated by signal 11 (Segmentation fault)
