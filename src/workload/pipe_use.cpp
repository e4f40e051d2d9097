#include "workload/pipe_use.h"

#include "workload/tile_scheduler.h"

namespace simfa::workload {

PipeCycles kernel_pipe_cycles(const Fa3Kernel& k) {
  // One warp per sub-partition, each warp instruction holding its pipe (warp_pipe_cycles).
  const WarpPipeCycles wc = warp_pipe_cycles(k.pipe_rates);
  const double s = 64.0 * k.tile_n / 128.0;    // score elements per thread of one 64-row block
  const double o = 64.0 * k.head_dim / 128.0;  // O accumulator elements per thread
  const double rows = 2.0;                     // rows per thread of the m64 fragment
  // Per block: FMNMX over the scores and two quad rounds per row; FFMA (argument) and FADD (sum)
  // per score, FFMA for the row sums' rescale; MUFU per score and per row; F2FP per score pair;
  // FMUL per O element on every block after the first.
  const double blk_alu = (s + 2 * rows) + s / 2, blk_fp32 = 2 * s + rows, blk_mufu = s + rows;
  const double mask_fp32 = k.mask_ops_per_element * s;
  // Per tile: the final O *= 1/row_sum, the O conversion, and (current) clearing O.
  const double tile_fp32 = o + (k.version == Version::Current ? o : 0), tile_alu = o / 2;

  double alu = 0, fp32 = 0, mufu = 0;
  const TileSchedule sched(k);
  for (std::uint32_t cta = 0; cta < k.grid; ++cta) {
    Tile t;
    for (std::int64_t i = 0; sched.tile(cta, i, t); ++i) {
      const BlockRange br = block_range(k, t.m_block);
      const auto n = static_cast<double>(br.count());
      if (n == 0) continue;
      double masked = 0;
      for (std::int64_t b = br.n_min; b < br.n_max; ++b) masked += block_masked(k, br, b) ? 1 : 0;
      alu += n * blk_alu + tile_alu;
      mufu += n * blk_mufu;
      fp32 += n * blk_fp32 + (n - 1) * o + masked * mask_fp32 + tile_fp32;
    }
  }
  const double wgs = k.consumer_wgs;
  return {mufu * wgs * wc.mufu, fp32 * wgs * wc.fp32, alu * wgs * wc.alu};
}

}  // namespace simfa::workload
