// TMA address generation: the cache-line requests of a TensorMap box or a bulk copy.
#pragma once
#include <cstdint>
#include <array>
#include <deque>
#include <unordered_map>
#include <vector>

#include "sim/types.h"
#include "trace/isa.h"

namespace simfa::core {

struct LineReq {
  Addr line = 0;             // line-aligned address
  std::uint8_t sectors = 0;  // 4 sectors per line, bit i = quarter i
  bool operator==(const LineReq&) const = default;
};

// Appends the requests for the box whose first element is at `origin`. With `dedup` each line
// appears once (its sector masks merged), in ascending address order; without it there is one
// request per element, in element order (the paper's "no line deduplication" ablation). When the
// map has a base address, elements outside the tensor are not fetched (TMA zero-fills them).
void tensor_box_lines(const trace::TensorMap& m, Addr origin, bool dedup, std::uint32_t line_bytes,
                      std::vector<LineReq>& out);

// Appends the requests of a contiguous copy of `bytes` bytes at `addr`.
void bulk_lines(Addr addr, std::uint64_t bytes, std::uint32_t line_bytes, std::vector<LineReq>& out);

// A TMA copy (TMA_TENSOR, TMA_BULK or TMA_STORE) of kernel `k`: the bytes it moves, and the lines
// it requests with deduplication (what the functional paths, warming and span replay, run).
std::uint64_t copy_bytes(const trace::KernelInfo& k, const trace::Instr& in);
void copy_lines(const trace::KernelInfo& k, const trace::Instr& in, std::uint32_t line_bytes,
                std::vector<LineReq>& out);

// The lines of tensor box copies as patterns shared by every copy with the same map, the same
// offset of its origin within a line and the same clipping: such a copy requests the pattern's
// lines moved by its origin rounded down to a line (a box's rows lie at fixed offsets from its
// origin, so the lines they touch, their sector masks and their order move with it). The TMA unit
// reads a copy's lines from its pattern instead of building a list per copy (FA3 copies its K/V
// tiles with a handful of patterns, each used thousands of times).
struct BoxPattern {
  const LineReq* lines = nullptr;  // line i of the copy: base + lines[i].line, lines[i].sectors
  std::uint32_t size = 0;
  Addr base = 0;
};

class BoxPatterns {
 public:
  // At most `max_lines` lines held in all: once a new pattern does not fit, no further one is
  // built (find() fails for it, and the caller lists the lines, without a walk here first).
  explicit BoxPatterns(std::size_t max_lines = std::size_t{1} << 20) : max_lines_(max_lines) {}
  // The pattern of tensor_box_lines(m, origin, dedup, line_bytes), built on first use. False when
  // a new pattern would not fit, or when the pattern of m's id was built from another map (the
  // caller then lists the lines itself).
  bool find(const trace::TensorMap& m, Addr origin, bool dedup, std::uint32_t line_bytes, BoxPattern& out);
  std::size_t patterns() const { return entries_.size(); }

 private:
  struct Key {
    std::uint16_t map;
    bool dedup;
    std::uint32_t line_bytes;
    Addr offset;  // origin within its line
    std::uint64_t inner;  // elements of a row inside the tensor
    std::array<std::uint64_t, trace::kMaxRank> rows;  // rows inside the tensor along each dimension
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };
  struct Entry {
    trace::TensorMap map;  // the map it was built from (a map id can be redefined by another kernel)
    std::vector<LineReq> lines;
  };
  std::size_t max_lines_, held_ = 0;
  bool full_ = false;
  std::deque<Entry> entries_;
  std::unordered_map<Key, std::size_t, KeyHash> index_;
};

// Sector mask of the byte range [lo, hi) within the line starting at `line`.
std::uint8_t sector_mask(Addr line, Addr lo, Addr hi, std::uint32_t line_bytes);

}  // namespace simfa::core
