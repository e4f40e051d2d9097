// simfa's version (the CMake project's) and the git commit of the build (cmake/version.cmake),
// recorded with every study result (study/schema.h).
#pragma once

namespace simfa {
extern const char* const kSimfaVersion;  // "0.1.0"
extern const char* const kSimfaCommit;   // "1a2b3c4d5e6f", "1a2b3c4d5e6f+dirty" or "unknown"
}  // namespace simfa
