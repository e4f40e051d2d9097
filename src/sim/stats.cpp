// Stats registry: a flat vector of named entries, written out in registration order.
#include "sim/stats.h"

#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "sim/error.h"

namespace simfa {

void Stats::counter(std::string name, const std::uint64_t* value, std::string unit, std::string doc) {
  entries_.push_back({std::move(name), std::move(unit), std::move(doc), value, {}, true});
}

void Stats::maximum(std::string name, const std::uint64_t* value, std::string unit, std::string doc) {
  entries_.push_back({std::move(name), std::move(unit), std::move(doc), value, {}, false});
}

void Stats::formula(std::string name, std::function<double()> f, std::string unit, std::string doc) {
  entries_.push_back({std::move(name), std::move(unit), std::move(doc), nullptr, std::move(f), false});
}

bool Stats::has(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.name == name) return true;
  return false;
}

double Stats::value(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.name == name) return e.counter ? static_cast<double>(*e.counter) : e.formula();
  throw InternalError("unknown stat " + name);
}

nlohmann::ordered_json Stats::values_json() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& e : entries_) {
    if (e.counter)
      j[e.name] = *e.counter;
    else
      j[e.name] = e.formula();
  }
  return j;
}

nlohmann::json Stats::docs_json() const {
  static const std::regex idx(R"(\[[0-9]+\])");
  std::map<std::string, nlohmann::json> out;
  for (const auto& e : entries_) {
    std::string pat = std::regex_replace(e.name, idx, "[*]");
    if (!out.count(pat)) out[pat] = {{"unit", e.unit}, {"doc", e.doc}};
  }
  nlohmann::json j = nlohmann::json::object();
  for (auto& [k, v] : out) j[k] = v;
  return j;
}

std::vector<std::uint64_t> Stats::counter_values() const {
  if (before_read_) before_read_();
  std::vector<std::uint64_t> v;
  for (const Entry& e : entries_)
    if (e.additive) v.push_back(*e.counter);
  return v;
}

std::vector<std::string> Stats::counter_names() const {
  std::vector<std::string> v;
  for (const Entry& e : entries_)
    if (e.additive) v.push_back(e.name);
  return v;
}

void Stats::add_to_counters(const std::vector<double>& extra) {
  std::size_t i = 0;
  for (Entry& e : entries_) {
    if (!e.additive) continue;
    if (i >= extra.size()) break;
    const double x = extra[i++];
    // The counter belongs to a component (registered read-only for output); only a sampled run's
    // extrapolation writes it, after the simulation has ended.
    auto* c = const_cast<std::uint64_t*>(e.counter);
    if (x > 0) *c += static_cast<std::uint64_t>(x + 0.5);
  }
}

}  // namespace simfa
