// The model's output fields, described once: name, unit, meaning and accessor. The CLI's table,
// JSON and CSV and the Python dictionaries all iterate this list, so names never diverge.
#pragma once
#include <span>
#include <string>
#include <string_view>

#include "model/analysis.h"

namespace simfa::model {

struct ResultField {
  const char* name;   // JSON/CSV/Python key
  const char* unit;   // "bytes", "FLOP", "us", "" ...
  const char* doc;    // one sentence
  bool text = false;  // true: text_of applies (regime, bound); false: number
  double (*number)(const Result&) = nullptr;
  std::string_view (*text_of)(const Result&) = nullptr;
};

// Every field, in output order: the resolved configuration, then traffic, then latency and
// baselines.
std::span<const ResultField> result_fields();
const ResultField* find_result_field(std::string_view name);

}  // namespace simfa::model
