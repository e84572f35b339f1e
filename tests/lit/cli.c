// Command-line handling.
//
// RUN: not %hce-translate 2>&1 | FileCheck %s --check-prefix=NOINPUT
// NOINPUT: {{^}}hce-translate: error: no input file
// RUN: not %hce-translate %s 2>&1 | FileCheck %s --check-prefix=NOOUT
// NOOUT: {{^}}hce-translate: error: no output file (-o OUTPUT)
// RUN: not %hce-translate %s -o %t.c --bogus 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: {{^}}hce-translate: error: unknown option '--bogus' (compiler flags go after '--')
// RUN: not %hce-translate %s.missing.c -o %t.c 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: {{^}}hce-translate: error: no such file: '{{.*}}cli.c.missing.c'
// RUN: not %hce-translate %s -o %s 2>&1 | FileCheck %s --check-prefix=SAME
// SAME: {{^}}hce-translate: error: the output file must differ from the input file
// RUN: %hce-translate --help | FileCheck %s --check-prefix=HELP
// HELP: {{^}}usage: hce-translate INPUT -o OUTPUT
// RUN: %hce-translate --version | FileCheck %s --check-prefix=VERSION
// VERSION: {{^}}hce-translate {{[0-9.]+}} (clang 19.
// Compiler flags after '--' reach the parser:
// RUN: not %hce-translate %s -o %t.c 2>&1 | FileCheck %s --check-prefix=NOFLAG
// NOFLAG: {{^}}{{.*}}cli.c:[[@LINE+4]]:3: error: "FLAG not defined"
// RUN: %hce-translate %s -o %t.c -- -DFLAG
// RUN: %hce-translate %s -o%t.c -- -DFLAG
#ifndef FLAG
# error "FLAG not defined"
#endif
// Companion outputs: with no co_exec region they are written empty ("no
// variants of that kind"), and removed on error like the main output.
// RUN: rm -f %t.cu %t.off.c
// RUN: %hce-translate %s -o %t.c --cuda-out %t.cu --offload-out %t.off.c -- -DFLAG
// RUN: test -e %t.cu && test ! -s %t.cu && test -e %t.off.c && test ! -s %t.off.c
// RUN: not %hce-translate %s -o %t.c --cuda-out %t.cu --offload-out %t.off.c
// RUN: test ! -e %t.c && test ! -e %t.cu && test ! -e %t.off.c
