// Dependency files (-MD -MMD -MF -MT -MQ -MP) read exactly as clang writes
// them for the user's source and output, whether hce-cc translated the
// source (scale.c) or compiled it as it is (main.c). Each case runs hce-cc
// in one folder and clang in another with the same relative names, then
// the two .d files are compared.
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir/hce/sub %t.dir/clang/sub %t.dir/hce/deps %t.dir/clang/deps
// RUN: cd %t.dir/hce && %hce-cc --hce-no-cuda -c -MD -DVALUE=1 -I %S/Inputs/driver/inc %S/Inputs/driver/scale.c -o sub/s.o
// RUN: cd %t.dir/clang && %clang -fopenmp %driver-adds -c -MD -DVALUE=1 -I %S/Inputs/driver/inc %S/Inputs/driver/scale.c -o sub/s.o
// RUN: diff %t.dir/hce/sub/s.d %t.dir/clang/sub/s.d
// RUN: FileCheck %s --check-prefix=MD --input-file %t.dir/hce/sub/s.d
// (A sanitizer build's hce-cc names the sanitizer's ignore list first.)
// MD: {{^}}sub/s.o:
// MD: /Inputs/driver/scale.c \
// MD-NEXT: {{^  .*}}/Inputs/driver/inc/drv_config.h
//
// -MMD -MP with an explicit file and targets, quoted and not.
// RUN: cd %t.dir/hce && %hce-cc --hce-no-cuda -c -MMD -MP -MF deps/x.d -MT 'my target' -MQ 'q$target' -DVALUE=1 %S/Inputs/driver/scale.c -o sub/t.o
// RUN: cd %t.dir/clang && %clang -fopenmp %driver-adds -c -MMD -MP -MF deps/x.d -MT 'my target' -MQ 'q$target' -DVALUE=1 %S/Inputs/driver/scale.c -o sub/t.o
// RUN: diff %t.dir/hce/deps/x.d %t.dir/clang/deps/x.d
// RUN: FileCheck %s --check-prefix=MMD --input-file %t.dir/hce/deps/x.d
// MMD: {{^}}my target q$$target: {{.*}}scale.c
// MMD: {{^.*}}drv_config.h:
//
// No -o: x.d and x.o in the current folder; a source without #pragma hce.
// RUN: cd %t.dir/hce && %hce-cc --hce-no-cuda -c -MD -DVALUE=1 -I %S/Inputs/driver/inc %S/Inputs/driver/scale.c %S/Inputs/driver/main.c
// RUN: cd %t.dir/clang && %clang -fopenmp %driver-adds -c -MD -DVALUE=1 -I %S/Inputs/driver/inc %S/Inputs/driver/scale.c %S/Inputs/driver/main.c
// RUN: diff %t.dir/hce/scale.d %t.dir/clang/scale.d
// RUN: diff %t.dir/hce/main.d %t.dir/clang/main.d
// RUN: test -f %t.dir/hce/scale.o && test -f %t.dir/hce/main.o
//
// Joined spellings (-MFfile, -MTtarget).
// RUN: cd %t.dir/hce && %hce-cc --hce-no-cuda -c -MD -MFjoined.d -MTjoined -DVALUE=1 %S/Inputs/driver/scale.c -o j.o
// RUN: cd %t.dir/clang && %clang -fopenmp %driver-adds -c -MD -MFjoined.d -MTjoined -DVALUE=1 %S/Inputs/driver/scale.c -o j.o
// RUN: diff %t.dir/hce/joined.d %t.dir/clang/joined.d
//
// No temporary file or object is named.
// RUN: not grep -r 'hce-cc-\|\.hce\.' %t.dir/hce --include=*.d
