// Shared helper of the tests in tests/sim.
#pragma once
#include <functional>
#include <string>

#include "sim/error.h"

namespace simfa::test {

// The message of the UserError `f` throws, or "" when it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace simfa::test
