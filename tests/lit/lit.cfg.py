# lit configuration for the hce-translate tests.
import os

import lit.formats

config.name = "hce-translate"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".cpp"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = getattr(config, "hce_lit_binary_dir",
                                config.test_source_root)

tools = config.llvm_tools_dir
# FileCheck, not, count come from LLVM 19's tools directory.
config.environment["PATH"] = os.pathsep.join(
    [tools, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ["HOME", "TMPDIR", "LD_LIBRARY_PATH"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Hermetic: the programs the tests build neither read nor write the user's
# persistent profile cache (cmake/HCETests.cmake); a test may set its own.
config.environment["HCE_PROFILE"] = "off"

config.substitutions.append(("%hce-translate", config.hce_translate))
config.substitutions.append(("%hce-include", config.hce_include))
config.substitutions.append(("%clangxx", os.path.join(tools, "clang++")))
config.substitutions.append(("%clang", os.path.join(tools, "clang")))
config.substitutions.append(
    ("%mockrt", os.path.join(config.test_source_root, "Inputs",
                             "mock_runtime.c")))

# Device toolchains, for the tests that compile the generated companions:
# feature `nvcc` (%nvcc compiles a .cu for sm_90) and feature `omp-offload`
# (%offload-cc / %offload-cxx compile with clang's OpenMP offload to nvptx64).
import shutil
# nvcc and the toolkit root come from CMake (the site config); nvcc may be a
# wrapper script (/usr/local/bin/nvcc), so its folder says nothing about
# where the toolkit is.
_nvcc = os.environ.get("HCE_NVCC") or getattr(config, "hce_nvcc", "") or \
    shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
if os.path.exists(_nvcc):
    config.available_features.add("nvcc")
    config.substitutions.append(
        ("%nvcc", _nvcc + " --expt-relaxed-constexpr -arch=sm_90"))
# hce-cc builds CUDA variants only with the nvcc CMake configured it with (a
# build with HCE_ENABLE_CUDA=OFF, like the sanitizer builds, has none).
if getattr(config, "hce_nvcc", ""):
    config.available_features.add("hce-cc-cuda")
_cuda_root = getattr(config, "hce_cuda_root", "") or \
    os.path.dirname(os.path.dirname(os.path.realpath(_nvcc)))
_llvm_lib = os.path.join(os.path.dirname(tools), "lib")
# LLVM's library folder (libomp), for links that do not go through clang.
config.substitutions.append(("%llvm-lib", _llvm_lib))
# clang's offload to nvptx64 needs the toolkit's ptxas and libdevice.
if os.path.exists(os.path.join(_llvm_lib, "libomptarget-nvptx-sm_90.bc")) \
        and os.path.exists(os.path.join(_cuda_root, "bin", "ptxas")) \
        and os.path.isdir(os.path.join(_cuda_root, "nvvm", "libdevice")) \
        and all(os.path.exists(os.path.join(tools, t)) for t in
                ("clang-offload-packager", "clang-linker-wrapper")):
    # The offload link runs those two (clang-tools-19); when they are
    # missing the check_toolchain test says so.
    config.available_features.add("omp-offload")
    _off = (" -fopenmp -fopenmp-targets=nvptx64 -Xopenmp-target=nvptx64"
            " -march=sm_90 --cuda-path=%s --libomptarget-nvptx-bc-path=%s"
            " -L%s -Wl,-rpath,%s" % (_cuda_root, _llvm_lib, _llvm_lib,
                                     _llvm_lib))
    config.substitutions.append(
        ("%offload-cxx", os.path.join(tools, "clang++") + _off))
    config.substitutions.append(
        ("%offload-cc", os.path.join(tools, "clang") + _off))

# compiler-rt (libclang-rt-19-dev): -fsanitize= and --coverage programs.
import glob
if glob.glob(os.path.join(_llvm_lib, "clang", "19", "lib", "*",
                          "libclang_rt.asan*.a")) and \
        glob.glob(os.path.join(_llvm_lib, "clang", "19", "lib", "*",
                               "libclang_rt.profile*.a")):
    config.available_features.add("clang-rt")

# The flags a sanitizer build's hce-cc adds to every compile: the plain
# clang a driver test compares hce-cc with takes them too (dependency files
# name the sanitizer's ignore list).  Before %hce-cc, which prefixes nothing
# else here.
config.substitutions.append(
    ("%driver-adds", getattr(config, "hce_driver_adds", "")))
# The hce-cc driver (driver-options.c), next to hce-translate in build/bin.
config.substitutions.append(
    ("%hce-cc", os.path.join(os.path.dirname(config.hce_translate), "hce-cc")))
