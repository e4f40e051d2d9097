// Reader of simfa event logs. Validates everything before it allocates, so a corrupt or hostile
// file yields a UserError ("FILE: what is wrong (offset N / warp W entry E)") or a warning in
// EventLog::warnings, never a crash or an allocation larger than the file.
//
// Errors (log unusable): unreadable file, wrong magic, unsupported version, truncated header /
// tensormap table / warp table / entries, trailing bytes, inconsistent shape fields, bad clock
// kind, bad tensormap records, an entry count beyond entries_per_warp, unknown event ids.
// Warnings (log usable): overflow flags set, timestamps decreasing within a warp.
#pragma once

#include <cstddef>
#include <string>

#include "instr/event_log.h"

namespace simfa::instr {

// Reads and validates the log file at `path`.
EventLog read_log(const std::string& path);

// Parses an in-memory log image; `name` is used in messages in place of a file name.
EventLog parse_log(const unsigned char* data, std::size_t size, const std::string& name);

}  // namespace simfa::instr
