//===- OutputFile.h - Write a file atomically -------------------*- C++ -*-===//
#ifndef HCE_TRANSLATOR_OUTPUTFILE_H
#define HCE_TRANSLATOR_OUTPUTFILE_H

#include <string>

namespace hce {

/// Writes \p Text to \p Path through a temporary file in the same directory
/// and a rename, so that \p Path either holds the whole text or is left as it
/// was. Returns false and sets \p Err on failure (the temporary is removed).
bool writeFileAtomically(const std::string &Path, const std::string &Text,
                         std::string &Err);

} // namespace hce

#endif
