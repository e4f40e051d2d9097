// TMA address generation: the cache-line requests of a TensorMap box or a bulk copy.
#pragma once
#include <cstdint>
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

// Sector mask of the byte range [lo, hi) within the line starting at `line`.
std::uint8_t sector_mask(Addr line, Addr lo, Addr hi, std::uint32_t line_bytes);

}  // namespace simfa::core
