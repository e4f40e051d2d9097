// Address mapping: a line address to (channel, pseudo-channel, bank group, bank, row, column).
// The line index is split as a mixed-radix number whose digits are the fields of `dram.mapping`
// (most significant first; sizes need not be powers of two, 80 channels work). With
// `dram.channel_hash = xor` the channel is (channel digit + fold(other digits)) mod channels: a
// bijection on every group of `channels` lines, so a sequential stream still visits every channel
// in turn, while power-of-two strides (FA3's K/V row strides) no longer land on a few channels.
#pragma once
#include <array>
#include <cstdint>

#include "mem/dram/params.h"
#include "mem/fast_div.h"
#include "sim/types.h"

namespace simfa::mem {

struct DramCoord {
  std::uint32_t channel = 0;
  std::uint32_t pc = 0;    // pseudo-channel within the channel
  std::uint32_t bg = 0;    // bank group
  std::uint32_t bank = 0;  // bank within the pseudo-channel: bg * banks_per_group + bank in group
  std::uint32_t row = 0;
  std::uint32_t column = 0;  // in lines within the row
};

class AddressMapping {
 public:
  explicit AddressMapping(const DramParams& p);
  // Throws UserError naming `dram.mapping` unless it names each of Ro Ba Bg Co Pc Ch once.
  static void validate(const DramParams& p);
  DramCoord map(Addr line) const;
  // Inverse of map (for tests and microbenchmarks that aim at a given bank).
  Addr line_of(const DramCoord& c) const;

 private:
  enum Field : std::uint8_t { kCh, kPc, kBg, kBa, kCo, kRo, kFields };
  struct Digit {
    Field field;
    std::uint64_t size;
    int shift;  // log2(size) when size is a power of two (shift and mask instead of dividing), else
                // -1
    FastDiv div;  // by size (a channel count such as 80: no hardware divide per request)
  };
  static std::uint64_t fold(std::uint64_t x);

  std::array<Digit, kFields> digits_{};  // least significant first
  std::uint64_t capacity_lines_ = 1;
  std::uint32_t line_bytes_;
  std::uint32_t channels_;
  FastDiv line_div_, capacity_div_, channel_div_;  // by line_bytes_, capacity_lines_, channels_
  std::uint32_t banks_per_group_;
  bool hash_;
};

}  // namespace simfa::mem
