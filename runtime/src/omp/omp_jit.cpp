// Registers libLLVM's NVPTX target and finds ptxas for libomptarget's JIT
// (omp_jit.hpp says why).
#include "omp_jit.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <iterator>
#include <mutex>
#include <sstream>

namespace hce {
namespace {

// libLLVM's C entry points that register the NVPTX target, in the order
// LLVM's InitializeAllTargets() calls them.
constexpr const char *kNvptxInit[] = {
    "LLVMInitializeNVPTXTargetInfo", "LLVMInitializeNVPTXTarget",
    "LLVMInitializeNVPTXTargetMC", "LLVMInitializeNVPTXAsmPrinter"};

// The libLLVM that libomptarget loaded, never a new one: its symbols are
// global (libomptarget is a dependency of the program), else the library
// of that name if it is already in the process.
void *find_nvptx_init(const char *name) {
  if (void *f = dlsym(RTLD_DEFAULT, name))
    return f;
  for (const char *lib : {"libLLVM.so.19.1", "libLLVM-19.so"})
    if (void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD))
      if (void *f = dlsym(h, name))
        return f; // the handle stays open: the library is in use anyway
  return nullptr;
}

bool register_nvptx(std::string &note) {
  void *fns[std::size(kNvptxInit)];
  for (size_t i = 0; i < std::size(kNvptxInit); ++i) {
    fns[i] = find_nvptx_init(kNvptxInit[i]);
    if (!fns[i]) {
      note = std::string("libLLVM's ") + kNvptxInit[i] +
             " not found: an nvptx64 IR image cannot be JIT-compiled";
      return false;
    }
  }
  // Each is idempotent (LLVM's TargetRegistry ignores a second
  // registration), so a libomptarget that registers NVPTX itself is fine.
  for (void *f : fns)
    reinterpret_cast<void (*)()>(f)();
  return true;
}

// CUDA's bin folder holding ptxas: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda.
std::string cuda_bin_with_ptxas() {
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char *root = std::getenv(var);
    if (root && *root) {
      std::string bin = std::string(root) + "/bin";
      if (access((bin + "/ptxas").c_str(), X_OK) == 0)
        return bin;
    }
  }
  if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0)
    return "/usr/local/cuda/bin";
  return "";
}

OmpJitSetup prepare() {
  OmpJitSetup s;
  s.nvptx_registered = register_nvptx(s.note);
  const char *path_env = std::getenv("PATH");
  const std::string path = path_env ? path_env : "";
  s.ptxas = find_on_path("ptxas", path);
  if (s.ptxas.empty()) {
    // libomptarget's CUDA plugin runs the ptxas on PATH after the JIT
    // ("Failed to find 'ptxas' on the PATH" otherwise).  Appended, so a
    // ptxas the user put on PATH would have come first.  This runs while
    // the runtime selects its devices, before it starts its own threads.
    const std::string bin = cuda_bin_with_ptxas();
    if (!bin.empty()) {
      setenv("PATH", (path.empty() ? bin : path + ":" + bin).c_str(), 1);
      s.path_added = bin;
      s.ptxas = bin + "/ptxas";
    } else if (s.note.empty()) {
      s.note = "no ptxas on PATH or in CUDA_HOME/bin, CUDA_PATH/bin, "
               "/usr/local/cuda/bin: an nvptx64 IR image cannot be JIT-compiled";
    }
  }
  return s;
}

} // namespace

std::string find_on_path(const std::string &program, const std::string &path) {
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string file = (dir.empty() ? "." : dir) + "/" + program;
    if (access(file.c_str(), X_OK) == 0)
      return file;
  }
  return "";
}

const OmpJitSetup &prepare_omp_jit() {
  static std::once_flag once;
  static OmpJitSetup setup;
  std::call_once(once, [] { setup = prepare(); });
  return setup;
}

} // namespace hce
