// Tile counting for one KV group: closed forms for non-causal tiles (every CTA reads all of K/V)
// and for causal tiles (FA3's n_block_max per M-block is a floor of a linear function, summed with
// a floor sum), plus an enumeration over M-blocks for causal split-KV.
#include "model/tiles.h"

#include <algorithm>
#include <utility>

namespace simfa::model {
namespace {

using i64 = std::int64_t;
using u128 = unsigned __int128;

// Floor and ceiling division for b > 0 and any sign of a.
i64 fdiv(i64 a, i64 b) {
  i64 q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
i64 cdiv(i64 a, i64 b) { return -fdiv(-a, b); }

// Useful (unmasked) score elements of one query head: Σ_{i<L} clamp(i + S − L + 1, 0, S). The
// causal mask aligns the last query with the last key (FA3: seqlen_k − seqlen_q offset).
i64 useful_per_qhead(i64 L, i64 S, bool causal) {
  if (!causal) return L * S;
  const i64 off = S - L + 1;            // keys visible to query 0
  const i64 i0 = std::max<i64>(0, -off + 1);  // first query that sees a key
  const i64 count = L - i0;             // queries i0 .. L-1; query L-1 sees exactly S keys
  return count * ((i0 + off) + S) / 2;
}

// n_block_max before clamping, for M-block m (fa3-kernel.md §4.1). With PackGQA (row_div = G)
// the packed row end ⌊((m+1)·T_M − 1)/G⌋ + 1 is folded in: ⌊(⌊y/G⌋ + c)/T_N⌋ = ⌊(y + c·G)/(G·T_N)⌋.
struct CausalBlocks {
  i64 t_m, d, b, nb, t_n, s;
  i64 raw(i64 m) const { return fdiv(t_m * m + b, d); }
  i64 n_max(i64 m) const { return std::clamp<i64>(raw(m), 0, nb); }
  i64 kv(i64 m) const { return std::min(n_max(m) * t_n, s); }
};

}  // namespace

i64 floor_sum(i64 n, i64 m, i64 a, i64 b) {
  // Standard Euclid-like reduction; every partial sum is bounded by the result.
  u128 ans = 0, N = u128(n), M = u128(m), A = u128(a), B = u128(b);
  while (true) {
    if (A >= M) {
      ans += N * (N - 1) / 2 * (A / M);
      A %= M;
    }
    if (B >= M) {
      ans += N * (B / M);
      B %= M;
    }
    const u128 y = A * N + B;
    if (y < M) break;
    N = y / M;
    B = y % M;
    std::swap(M, A);
  }
  return i64(ans);
}

GroupCounts count_group(const GroupGeometry& g) {
  GroupCounts c;
  const i64 L = g.seqlen_q, S = g.seqlen_kv, T_M = g.tile_m, T_N = g.tile_n, s = g.splits;
  const i64 heads = g.pack_gqa ? 1 : g.group;       // head units per KV group
  const i64 rows = g.pack_gqa ? g.group * L : L;     // rows per head unit
  const i64 row_div = g.pack_gqa ? g.group : 1;
  const i64 M = cdiv(rows, T_M);
  const i64 NB = cdiv(S, T_N);
  c.m_blocks = M;
  c.n_blocks = NB;
  c.ctas = heads * M * s;
  c.sharers = heads * M;
  c.o_rows = heads * rows;
  c.waves = std::max<i64>(1, cdiv(c.sharers, g.n_conc));
  c.useful_elems = g.group * useful_per_qhead(L, S, g.causal);

  if (!g.causal) {
    // Every CTA of split i reads chunk i of ⌈NB/s⌉ blocks; the chunks tile [0, S).
    const i64 chunk = cdiv(NB, s);
    const i64 nonempty = cdiv(NB, chunk);
    c.q_rows = heads * rows * nonempty;
    c.q_rows_touched = heads * rows;
    c.kv_rows = heads * M * S;
    c.kv_rows_touched = S;
    c.kv_rows_real = S * c.waves;  // each chunk re-read once per wave of its sharers (Eq. 5)
    c.score_elems = heads * rows * S;
    return c;
  }

  const i64 d = row_div * T_N;
  const CausalBlocks cb{T_M, d, T_M - 1 + (S - L + T_N) * row_div, NB, T_N, S};
  const i64 r_last = rows - (M - 1) * T_M;
  c.kv_rows_touched = cb.kv(M - 1);  // the last M-block reaches the last key

  if (s == 1) {
    // M-blocks [0, m_lo) are empty, [m_lo, m_hi) read raw(m) full blocks, [m_hi, M) read all of S.
    const i64 m_lo = std::clamp<i64>(cdiv(d - cb.b, T_M), 0, M);
    const i64 m_hi = std::clamp<i64>(cdiv(NB * d - cb.b, T_M), m_lo, M);
    const i64 mid = m_hi - m_lo;
    const i64 sum_blocks = mid > 0 ? floor_sum(mid, d, T_M, T_M * m_lo + cb.b) : 0;
    const i64 kv_sum = T_N * sum_blocks + S * (M - m_hi);  // per head unit
    c.kv_rows = heads * kv_sum;
    c.score_elems = heads * (T_M * kv_sum - (T_M - r_last) * cb.kv(M - 1));
    c.q_rows = m_lo < M ? heads * (rows - m_lo * T_M) : 0;
    c.q_rows_touched = c.q_rows;
    // FA3's causal scheduler runs the longest tiles first (M-block reversed, heads fastest), so
    // wave w starts with the CTA at position w·n_conc and that CTA reads the longest K/V prefix
    // of the wave; the wave fetches that prefix once.
    const i64 total = heads * M;
    for (i64 k = 0; k < total; k += g.n_conc) c.kv_rows_real += cb.kv(M - 1 - k / heads);
    return c;
  }

  // Causal split-KV: enumerate M-blocks. Split i of M-block m reads blocks
  // [i·c_m, min((i+1)·c_m, n_max)) with c_m = ⌈n_max / s⌉ (fa3-kernel.md §4.1).
  auto range = [&](i64 m, i64 i) -> std::pair<i64, i64> {  // K rows [lo, hi) of split i
    const i64 n_max = cb.n_max(m);
    const i64 cm = cdiv(n_max, s);
    const i64 lo = i * cm, hi = std::min(lo + cm, n_max);
    if (hi <= lo) return {0, 0};
    return {lo * T_N, std::min(hi * T_N, S)};
  };
  for (i64 m = 0; m < M; ++m) {
    const i64 r = std::min(T_M, rows - m * T_M);
    bool any = false;
    for (i64 i = 0; i < s; ++i) {
      auto [lo, hi] = range(m, i);
      if (hi <= lo) continue;
      any = true;
      c.kv_rows += heads * (hi - lo);
      c.q_rows += heads * r;
      c.score_elems += heads * r * (hi - lo);
    }
    if (any) c.q_rows_touched += heads * r;
  }
  // The split scheduler launches (M-block fastest, then split, then head). Per split, the group's
  // CTAs run in waves of n_conc; a wave fetches the union of its CTAs' K/V ranges once. Ranges
  // grow with m in both ends, so a sweep in ascending m computes the union.
  for (i64 i = 0; i < s; ++i) {
    const i64 total = heads * M;
    for (i64 k0 = 0; k0 < total; k0 += g.n_conc) {
      const i64 len = std::min(g.n_conc, total - k0);
      i64 prev_hi = 0, sum = 0;
      auto sweep = [&](i64 m_begin, i64 m_end) {
        for (i64 m = m_begin; m < m_end; ++m) {
          auto [lo, hi] = range(m, i);
          if (hi <= lo) continue;
          sum += std::max<i64>(0, hi - std::max(lo, prev_hi));
          prev_hi = std::max(prev_hi, hi);
        }
      };
      const i64 ms = k0 % M;
      if (len >= M) {
        sweep(0, M);
      } else if (ms + len <= M) {
        sweep(ms, ms + len);
      } else {
        sweep(0, ms + len - M);
        sweep(ms, M);
      }
      c.kv_rows_real += sum;
    }
  }
  return c;
}

}  // namespace simfa::model
