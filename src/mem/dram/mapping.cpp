// AddressMapping: mixed-radix decode of the line index, least significant field first, then the
// optional channel hash (add an XOR fold of the remaining digits, modulo the channel count).
#include "mem/dram/mapping.h"

#include <bit>
#include <string>

#include "sim/error.h"

namespace simfa::mem {
namespace {

constexpr const char* kNames[] = {"Ch", "Pc", "Bg", "Ba", "Co", "Ro"};

}  // namespace

void AddressMapping::validate(const DramParams& p) {
  const std::string& m = p.mapping;
  if (m.size() != 2 * kFields)
    user_error("dram.mapping = '{}': expected the six fields Ro Ba Bg Co Pc Ch, each once", m);
  unsigned seen = 0;
  for (std::size_t i = 0; i < m.size(); i += 2) {
    int f = -1;
    for (int k = 0; k < kFields; ++k)
      if (m.compare(i, 2, kNames[k]) == 0) f = k;
    if (f < 0) user_error("dram.mapping = '{}': unknown field '{}'", m, m.substr(i, 2));
    if (seen & (1u << f)) user_error("dram.mapping = '{}': field '{}' twice", m, kNames[f]);
    seen |= 1u << f;
  }
}

AddressMapping::AddressMapping(const DramParams& p)
    : line_bytes_(p.line_bytes),
      channels_(p.channels),
      banks_per_group_(p.banks_per_group),
      hash_(p.channel_hash == ChannelHash::Xor) {
  validate(p);
  const std::uint64_t sizes[kFields] = {
      p.channels,        p.pseudo_channels,          p.bank_groups,
      p.banks_per_group, p.row_bytes / p.line_bytes, p.rows};
  for (int i = 0; i < kFields; ++i) {
    const std::string name = p.mapping.substr(2 * (kFields - 1 - i), 2);
    for (int k = 0; k < kFields; ++k)
      if (name == kNames[k]) {
        const std::uint64_t n = sizes[k];
        const int shift = std::has_single_bit(n) ? std::countr_zero(n) : -1;
        digits_[i] = {static_cast<Field>(k), n, shift, FastDiv(n)};
      }
    capacity_lines_ *= digits_[i].size;
  }
  line_div_ = FastDiv(line_bytes_);
  capacity_div_ = FastDiv(capacity_lines_);
  channel_div_ = FastDiv(channels_);
}

std::uint64_t AddressMapping::fold(std::uint64_t x) {
  // XOR of the byte-aligned slices: every bit of the other fields moves the channel.
  x ^= x >> 32;
  x ^= x >> 16;
  x ^= x >> 8;
  return x;
}

DramCoord AddressMapping::map(Addr line) const {
  std::uint64_t l = capacity_div_.mod(line_div_.div(line));
  std::uint64_t v[kFields] = {};
  std::uint64_t rest = 0, place = 1;  // the number formed by every digit except the channel's
  for (const Digit& d : digits_) {
    std::uint64_t x;
    if (d.shift >= 0) {
      x = l & (d.size - 1);
      l >>= d.shift;
    } else {
      const std::uint64_t q = d.div.div(l);
      x = l - q * d.size;
      l = q;
    }
    v[d.field] = x;
    if (d.field != kCh) {
      rest += x * place;
      place *= d.size;
    }
  }
  DramCoord c;
  c.channel = static_cast<std::uint32_t>(
      hash_ ? channel_div_.mod(v[kCh] + channel_div_.mod(fold(rest))) : v[kCh]);
  c.pc = static_cast<std::uint32_t>(v[kPc]);
  c.bg = static_cast<std::uint32_t>(v[kBg]);
  c.bank = static_cast<std::uint32_t>(v[kBg] * banks_per_group_ + v[kBa]);
  c.row = static_cast<std::uint32_t>(v[kRo]);
  c.column = static_cast<std::uint32_t>(v[kCo]);
  return c;
}

Addr AddressMapping::line_of(const DramCoord& c) const {
  std::uint64_t v[kFields] = {};
  v[kPc] = c.pc;
  v[kBg] = c.bg;
  v[kBa] = c.bank % banks_per_group_;
  v[kRo] = c.row;
  v[kCo] = c.column;
  std::uint64_t rest = 0, place = 1;
  for (const Digit& d : digits_)
    if (d.field != kCh) {
      rest += v[d.field] * place;
      place *= d.size;
    }
  const std::uint64_t off = hash_ ? fold(rest) % channels_ : 0;
  v[kCh] = (c.channel + channels_ - off) % channels_;
  std::uint64_t l = 0;
  place = 1;
  for (const Digit& d : digits_) {
    l += v[d.field] * place;
    place *= d.size;
  }
  return l * line_bytes_;
}

}  // namespace simfa::mem
