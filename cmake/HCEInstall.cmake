# What `cmake --install` puts in the prefix: the drivers (bin/hce-cc,
# hce-c++, hce-translate), libhce and its headers, a CMake package
# (find_package(HCE): HCE::hce, HCE_C_COMPILER, HCE_CXX_COMPILER) and a
# pkg-config file (hce.pc).  Every installed file finds the others relative
# to itself, so that the prefix can be moved.  Included by the top-level
# CMakeLists.txt after runtime/ and driver/.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# libhce keeps the run paths of the libraries it links outside the build
# tree (clang's libomp, the CUDA toolkit's cudart).
set_target_properties(hce PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS hce LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/hce
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# What a program whose objects come from hce-cc needs at its link besides
# -lhce, when another compiler links it: clang's OpenMP runtime (the
# generated CPU variants call libomp) and, when hce-cc builds CUDA variants,
# cudart and the C++ runtime nvcc's code uses.
set(HCE_OMP_LIBRARY "${OpenMP_omp_LIBRARY}")
if(NOT HCE_OMP_LIBRARY)
  find_library(HCE_OMP_LIBRARY NAMES omp HINTS /usr/lib/llvm-19/lib REQUIRED)
endif()
get_filename_component(_hce_omp_dir "${HCE_OMP_LIBRARY}" DIRECTORY)
set(HCE_LINK_DEPS "${HCE_OMP_LIBRARY}")
set(HCE_PC_LIBS "-L${_hce_omp_dir} -Wl,-rpath,${_hce_omp_dir} -lomp")
if(HCE_NVCC AND HCE_CUDA_LIB_DIR)
  list(APPEND HCE_LINK_DEPS "${HCE_CUDA_LIB_DIR}/libcudart.so" stdc++)
  string(APPEND HCE_PC_LIBS
         " -L${HCE_CUDA_LIB_DIR} -Wl,-rpath,${HCE_CUDA_LIB_DIR} -lcudart -lstdc++")
endif()

set(HCE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/HCE)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/HCEConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/HCEConfig.cmake
  INSTALL_DESTINATION ${HCE_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/HCEConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/HCEConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/HCEConfigVersion.cmake
        DESTINATION ${HCE_CMAKE_DIR})

# hce.pc finds the prefix from its own folder (${pcfiledir}).
file(RELATIVE_PATH HCE_PC_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" HCE_PC_PREFIX "${HCE_PC_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/hce.pc.in
               ${PROJECT_BINARY_DIR}/cmake/hce.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/hce.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
