// HCE_TRACE=path.json: a Chrome trace-event file (Perfetto opens it) with one
// track per device and stream; events are kept in memory and written at
// exit.
#pragma once

#include <functional>
#include <string>

namespace hce {

bool trace_enabled();
// A complete event on `device`'s `stream` track ("compute", "upload",
// "download") from start to end seconds (now_seconds clock).
void trace_event(const std::string &device, const char *stream,
                 const std::string &name, double start, double end);
// The same, its name made by `name` when the file is written: for a name
// that costs more to format than to keep what it is made from.
void trace_event_later(const std::string &device, const char *stream,
                       std::function<std::string()> name, double start, double end);
// Writes the file (called at shutdown).  Returns false if it cannot.
bool trace_flush();

} // namespace hce
