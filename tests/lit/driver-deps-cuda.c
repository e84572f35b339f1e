// With CUDA variants on, the dependency file still lands where clang would
// write it (not in hce-cc's temporary folder) and names the user's source
// and object; -flto objects with CUDA variants are combined with LLVM's
// plugin. REQUIRES: hce-cc-cuda
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir/hce/sub %t.dir/clang/sub
// RUN: cd %t.dir/hce && %hce-cc -c -MD -MP -DVALUE=1 -I %S/Inputs/driver/inc %S/Inputs/driver/scale.c -o sub/s.o
// RUN: cd %t.dir/clang && %clang -fopenmp %driver-adds -c -MD -MP -DVALUE=1 -I %S/Inputs/driver/inc %S/Inputs/driver/scale.c -o sub/s.o
// RUN: diff %t.dir/hce/sub/s.d %t.dir/clang/sub/s.d
// RUN: llvm-readelf -S %t.dir/hce/sub/s.o | FileCheck %s --check-prefix=FATBIN
// FATBIN: .nv_fatbin
//
// RUN: cd %t.dir/hce && %hce-cc -flto -O2 -c -DVALUE=6 %S/Inputs/driver/scale.c -o lto.o
// RUN: %hce-cc -flto -O2 -DVALUE=6 -I %S/Inputs/driver/inc lto.o %S/Inputs/driver/main.c -o prog_lto
// RUN: env HCE_DEVICES=cpu ./prog_lto | FileCheck %s --check-prefix=LTO
// LTO: {{^}}VALUE=6 mismatches=0
