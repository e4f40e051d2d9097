// Statistics: values are owned by the components (plain integers updated on the hot path); each is
// registered once with a hierarchical name, unit and description. Derived values (rates, hit
// ratios, utilizations) are formulas evaluated only when the stats are written out.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/types.h"

namespace simfa {

class Stats {
 public:
  // Registers a counter owned by a component; the pointer must outlive the Stats object's use.
  void counter(std::string name, const std::uint64_t* value, std::string unit, std::string doc);
  // Registers a maximum (a peak occupancy) owned by a component: output like a counter, but not a
  // count, so a sampled run does not extrapolate it (counter_values and add_to_counters skip it).
  void maximum(std::string name, const std::uint64_t* value, std::string unit, std::string doc);
  // Registers a derived value computed at output time.
  void formula(std::string name, std::function<double()> f, std::string unit, std::string doc);

  double value(const std::string& name) const;  // throws InternalError if unknown
  bool has(const std::string& name) const;
  // {name: value}, in registration order (deterministic).
  nlohmann::ordered_json values_json() const;
  // {name-pattern: {unit, doc}}: names with [i] indices collapse to [*].
  nlohmann::json docs_json() const;
  std::size_t size() const { return entries_.size(); }

  // Sampled simulation (docs/sampling.md): the counters' values in registration order, and adding
  // extrapolated counts (rounded) for work that was fast-forwarded instead of simulated. The
  // components own the counters; formulas that read the same fields see the sum. Maxima are not
  // among them.
  std::vector<std::uint64_t> counter_values() const;
  // Called before counter_values() reads: components that apply some updates late (a response
  // taken ahead of its arrival) bring their counters up to date.
  void before_read(std::function<void()> f) { before_read_ = std::move(f); }
  std::vector<std::string> counter_names() const;  // same order as counter_values
  void add_to_counters(const std::vector<double>& extra);

 private:
  struct Entry {
    std::string name, unit, doc;
    const std::uint64_t* counter = nullptr;
    std::function<double()> formula;
    bool additive = false;  // a count (counter), extrapolated by a sampled run
  };
  std::vector<Entry> entries_;
  std::function<void()> before_read_;
};

// Busy-time accounting from timestamps, exact when idle cycles are skipped: call set(now, busy)
// at every transition; total(now) includes the open interval.
class BusyTime {
 public:
  void set(Cycle now, bool busy) {
    if (busy == busy_) return;
    if (busy_) total_ += now - since_;
    busy_ = busy;
    since_ = now;
  }
  Cycle total(Cycle now) const { return total_ + (busy_ ? now - since_ : 0); }
  bool busy() const { return busy_; }
  // Adds an interval directly (for components that know an operation's duration up front).
  void add(Cycle d) { total_ += d; }
  std::uint64_t* raw_total() { return &total_; }

 private:
  bool busy_ = false;
  Cycle since_ = 0;
  std::uint64_t total_ = 0;
};

}  // namespace simfa
