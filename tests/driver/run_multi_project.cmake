# The multi-file program of tests/cmake_project/multi, built as users build:
#   cmake -DMODE=ninja|make|install -DHCE_BIN=<folder of hce-cc>
#         -DPROJECT_SRC=... -DWORK=<scratch folder> [-DLANG=C|CXX]
#         [-DHCE_BUILD=<HCE build tree, MODE=install>] -P run_multi_project.cmake
# ninja:   CMake + Ninja project; runs it; a second build is a no-op and
#          touching a header rebuilds only the file that includes it.
# make:    the Makefile (C, C++, one command); `make -q` is clean after a
#          build and touching the header remakes only what includes it.
# install: `cmake --install` into WORK/prefix, moved to WORK/moved (the
#          installation is relocatable), then the CMake project with
#          find_package(HCE) and the Makefile with pkg-config against it.
cmake_minimum_required(VERSION 3.20)

function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err WORKING_DIRECTORY "${WORK}")
  message("-- ${name}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "multi project (${MODE}): ${name} failed (${rc})")
  endif()
  set(step_out "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect name regex)
  if(NOT step_out MATCHES "${regex}")
    message(FATAL_ERROR "multi project (${MODE}): ${name}: no match for '${regex}'")
  endif()
endfunction()

function(refuse name regex)
  if(step_out MATCHES "${regex}")
    message(FATAL_ERROR "multi project (${MODE}): ${name}: unexpected '${regex}'")
  endif()
endfunction()

# Works on a copy: touching a header must not touch the source tree.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(COPY "${PROJECT_SRC}/" DESTINATION "${WORK}/src")
if(NOT LANG)
  set(LANG C)
endif()
find_program(NINJA NAMES ninja ninja-build REQUIRED)
find_program(MAKE NAMES make gmake REQUIRED)

# Builds the CMake project in WORK/build with the compilers in `bin`; more
# configure arguments follow.
function(cmake_project bin)
  step("configure" ${CMAKE_COMMAND} -S src -B build -G Ninja
       -DCMAKE_MAKE_PROGRAM=${NINJA} -DCMAKE_BUILD_TYPE=Release
       -DCMAKE_C_COMPILER=${bin}/hce-cc -DCMAKE_CXX_COMPILER=${bin}/hce-c++
       -DMULTI_LANG=${LANG} ${ARGN})
  step("build" ${NINJA} -C build -v)
  step("run" build/multi)
  if(LANG STREQUAL "CXX")
    expect("run" "multi \\(C\\+\\+\\): 0 mismatches")
  else()
    expect("run" "multi \\(C\\): 0 mismatches")
  endif()
endfunction()

# make with the drivers in `bin`, targets after.
function(make_project bin)
  step("make ${ARGN}" ${MAKE} -f src/Makefile SRC=src HCE_CC=${bin}/hce-cc
       HCE_CXX=${bin}/hce-c++ ${ARGN})
  foreach(prog ${ARGN})
    step("run ${prog}" ./${prog})
    expect("run ${prog}" "0 mismatches")
  endforeach()
endfunction()

if(MODE STREQUAL "ninja")
  cmake_project("${HCE_BIN}")
  step("second build" ${NINJA} -C build -n)
  expect("second build" "no work to do")
  file(TOUCH "${WORK}/src/b_only.h")
  step("after touching b_only.h" ${NINJA} -C build -n)
  expect("after touching b_only.h" "part_b\\.c\\.o")
  refuse("after touching b_only.h" "part_a\\.c\\.o|part_c\\.c\\.o|main\\.c\\.o")
elseif(MODE STREQUAL "make")
  make_project("${HCE_BIN}" multi_c multi_cxx multi_onecmd)
  step("make -q" ${MAKE} -q -f src/Makefile SRC=src HCE_CC=${HCE_BIN}/hce-cc
       HCE_CXX=${HCE_BIN}/hce-c++)
  file(TOUCH "${WORK}/src/b_only.h")
  step("make -n after touching b_only.h" ${MAKE} -n -f src/Makefile SRC=src
       HCE_CC=${HCE_BIN}/hce-cc HCE_CXX=${HCE_BIN}/hce-c++)
  expect("make -n" "-c src/part_b\\.c -o c_part_b\\.o")
  expect("make -n" "-c src/part_b\\.c -o cxx_part_b\\.o")
  refuse("make -n" "part_a\\.c -o|part_c\\.c -o|main\\.c -o")
elseif(MODE STREQUAL "install")
  step("install" ${CMAKE_COMMAND} --install "${HCE_BUILD}" --prefix "${WORK}/prefix")
  file(RENAME "${WORK}/prefix" "${WORK}/moved")
  set(prefix "${WORK}/moved")
  foreach(f bin/hce-cc bin/hce-c++ bin/hce-translate include/hce/hce.h
            lib/cmake/HCE/HCEConfig.cmake lib/pkgconfig/hce.pc)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "install: ${f} is missing")
    endif()
  endforeach()
  file(GLOB libhce "${prefix}/lib/libhce.so*")
  if(NOT libhce)
    message(FATAL_ERROR "install: lib/libhce.so is missing")
  endif()
  # No path into the build or source tree may remain.
  foreach(f bin/hce-cc lib/cmake/HCE/HCEConfig.cmake lib/pkgconfig/hce.pc)
    file(READ "${prefix}/${f}" text)
    foreach(tree "${HCE_BUILD}" "${HCE_SOURCE}")
      string(FIND "${text}" "${tree}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "install: ${f} names ${tree}")
      endif()
    endforeach()
  endforeach()
  step("installed hce-cc --version" ${prefix}/bin/hce-cc --version)
  expect("installed hce-cc --version" "runtime: ${prefix}/lib/libhce.so")
  cmake_project("${prefix}/bin" -DMULTI_FIND_HCE=ON -DCMAKE_PREFIX_PATH=${prefix})
  set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
  make_project("${prefix}/bin" multi_c multi_gcc)
else()
  message(FATAL_ERROR "MODE must be ninja, make or install")
endif()
