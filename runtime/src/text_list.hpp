// Splitting the runtime's list-valued settings ("speed:4,bw:12e9" in HCE_SIM,
// "cpu=0.3,sim:0=0.7" in ratio(...), "cpu=1,cuda=8" in HCE_TASK_SPEED).
#pragma once

#include <string>
#include <vector>

namespace hce {

// The items of `text` separated by `sep`, in order, empty ones included,
// except that an empty text has no items and a trailing separator adds none.
inline std::vector<std::string> split_list(const std::string &text, char sep) {
  std::vector<std::string> items;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find(sep, pos);
    if (end == std::string::npos)
      end = text.size();
    items.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return items;
}

} // namespace hce
