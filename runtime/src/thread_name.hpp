// Names the runtime's own threads ("hce cuda:0", "hce cuda:0 s1", "hce
// stage0.3"), so that a debugger, top -H or bench/thread_sched.py tells
// them from the program's and libomp's threads.
#pragma once

#include <pthread.h>
#include <string>

namespace hce {

inline void name_this_thread(const std::string &name) {
  // Linux keeps 15 characters and the terminator.
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

} // namespace hce
