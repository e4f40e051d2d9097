// Trace sources of the memory microbenchmarks, as generator streams (nothing materialized):
//  - ChaseSource: the pointer chase of microbench-methods.md, one CTA of one WarpGroup walking a
//    random cyclic order of `lines` cache lines, one request in flight; each hop is either an
//    ordinary load (LDG of 8 bytes) or a 16-byte bulk TMA copy completing on an mbarrier followed
//    by `hop_bubble` cycles of the loop's own work;
//  - CopySource: the TMA bandwidth kernel (gpu/ubench/tma_bw.cu): `ctas` one-thread blocks, each
//    with one copy in flight, walking the copies of an array grid-stride (copy t goes to block
//    t mod ctas), `copies` copies in all, wrapping around when they exceed one pass.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "microbench/permutation.h"
#include "sim/types.h"
#include "trace/source.h"

namespace simfa::microbench {

// Base address of the benchmark arrays (4 GiB aligned, like a large cudaMalloc).
inline constexpr Addr kArrayBase = Addr{1} << 36;

struct ChaseParams {
  std::uint64_t lines = 16;     // working set / 128 bytes
  std::uint64_t hops = 1000;    // total hops (warm-up and measured)
  bool tma = true;              // bulk copy (tma-latency) or ordinary load (load-latency)
  std::uint32_t hop_bubble = 0; // TMA chase: cycles of loop work besides the copy and the wait
  std::uint64_t seed = 1;
  std::uint32_t line_bytes = 128;
};

class ChaseSource final : public trace::TraceSource {
 public:
  explicit ChaseSource(const ChaseParams& p);
  const trace::KernelInfo& kernel() const override { return info_; }
  std::uint32_t wgs_per_cta(std::uint32_t) const override { return 1; }
  trace::CtaProgram open(std::uint32_t cta) override;
  bool prevalidated() const override { return true; }

 private:
  ChaseParams p_;
  trace::KernelInfo info_;
};

// One copy shape of the TMA bandwidth benchmark.
struct CopyShape {
  std::string kind;                // bulk, tensor1d, tensor2d, tensor3d
  std::vector<std::uint32_t> box;  // elements, innermost first (bulk: {bytes})
  std::uint32_t esz = 4;           // element size (tensor1d: 8)
  std::uint64_t side = 0;          // tensor side in elements (2D: 32768, 3D: 1024; 1D: length)
  std::uint64_t bytes() const;     // bytes per copy
  std::uint64_t tiles() const;     // copies in one pass over the array
  std::string box_text() const;    // "64x64" (empty for bulk and tensor1d, as in the CSV)
  double load_kib() const { return static_cast<double>(bytes()) / 1024.0; }
  // Builds a shape from the CSV columns (copy_kind, box_elems, load_kib); UserError when invalid.
  static CopyShape parse(const std::string& kind, const std::string& box, double load_kib,
                         std::uint64_t array_bytes);
};

class CopySource final : public trace::TraceSource {
 public:
  CopySource(const CopyShape& s, std::uint32_t ctas, std::uint64_t copies);
  const trace::KernelInfo& kernel() const override { return info_; }
  std::uint32_t wgs_per_cta(std::uint32_t) const override { return 1; }
  trace::CtaProgram open(std::uint32_t cta) override;
  bool prevalidated() const override { return true; }

 private:
  CopyShape s_;
  std::uint64_t copies_;
  trace::KernelInfo info_;
  std::uint64_t nx_ = 1, ny_ = 1;  // tiles per dimension
};

// The FA3 K/V access pattern in isolation (kv-stream): every CTA walks the same sequence of
// tiles of 128 rows x 128 FP16 elements (256 bytes of each row) of a 2D tensor whose rows are
// 2 KiB apart (head dim 128, eight heads interleaved, as in §5.4), `copies` tiles each, one copy
// in flight, over `tile_rows_total` rows (then wrapping). CTAs i and i+1 run on an SM pair.
class KvStreamSource final : public trace::TraceSource {
 public:
  KvStreamSource(std::uint32_t ctas, std::uint64_t copies, std::uint64_t rows_total);
  const trace::KernelInfo& kernel() const override { return info_; }
  std::uint32_t wgs_per_cta(std::uint32_t) const override { return 1; }
  trace::CtaProgram open(std::uint32_t cta) override;
  bool prevalidated() const override { return true; }
  static constexpr std::uint32_t kTileBytes = 128 * 256;

 private:
  std::uint64_t copies_, tiles_;
  trace::KernelInfo info_;
};

}  // namespace simfa::microbench
