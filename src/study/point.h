// One study point: its checks, its key, and its evaluation into a row of the results database
// (study/schema.h): the simulation (simfa run's path) and/or the analytic model (simfa analyze's).
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/gpu.h"
#include "study/study.h"

namespace simfa {
class Config;
}

namespace simfa::study {

// The point's canonical key: its inputs and the study's name as JSON with sorted keys.
std::string point_key(const std::string& study, const Point& p);

// Builds everything the point needs without running it: the configuration, the workload (when it
// simulates), the model's shape (when it analyzes). UserError when something is refused.
void check_point(const Point& p);

// A row: column name -> value (null where the point has none). Fixed columns of kPointColumns and
// one per configuration key of the point (its value text).
using Row = nlohmann::ordered_json;

struct EvalOptions {
  // Polled during a simulation (Ctrl-C); may throw InterruptedError, which evaluate_point passes on
  // (an interrupted point is not a result).
  std::function<void(const core::RunProgress&)> poll;
};

// Runs the point and returns its row. Bad input, a deadlock or an internal error becomes the row's
// status and message (never an exception), so a sweep records it and goes on; InterruptedError is
// rethrown.
Row evaluate_point(const std::string& study, const Point& p, const EvalOptions& opt = {});

// simfa's version and the commit it was built from ("unknown" outside a git checkout).
const char* simfa_version();
const char* simfa_commit();

}  // namespace simfa::study
