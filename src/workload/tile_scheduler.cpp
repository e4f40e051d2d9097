// Static persistent mapping, the dynamic scheduler's LPT + L2-section mapping, and the predicted
// claim order of the atomic-counter schedulers (list scheduling on estimated tile costs).
#include "workload/tile_scheduler.h"

#include <queue>

namespace simfa::workload {

namespace {

// Section width of the current dynamic scheduler (tile_scheduler.hpp): heads whose K+V fit the
// assumed L2 budget, a power of two (the largest <= budget / size, per fa3-kernel.md §4.3), times
// the group size without PackGQA.
std::int64_t section_width(const Fa3Kernel& k) {
  const double one_head = double(k.shape.seqlen_kv) * 2.0 * k.head_dim * k.elem_bytes;
  std::int64_t sw = 1;
  if (one_head <= k.l2_swizzle_budget) {
    const auto fit = static_cast<std::int64_t>(k.l2_swizzle_budget / one_head);
    while (sw * 2 <= fit) sw *= 2;
  }
  return sw * (k.pack_gqa ? 1 : k.shape.group);
}

}  // namespace


TileSchedule::TileSchedule(const Fa3Kernel& k) : k_(&k), total_(k.total_tiles()) {
  if (!claims_tiles(k.scheduler)) return;
  if (k.scheduler == SchedKind::Dynamic) swizzle_ = section_width(k);

  // Predicted claim order. (tile_scheduler.hpp): heads whose K+V fit the assumed L2 budget, a power of two
  const std::int64_t grid = k.grid;
  std::vector<std::vector<std::int64_t>> per(grid);
  using Item = std::pair<double, std::int64_t>;  // (finish time, cta)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  auto cost = [&](std::int64_t idx) {
    return double(block_range(k, map(idx).m_block).count()) + k.dynamic_overhead_blocks;
  };
  for (std::int64_t b = 0; b < grid && b < total_; ++b) {
    per[b].push_back(b);
    q.push({cost(b), b});
  }
  for (std::int64_t next = grid; next < total_; ++next) {
    auto [t, b] = q.top();
    q.pop();
    per[b].push_back(next);
    q.push({t + cost(next), b});
  }
  offsets_.assign(grid + 1, 0);
  for (std::int64_t b = 0; b < grid; ++b) offsets_[b + 1] = offsets_[b] + std::int64_t(per[b].size());
  order_.reserve(offsets_.back());
  for (auto& v : per) order_.insert(order_.end(), v.begin(), v.end());
}

Tile TileSchedule::map(std::int64_t idx) const {
  const Fa3Kernel& k = *k_;
  const std::int64_t M = k.m_blocks, H = k.sched_heads;
  Tile t;
  t.index = idx;
  if (k.scheduler != SchedKind::Dynamic) {  // static, and the counter scheduler's claim indices
    t.m_block = idx % M;
    t.head = (idx / M) % H;
    t.batch = idx / (M * H);
    return t;
  }
  // tile_idx_to_work_tile: section = idx / (swizzle * M); inside it the section's heads go fastest,
  // then the M-block; the last, partial section uses the remainder as its width.
  const std::int64_t hb_total = H * k.shape.batch;
  const std::int64_t section = idx / (swizzle_ * M), l2_mod = idx % (swizzle_ * M);
  const std::int64_t full_sections = hb_total / swizzle_;
  const std::int64_t width = section < full_sections ? swizzle_ : hb_total % swizzle_;
  const std::int64_t m = l2_mod / width, in_section = l2_mod % width;
  const std::int64_t hb = section * swizzle_ + in_section;
  t.batch = hb / H;
  t.head = hb % H;
  t.m_block = M - 1 - m;  // longest-processing-time first
  return t;
}

std::int64_t TileSchedule::tiles_of(std::uint32_t cta) const {
  if (claims_tiles(k_->scheduler))
    return cta + 1 < offsets_.size() ? offsets_[cta + 1] - offsets_[cta] : 0;
  return cta < total_ ? (total_ - cta + k_->grid - 1) / k_->grid : 0;
}

bool TileSchedule::tile(std::uint32_t cta, std::int64_t i, Tile& out) const {
  if (i < 0 || i >= tiles_of(cta)) return false;
  const std::int64_t idx =
      claims_tiles(k_->scheduler) ? order_[offsets_[cta] + i] : cta + i * std::int64_t(k_->grid);
  out = map(idx);
  return true;
}

}  // namespace simfa::workload
