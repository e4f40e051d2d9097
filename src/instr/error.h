// Errors of the instrumentation library. A bad log is a user error (simfa::UserError from
// src/sim/error.h): the message is one line, "FILE: what is wrong (offset N / warp W entry E)";
// the CLI prints it and exits with code 2.
#pragma once

#include <string>

#include "sim/error.h"

namespace simfa::instr {
// Throws simfa::UserError with the message "<file>: <what>".
[[noreturn]] void throw_log_error(const std::string& file, const std::string& what);
}  // namespace simfa::instr
