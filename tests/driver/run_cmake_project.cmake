# cmake -DHCE_CC=... -DPROJECT_SRC=... -DPROJECT_BIN=... -DGENERATOR=... -P run_cmake_project.cmake
# Configures tests/cmake_project with hce-cc as the C compiler, builds it and
# runs the program; fails on any step.
file(REMOVE_RECURSE "${PROJECT_BIN}")
foreach(step configure build run)
  if(step STREQUAL "configure")
    set(cmd ${CMAKE_COMMAND} -S ${PROJECT_SRC} -B ${PROJECT_BIN} -G ${GENERATOR}
            -DCMAKE_C_COMPILER=${HCE_CC} -DCMAKE_BUILD_TYPE=Release)
  elseif(step STREQUAL "build")
    set(cmd ${CMAKE_COMMAND} --build ${PROJECT_BIN} --verbose)
  else()
    set(cmd ${PROJECT_BIN}/vecscale)
  endif()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake project: ${step} failed (${rc})")
  endif()
endforeach()
