// Parsing of quantities with units ("1830MHz", "50MiB", "3.35TB/s") into base units.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simfa::units {

// Each returns nullopt when `text` is not a valid quantity of that kind. A plain number is taken
// in the base unit (Hz, bytes, bytes per second).
std::optional<double> parse_frequency_hz(std::string_view text);
std::optional<double> parse_size_bytes(std::string_view text);
std::optional<double> parse_bandwidth_bps(std::string_view text);
std::optional<double> parse_number(std::string_view text);
// A token count: an integer with an optional binary suffix (16K = 16384, 1M = 1048576).
std::optional<double> parse_count(std::string_view text);

// A range of values as `simfa analyze --sweep` and study files write it: "start:stop:step" or
// "start:stop:*factor" (geometric), of counts (`integer`: K and M suffixes, values rounded) or
// real numbers. The values, or the reason the text is not a range (one phrase, without the key):
// "the step must be positive, got '0'". At most `limit` values.
struct Range {
  std::vector<double> values;
  std::string error;  // non-empty: not a valid range
};
Range parse_range(std::string_view text, bool integer, std::size_t limit = 10'000'000);
// The same with the endpoints and the step read by `value` (a configuration key's own units, say;
// nullopt: "start 'x' is not a value"; `value` may also throw its own error); values rounded when
// `integral`.
Range parse_range(std::string_view text, const std::function<std::optional<double>(std::string_view)>& value,
                  bool integral, std::size_t limit = 10'000'000);

// Human-readable renderings used by `config show` and summaries.
std::string format_frequency(double hz);
std::string format_size(double bytes);
std::string format_bandwidth(double bps);

}  // namespace simfa::units
