// Executes one co_exec region across the selected devices: picks the
// devices and the scheduler, runs one controller job per device that asks
// the scheduler for chunks, moves data around each chunk, re-runs failed
// chunks on the CPU, combines reductions and records statistics.
#pragma once

#include "hce/hce.h"

#include <string>

namespace hce {

// 0 on success; otherwise `why` says what failed (region name included).
int execute_region(const hce_region &region, std::string &why);

} // namespace hce
