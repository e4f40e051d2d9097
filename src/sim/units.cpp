// Unit parsing: a number (with optional exponent) followed by an optional unit suffix looked up in
// a small table; binary prefixes (KiB) and decimal prefixes (KB) are distinct.
#include "sim/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace simfa::units {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "3.35 TB/s" into 3.35 and "TB/s".
std::optional<std::pair<double, std::string_view>> split(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || !std::isfinite(v)) return std::nullopt;
  std::string_view rest = trim(std::string_view(ptr, text.data() + text.size() - ptr));
  return std::make_pair(v, rest);
}

std::optional<double> with_table(std::string_view text,
                                 const std::vector<std::pair<std::string_view, double>>& table) {
  auto p = split(text);
  if (!p) return std::nullopt;
  if (p->second.empty()) return p->first;
  for (const auto& [suffix, mult] : table)
    if (p->second == suffix) return p->first * mult;
  return std::nullopt;
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  auto p = split(text);
  if (!p || !p->second.empty()) return std::nullopt;
  return p->first;
}

std::optional<double> parse_frequency_hz(std::string_view text) {
  return with_table(text, {{"Hz", 1.0}, {"kHz", 1e3}, {"KHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}});
}

std::optional<double> parse_size_bytes(std::string_view text) {
  return with_table(text, {{"B", 1.0},
                           {"KiB", 1024.0},
                           {"MiB", 1024.0 * 1024},
                           {"GiB", 1024.0 * 1024 * 1024},
                           {"TiB", 1024.0 * 1024 * 1024 * 1024},
                           {"KB", 1e3},
                           {"kB", 1e3},
                           {"MB", 1e6},
                           {"GB", 1e9},
                           {"TB", 1e12}});
}

std::optional<double> parse_bandwidth_bps(std::string_view text) {
  return with_table(text, {{"B/s", 1.0},
                           {"KB/s", 1e3},
                           {"MB/s", 1e6},
                           {"GB/s", 1e9},
                           {"TB/s", 1e12},
                           {"KiB/s", 1024.0},
                           {"MiB/s", 1024.0 * 1024},
                           {"GiB/s", 1024.0 * 1024 * 1024},
                           {"TiB/s", 1024.0 * 1024 * 1024 * 1024}});
}

std::string format_frequency(double hz) {
  if (hz >= 1e9 && std::fmod(hz, 1e6) != 0) return fmt::format("{:g}GHz", hz / 1e9);
  if (hz >= 1e6) return fmt::format("{:g}MHz", hz / 1e6);
  return fmt::format("{:g}Hz", hz);
}

std::string format_size(double b) {
  const double k = 1024.0;
  if (b >= k * k * k && std::fmod(b, k * k * k) == 0) return fmt::format("{:g}GiB", b / (k * k * k));
  if (b >= k * k && std::fmod(b, k * k) == 0) return fmt::format("{:g}MiB", b / (k * k));
  if (b >= k && std::fmod(b, k) == 0) return fmt::format("{:g}KiB", b / k);
  if (b >= 1e6 && std::fmod(b, 1e6) == 0) return fmt::format("{:g}MB", b / 1e6);
  return fmt::format("{:g}B", b);
}

std::string format_bandwidth(double bps) {
  if (bps >= 1e12) return fmt::format("{:g}TB/s", bps / 1e12);
  if (bps >= 1e9) return fmt::format("{:g}GB/s", bps / 1e9);
  return fmt::format("{:g}B/s", bps);
}

std::optional<double> parse_count(std::string_view t) {
  double mult = 1;
  if (!t.empty() && (t.back() == 'K' || t.back() == 'k')) mult = 1024, t.remove_suffix(1);
  else if (!t.empty() && (t.back() == 'M' || t.back() == 'm')) mult = 1024.0 * 1024, t.remove_suffix(1);
  if (t.empty()) return std::nullopt;
  long long v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return double(v) * mult;
}

Range parse_range(std::string_view body, bool integer, std::size_t limit) {
  const auto value = [integer](std::string_view t) { return integer ? parse_count(t) : parse_number(t); };
  Range r = parse_range(body, value, integer, limit);
  if (!r.error.empty() && r.error.find("is not a value") != std::string::npos)
    r.error.replace(r.error.find("a value"), 7, integer ? "an integer (K and M suffixes: 64K)" : "a number");
  return r;
}

Range parse_range(std::string_view body, const std::function<std::optional<double>(std::string_view)>& value,
                  bool integral, std::size_t limit) {
  Range r;
  std::vector<std::string_view> parts;
  for (std::size_t pos = 0;;) {
    const auto c = body.find(':', pos);
    parts.push_back(body.substr(pos, c == std::string_view::npos ? c : c - pos));
    if (c == std::string_view::npos) break;
    pos = c + 1;
  }
  auto fail = [&](std::string why) {
    r.values.clear();
    r.error = std::move(why);
    return r;
  };
  if (parts.size() != 3)
    return fail(fmt::format("a range is start:stop:step (or start:stop:*factor), got '{}'", body));
  const auto a = value(parts[0]);
  if (!a) return fail(fmt::format("start '{}' is not a value", parts[0]));
  const auto b = value(parts[1]);
  if (!b) return fail(fmt::format("stop '{}' is not a value", parts[1]));
  if (*b < *a) return fail(fmt::format("stop {} is below start {}", parts[1], parts[0]));
  if (!parts[2].empty() && parts[2][0] == '*') {
    const auto f = parse_number(parts[2].substr(1));
    if (!f || *f <= 1.0)
      return fail(fmt::format("the factor after '*' must be a number above 1, got '{}'", parts[2].substr(1)));
    if (*a <= 0) return fail("a geometric range needs a positive start");
    for (double v = *a; v <= *b * (1 + 1e-12); v *= *f) {
      if (r.values.size() >= limit) return fail(fmt::format("more than {} values", limit));
      r.values.push_back(integral ? std::round(v) : v);
    }
  } else {
    // The step is a difference, read as the values are.
    const auto step = value(parts[2]);
    if (!step) return fail(fmt::format("step '{}' is not a value", parts[2]));
    if (*step <= 0) return fail(fmt::format("the step must be positive, got '{}'", parts[2]));
    const double n = std::floor((*b - *a) / *step + 1e-9);
    if (n >= double(limit)) return fail(fmt::format("more than {} values", limit));
    for (double i = 0; i <= n; ++i) r.values.push_back(*a + i * *step);
  }
  return r;
}

}  // namespace simfa::units
