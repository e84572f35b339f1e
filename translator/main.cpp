//===- main.cpp - hce-translate -------------------------------------------===//
//
// hce-translate INPUT -o OUT [--cuda-out OUT.cu] [--offload-out OUT.c]
//               [--no-line-directives] -- <compiler flags>
//
// Rewrites every `#pragma hce co_exec` loop of INPUT into variants and a
// runtime call. OUT is written only on success; on any error the exit code
// is 1 and no output file is left behind.
//
//===----------------------------------------------------------------------===//
#include "OutputFile.h"
#include "TranslateAction.h"

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

#ifndef HCE_CLANG_RESOURCE_DIR
#error "HCE_CLANG_RESOURCE_DIR must be defined by the build"
#endif
#ifndef HCE_VERSION
#define HCE_VERSION "unknown"
#endif

namespace {

const char *const Usage =
    "usage: hce-translate INPUT -o OUTPUT [--cuda-out OUTPUT.cu]\n"
    "                     [--offload-out OUTPUT.c] [--no-line-directives]\n"
    "                     [-v] [-- COMPILER-FLAGS...]\n"
    "\n"
    "Rewrites each '#pragma hce co_exec' loop of INPUT (C or C++) into\n"
    "device variants and a call to the HCE runtime. COMPILER-FLAGS (-I, -D,\n"
    "-std=, -x ...) are those the input is compiled with. -v notes the\n"
    "footprints the translator derives or infers from the loop bodies.\n";

int fail(const std::string &Msg) {
  llvm::errs() << "hce-translate: error: " << Msg << "\n";
  return 1;
}

void removeIfExists(const std::string &Path) {
  if (!Path.empty() && llvm::sys::fs::exists(Path))
    llvm::sys::fs::remove(Path);
}

} // namespace

int main(int argc, char **argv) {
  std::string Input, Output, CudaOut, OffloadOut;
  std::vector<std::string> Flags;
  hce::TranslateOptions Opts;

  int I = 1;
  for (; I < argc; ++I) {
    std::string A = argv[I];
    auto Value = [&](std::string &Slot) {
      if (I + 1 >= argc)
        return false;
      Slot = argv[++I];
      return true;
    };
    if (A == "--") {
      ++I;
      break;
    }
    if (A == "-h" || A == "--help") {
      llvm::outs() << Usage;
      return 0;
    }
    if (A == "--version") {
      llvm::outs() << "hce-translate " << HCE_VERSION << " (clang "
                   << HCE_CLANG_VERSION << ")\n";
      return 0;
    }
    if (A == "-o" || A == "--cuda-out" || A == "--offload-out") {
      std::string &Slot = A == "-o"           ? Output
                          : A == "--cuda-out" ? CudaOut
                                              : OffloadOut;
      if (!Value(Slot))
        return fail("missing file name after '" + A + "'");
      continue;
    }
    if (A.rfind("-o", 0) == 0 && A.size() > 2) {
      Output = A.substr(2);
      continue;
    }
    if (A == "-v" || A == "--verbose") {
      Opts.Verbose = true;
      continue;
    }
    if (A == "--no-line-directives") {
      Opts.LineDirectives = false;
      continue;
    }
    if (!A.empty() && A[0] == '-')
      return fail("unknown option '" + A +
                  "' (compiler flags go after '--')\n" + Usage);
    if (!Input.empty())
      return fail("more than one input file ('" + Input + "' and '" + A + "')");
    Input = A;
  }
  for (; I < argc; ++I)
    Flags.push_back(argv[I]);

  Opts.Cuda = !CudaOut.empty();
  Opts.Offload = !OffloadOut.empty();
  if (Input.empty())
    return fail(std::string("no input file\n") + Usage);
  if (Output.empty())
    return fail("no output file (-o OUTPUT)");
  if (Output == Input)
    return fail("the output file must differ from the input file");
  // Companion outputs: written empty when no region has a variant of that
  // kind.
  auto RemoveAll = [&] {
    removeIfExists(Output);
    removeIfExists(CudaOut);
    removeIfExists(OffloadOut);
  };
  if (CudaOut == Input || OffloadOut == Input)
    return fail("the output file must differ from the input file");
  if (!llvm::sys::fs::exists(Input)) {
    RemoveAll();
    return fail("no such file: '" + Input + "'");
  }

  clang::tooling::FixedCompilationDatabase DB(".", Flags);
  clang::tooling::ClangTool Tool(DB, {Input});
  Tool.setPrintErrorMessage(false);
  Tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
      {"-resource-dir", HCE_CLANG_RESOURCE_DIR, "-fopenmp"},
      clang::tooling::ArgumentInsertPosition::END));

  hce::TranslationResult Result;
  int RC = Tool.run(hce::makeTranslateActionFactory(Opts, Result).get());
  if (RC != 0 || !Result.Done) {
    RemoveAll();
    return 1;
  }
  std::string Err;
  if (!hce::writeFileAtomically(Output, Result.HostText, Err) ||
      (!CudaOut.empty() &&
       !hce::writeFileAtomically(CudaOut, Result.CudaText, Err)) ||
      (!OffloadOut.empty() &&
       !hce::writeFileAtomically(OffloadOut, Result.OffloadText, Err))) {
    RemoveAll();
    return fail(Err);
  }
  return 0;
}
