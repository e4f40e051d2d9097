// Brute-force reference for the tile counting: enumerates every CTA of one KV group, every K/V
// block it loads and every (query, key) pair, and simulates the waves with explicit row sets.
// Written independently of src/model/tiles.cpp (no floor sums, no reduced formulas).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/tiles.h"

namespace simfa::model::testing {

struct BruteCta {
  std::int64_t head = 0, m = 0, split = 0;
  std::int64_t rows = 0;            // valid Q rows
  std::int64_t kv_lo = 0, kv_hi = 0;  // K rows [lo, hi) loaded; empty when lo == hi
};

inline GroupCounts brute_force_counts(const GroupGeometry& g) {
  using i64 = std::int64_t;
  const i64 L = g.seqlen_q, S = g.seqlen_kv, G = g.group;
  const i64 heads = g.pack_gqa ? 1 : G;
  const i64 rows_total = g.pack_gqa ? G * L : L;
  i64 M = 0;
  while (M * g.tile_m < rows_total) ++M;
  i64 NB = 0;
  while (NB * g.tile_n < S) ++NB;

  std::vector<BruteCta> ctas;
  for (i64 h = 0; h < heads; ++h)
    for (i64 m = 0; m < M; ++m) {
      // The tile's last query position, unclamped like FA3 ((m+1)·T_M − 1 in packed rows).
      const i64 last_row = (m + 1) * g.tile_m - 1;
      const i64 q_max = g.pack_gqa ? last_row / G : last_row;
      // Block n is needed iff its first key is visible to q_max: n·T_N <= q_max + S − L.
      i64 n_max = 0;
      for (i64 n = 0; n < NB; ++n)
        if (!g.causal || n * g.tile_n <= q_max + S - L) n_max = n + 1;
      const i64 chunk = n_max == 0 ? 0 : (n_max + g.splits - 1) / g.splits;
      for (i64 i = 0; i < g.splits; ++i) {
        BruteCta c;
        c.head = h;
        c.m = m;
        c.split = i;
        c.rows = std::min(g.tile_m, rows_total - m * g.tile_m);
        const i64 b_lo = i * chunk, b_hi = std::min((i + 1) * chunk, n_max);
        for (i64 n = b_lo; n < b_hi; ++n) {  // rows of each block, clipped at S
          if (c.kv_hi == c.kv_lo) c.kv_lo = c.kv_hi = n * g.tile_n;
          c.kv_hi = std::min((n + 1) * g.tile_n, S);
        }
        ctas.push_back(c);
      }
    }

  GroupCounts r;
  r.m_blocks = M;
  r.n_blocks = NB;
  r.ctas = i64(ctas.size());
  r.sharers = heads * M;
  r.o_rows = heads * rows_total;
  r.waves = std::max<i64>(1, (r.sharers + g.n_conc - 1) / g.n_conc);
  std::vector<char> q_seen(std::size_t(heads * rows_total), 0), kv_seen(std::size_t(S), 0);
  for (const auto& c : ctas) {
    const i64 kv = c.kv_hi - c.kv_lo;
    if (kv == 0) continue;
    r.q_rows += c.rows;
    r.kv_rows += kv;
    r.score_elems += c.rows * kv;
    for (i64 p = 0; p < c.rows; ++p) q_seen[std::size_t(c.head * rows_total + c.m * g.tile_m + p)] = 1;
    for (i64 k = c.kv_lo; k < c.kv_hi; ++k) kv_seen[std::size_t(k)] = 1;
  }
  r.q_rows_touched = std::count(q_seen.begin(), q_seen.end(), 1);
  r.kv_rows_touched = std::count(kv_seen.begin(), kv_seen.end(), 1);
  // Unmasked (query, key) pairs of all G query heads.
  for (i64 q = 0; q < L; ++q)
    for (i64 k = 0; k < S; ++k)
      if (!g.causal || k <= q + S - L) r.useful_elems += G;

  // Waves: the launch order of the scheduler, cut into groups of n_conc CTAs; each wave fetches
  // the set union of its CTAs' K rows once.
  auto wave_rows = [&](std::vector<BruteCta> order) {
    i64 total = 0;
    for (std::size_t w = 0; w < order.size(); w += std::size_t(g.n_conc)) {
      std::vector<char> seen(std::size_t(S), 0);
      for (std::size_t k = w; k < std::min(order.size(), w + std::size_t(g.n_conc)); ++k)
        for (i64 x = order[k].kv_lo; x < order[k].kv_hi; ++x) seen[std::size_t(x)] = 1;
      total += std::count(seen.begin(), seen.end(), 1);
    }
    return total;
  };
  for (i64 i = 0; i < g.splits; ++i) {
    std::vector<BruteCta> order;
    for (const auto& c : ctas)
      if (c.split == i) order.push_back(c);  // head-major, m ascending (the launch order)
    if (g.causal && g.splits == 1)           // FA3 causal: longest first, heads fastest
      std::stable_sort(order.begin(), order.end(), [](const BruteCta& a, const BruteCta& b) {
        return a.m != b.m ? a.m > b.m : a.head < b.head;
      });
    r.kv_rows_real += wave_rows(order);
  }
  return r;
}

}  // namespace simfa::model::testing
