# Whether the C compiler can build and run an OpenMP-offload program whose
# offload target is the host (clang -fopenmp-targets=<host triple>):
# libomptarget's host plugin then gives devices with memory of their own, so
# the omp:N device can be tested without a GPU.  Used by tests/runtime
# (hce_omp_tests) and examples (an example built with
# hce-cc --hce-offload-target=<host triple>).
#
# hce_probe_host_offload() sets, in the caller's scope:
#   HCE_HOST_OFFLOAD         TRUE when it works
#   HCE_HOST_OFFLOAD_TRIPLE  e.g. x86_64-pc-linux-gnu
#   HCE_HOST_OFFLOAD_FLAGS   compile flags (a list)
#   HCE_HOST_OFFLOAD_LINK    link flags (a list)
#   HCE_HOST_OFFLOAD_WHY     why not, when it does not work
# The probe runs once per configure.
function(hce_probe_host_offload)
  get_property(done GLOBAL PROPERTY HCE_HOST_OFFLOAD_PROBED SET)
  if(NOT done)
    set(ok FALSE)
    set(why "")
    set(triple "${CMAKE_SYSTEM_PROCESSOR}-pc-linux-gnu")
    get_filename_component(cc_real "${CMAKE_C_COMPILER}" REALPATH)
    get_filename_component(llvm_bin "${cc_real}" DIRECTORY)
    get_filename_component(llvm_lib "${llvm_bin}/../lib" ABSOLUTE)
    set(flags -fopenmp -fopenmp-targets=${triple})
    set(link -fopenmp -fopenmp-targets=${triple} -L${llvm_lib} -Wl,-rpath,${llvm_lib})
    if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
      set(why "the C/C++ compilers are not clang")
    elseif(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
      set(why "not Linux")
    else()
      set(dir "${CMAKE_BINARY_DIR}/omp-offload-probe")
      file(MAKE_DIRECTORY "${dir}")
      file(WRITE "${dir}/probe.c" [=[
#include <omp.h>
#include <stdio.h>
int main(void) {
  int n = omp_get_num_devices(), host = omp_get_initial_device();
  if (n < 2) { printf("devices=%d\n", n); return 1; }
  double x[64], y[64];
  for (int i = 0; i < 64; ++i) x[i] = i + 0.5;
  double *d = (double *)omp_target_alloc(sizeof x, 1);
  if (!d || omp_target_memcpy(d, x, sizeof x, 0, 0, 1, host)) return 2;
#pragma omp target teams distribute parallel for device(1) is_device_ptr(d)
  for (int i = 0; i < 64; ++i) d[i] = 2 * d[i];
  if (omp_target_memcpy(y, d, sizeof y, 0, 0, host, 1)) return 3;
  omp_target_free(d, 1);
  for (int i = 0; i < 64; ++i) if (y[i] != 2 * x[i]) return 4;
  printf("host offload ok devices=%d\n", n);
  return 0;
}
]=])
      execute_process(
        COMMAND ${CMAKE_C_COMPILER} ${link} probe.c -o probe
        WORKING_DIRECTORY "${dir}" RESULT_VARIABLE rc
        OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 120)
      if(NOT rc EQUAL 0)
        string(SUBSTRING "${out}" 0 300 out)
        set(why "${CMAKE_C_COMPILER} ${link} failed: ${out}")
      else()
        execute_process(COMMAND "${dir}/probe" RESULT_VARIABLE rc
          OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
        if(rc EQUAL 0 AND out MATCHES "host offload ok")
          set(ok TRUE)
        else()
          string(SUBSTRING "${out}${err}" 0 300 out)
          set(why "the probe program failed (${rc}): ${out}")
        endif()
      endif()
    endif()
    set_property(GLOBAL PROPERTY HCE_HOST_OFFLOAD_PROBED TRUE)
    set_property(GLOBAL PROPERTY HCE_HOST_OFFLOAD "${ok}")
    set_property(GLOBAL PROPERTY HCE_HOST_OFFLOAD_TRIPLE "${triple}")
    set_property(GLOBAL PROPERTY HCE_HOST_OFFLOAD_FLAGS "${flags}")
    set_property(GLOBAL PROPERTY HCE_HOST_OFFLOAD_LINK "${link}")
    set_property(GLOBAL PROPERTY HCE_HOST_OFFLOAD_WHY "${why}")
    if(ok)
      message(STATUS "HCE: OpenMP offload to the host (${triple}) works: omp:N tests enabled")
    else()
      message(STATUS "HCE: OpenMP offload to the host does not work here (${why}); omp:N tests skipped")
    endif()
  endif()
  foreach(v HCE_HOST_OFFLOAD HCE_HOST_OFFLOAD_TRIPLE HCE_HOST_OFFLOAD_FLAGS
            HCE_HOST_OFFLOAD_LINK HCE_HOST_OFFLOAD_WHY)
    get_property(val GLOBAL PROPERTY ${v})
    set(${v} "${val}" PARENT_SCOPE)
  endforeach()
endfunction()
