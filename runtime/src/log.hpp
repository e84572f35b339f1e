// Messages the runtime prints: every line starts with "hce: " and says
// whether it is a notice, a warning or an error.
#pragma once

#include <cstdio>
#include <string>

namespace hce {

void notice(const std::string &msg);  // once-per-process facts (no GPU, ...)
void warning(const std::string &msg); // something went wrong but was handled
void error(const std::string &msg);   // the operation fails
// Prints `msg` only the first time `key` is seen in this process.
void notice_once(const std::string &key, const std::string &msg);
void warning_once(const std::string &key, const std::string &msg);

} // namespace hce
