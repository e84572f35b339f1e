//===- OutputFile.cpp - Write a file atomically ---------------------------===//
#include "OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace hce {

bool writeFileAtomically(const std::string &Path, const std::string &Text,
                         std::string &Err) {
  llvm::SmallString<256> Model(Path);
  Model += ".hce-tmp-%%%%%%";
  int FD = -1;
  llvm::SmallString<256> Tmp;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, Tmp)) {
    Err = "cannot create a temporary file next to '" + Path +
          "': " + EC.message();
    return false;
  }
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.close();
    if (OS.has_error()) {
      Err = "cannot write '" + std::string(Tmp) + "': " + OS.error().message();
      OS.clear_error();
      llvm::sys::fs::remove(Tmp);
      return false;
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Tmp, Path)) {
    Err = "cannot rename '" + std::string(Tmp) + "' to '" + Path +
          "': " + EC.message();
    llvm::sys::fs::remove(Tmp);
    return false;
  }
  return true;
}

} // namespace hce
