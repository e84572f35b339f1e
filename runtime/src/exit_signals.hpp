// SIGINT/SIGTERM/SIGHUP with HCE_STATS or HCE_TRACE set: the statistics
// (of the executions that completed) and the trace are still written, then
// the process dies of the signal as it would have.
#pragma once

namespace hce {

// Installs the handlers where the program left the default action; done
// once when libhce is loaded and either variable is set.
void watch_exit_signals();

} // namespace hce
