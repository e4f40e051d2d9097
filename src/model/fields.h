// The model's output fields, described once: name, unit, meaning and accessor. The CLI's table,
// JSON and CSV and the Python dictionaries all iterate this list, so names never diverge.
#pragma once
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

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

// One evaluated point as JSON (simfa analyze --json's points, the results database's "analyze"
// document): the shape, the kernel, then every result_fields() entry (exact counts as integers).
nlohmann::ordered_json point_json(const spec::AttentionShape& shape, const ModelOptions& opt, const Result& r);

}  // namespace simfa::model
