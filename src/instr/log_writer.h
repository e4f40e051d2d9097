// Host-only writer of simfa event logs: the same encoder (simfa/evlog_file.h) that EvlogHost
// uses on a real GPU, so emulated and measured logs are byte-compatible.
#pragma once

#include <string>
#include <vector>

#include "instr/event_log.h"

namespace simfa::instr {

// Encodes a log image (device buffer layout) to bytes / to a file. Throws UserError when the
// file cannot be written.
std::vector<unsigned char> encode_log(const FileHeader& header,
                                      const std::vector<simfa_tensormap_desc>& tensormaps,
                                      const evlog::BufferView& buffers);
void write_log(const std::string& path, const FileHeader& header,
               const std::vector<simfa_tensormap_desc>& tensormaps,
               const evlog::BufferView& buffers);

// Re-encodes a parsed log. Memory is O(file size), whatever entries_per_warp says.
std::vector<unsigned char> encode_log(const EventLog& log);

}  // namespace simfa::instr
