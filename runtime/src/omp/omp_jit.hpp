// What libomptarget needs before it can JIT-compile an LLVM-IR device image
// for an NVIDIA GPU (hce-cc --hce-offload builds nvptx64 images as IR:
// -fopenmp-target-jit; see docs/offload-backend.md for why).
//
// Debian's libomptarget 19 JIT-compiles the IR with libLLVM but does not
// register libLLVM's NVPTX target itself ("Unable to find target for this
// triple (no targets are registered)"), and its CUDA plugin then runs
// `ptxas` found on PATH.  prepare_omp_jit() registers the NVPTX target in
// the libLLVM that libomptarget already loaded, and puts CUDA's bin folder
// on PATH when no ptxas is there.  It only acts in a process where
// libomptarget is loaded: a program built without offload never loads
// libLLVM because of it.
#pragma once

#include <string>

namespace hce {

struct OmpJitSetup {
  bool nvptx_registered = false; // the four LLVMInitializeNVPTX* ran
  std::string ptxas;             // the ptxas the JIT will run ("" = none)
  std::string path_added;        // the folder appended to PATH, if any
  std::string note;              // what is missing, for messages
};

// Runs once per process (later calls return the first result).  Call it
// only when libomptarget is in the process (omp_api() does).
const OmpJitSetup &prepare_omp_jit();

// The first `program` on `path` (a PATH value), "" when there is none.
std::string find_on_path(const std::string &program, const std::string &path);

} // namespace hce
