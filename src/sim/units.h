// Parsing of quantities with units ("1830MHz", "50MiB", "3.35TB/s") into base units.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace simfa::units {

// Each returns nullopt when `text` is not a valid quantity of that kind. A plain number is taken
// in the base unit (Hz, bytes, bytes per second).
std::optional<double> parse_frequency_hz(std::string_view text);
std::optional<double> parse_size_bytes(std::string_view text);
std::optional<double> parse_bandwidth_bps(std::string_view text);
std::optional<double> parse_number(std::string_view text);

// Human-readable renderings used by `config show` and summaries.
std::string format_frequency(double hz);
std::string format_size(double bytes);
std::string format_bandwidth(double bps);

}  // namespace simfa::units
