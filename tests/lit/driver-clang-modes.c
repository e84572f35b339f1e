// hce-cc behaves like clang for what is not about #pragma hce: modes that
// compile nothing are clang's own, options hce-cc does not know go to clang,
// and every input kind clang takes is built. (--hce-no-cuda keeps the
// compiles quick; driver-deps-cuda.c covers CUDA.)
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir
//
// -dumpversion and -print-file-name= answer as clang does; libhce is found
// where hce-cc links it from.
// RUN: %hce-cc -dumpversion > hce.ver
// RUN: %clang -dumpversion > clang.ver
// RUN: diff hce.ver clang.ver
// RUN: %hce-cc -print-file-name=libomp.so > hce.pfn
// RUN: %clang -print-file-name=libomp.so > clang.pfn
// RUN: diff hce.pfn clang.pfn
// RUN: %hce-cc -print-file-name=libhce.so | FileCheck %s --check-prefix=LIBHCE
// LIBHCE: {{^/.*}}/libhce.so{{$}}
//
// -v alone: hce-cc's version, then clang's, exit 0.
// RUN: %hce-cc -v 2>&1 | FileCheck %s --check-prefix=VERBOSE
// VERBOSE: {{^}}hce-cc (HCE) {{[0-9.]+}}
// VERBOSE-NEXT: clang version 19.
//
// -E -dM: the macros the compile sees (OpenMP on, -D applied).
// RUN: %hce-cc -E -dM -DVALUE=5 -x c /dev/null | FileCheck %s --check-prefix=MACROS
// MACROS-DAG: {{^}}#define _OPENMP {{[0-9]+}}
// MACROS-DAG: {{^}}#define VALUE 5
//
// -MM prints the rule for the user's source, as clang does.
// RUN: %hce-cc -MM -DVALUE=1 %S/Inputs/driver/scale.c | FileCheck %s --check-prefix=MM
// MM: {{^}}scale.o: {{.*}}scale.c \
// MM-NEXT: {{^ .*}}drv_config.h
//
// '-' reads the source from standard input (with -x), diagnostics name
// <stdin>, -c writes '-.o' as clang does.
// RUN: %hce-cc --hce-no-cuda -x c - -o stdin_prog < %S/Inputs/driver/stdin_prog.c
// RUN: env HCE_DEVICES=cpu ./stdin_prog | FileCheck %s --check-prefix=STDIN
// STDIN: stdin: mismatches=0
// RUN: %hce-cc --hce-no-cuda -x c -c - < %S/Inputs/driver/stdin_prog.c
// RUN: test -f ./-.o
// RUN: not %hce-cc --hce-no-cuda -c - < %S/Inputs/driver/stdin_prog.c 2>&1 | FileCheck %s --check-prefix=STDIN-NOX
// STDIN-NOX: hce-cc: error: -E or -x required when input is from standard input
// RUN: not %hce-cc --hce-no-cuda -x c -c - -o bad.o < %S/Inputs/driver/bad_pragma.c 2>&1 | FileCheck %s --check-prefix=STDIN-DIAG
// STDIN-DIAG: <stdin>:3:35: error: the section start 'i*i' is not affine
//
// -S: the translated host code's assembly, calling the runtime.
// RUN: %hce-cc --hce-no-cuda -S -DVALUE=1 %S/Inputs/driver/scale.c
// RUN: FileCheck %s --check-prefix=ASM --input-file scale.s
// RUN: %hce-cc -S -DVALUE=1 %S/Inputs/driver/scale.c -o named.s
// RUN: FileCheck %s --check-prefix=ASM --input-file named.s
// ASM: call{{.*}}hce_co_exec
//
// .i (preprocessed C) is translated like .c; .S is assembled.
// RUN: %hce-cc -E -DVALUE=2 %S/Inputs/driver/scale.c -o scale.i
// RUN: %hce-cc --hce-no-cuda -c scale.i -o scale_i.o
// RUN: %hce-cc --hce-no-cuda -DVALUE=2 -I %S/Inputs/driver/inc scale_i.o %S/Inputs/driver/main.c -o prog_i
// RUN: env HCE_DEVICES=cpu,sim:0 ./prog_i | FileCheck %s --check-prefix=PREPROCESSED
// PREPROCESSED: {{^}}VALUE=2 mismatches=0
// RUN: %hce-cc -c %S/Inputs/driver/answer.S -o answer.o
// RUN: llvm-nm answer.o | FileCheck %s --check-prefix=SYM
// SYM: T asm_answer
// RUN: %hce-cc %S/Inputs/driver/asm_main.c %S/Inputs/driver/answer.S -o asm_prog
// RUN: ./asm_prog | FileCheck %s --check-prefix=ANSWER
// ANSWER: asm_answer=42
//
// Options hce-cc does not know reach clang (compile and link); clang
// refuses what it does not know either.
// RUN: %hce-cc --hce-no-cuda -### -Qn -ffunction-sections -static-libgcc -DVALUE=1 %S/Inputs/driver/scale.c %S/Inputs/driver/main.c -o p 2>&1 | FileCheck %s --check-prefix=PASS
// PASS: hce-translate {{.*}}scale.c {{.*}}-- -x c {{.*}}-ffunction-sections -DVALUE=1
// PASS: clang{{[^ ]*}} -fopenmp -x c {{.*}}-Qn -ffunction-sections -DVALUE=1 -c {{.*}}scale.hce.c
// PASS: clang{{[^ ]*}} -fopenmp -Qunused-arguments {{.*}}-Qn -static-libgcc {{.*}}-lhce
// RUN: not %hce-cc --hce-no-cuda -c --no-such-option %S/Inputs/driver/asm_main.c 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: clang{{.*}}: error: unknown argument: '--no-such-option'
//
// -static-libgcc, -pg and -flto build programs that run.
// RUN: %hce-cc --hce-no-cuda -static-libgcc -pg -DVALUE=3 -I %S/Inputs/driver/inc %S/Inputs/driver/scale.c %S/Inputs/driver/main.c -o prog_pg
// RUN: env HCE_DEVICES=cpu ./prog_pg | FileCheck %s --check-prefix=PG
// RUN: test -f gmon.out
// PG: {{^}}VALUE=3 mismatches=0
// RUN: %hce-cc --hce-no-cuda -flto -O2 -c -DVALUE=4 %S/Inputs/driver/scale.c -o lto.o
// RUN: llvm-bcanalyzer lto.o > /dev/null
// RUN: %hce-cc --hce-no-cuda -flto -O2 -DVALUE=4 -I %S/Inputs/driver/inc lto.o %S/Inputs/driver/main.c -o prog_lto
// RUN: env HCE_DEVICES=cpu,sim:0 ./prog_lto | FileCheck %s --check-prefix=LTO
// LTO: {{^}}VALUE=4 mismatches=0
