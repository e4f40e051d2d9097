// Exact counting of the tiles FlashAttention processes for one KV group (one batch entry, one KV
// head): Q/O rows, K/V rows loaded per CTA, score elements, and K/V rows fetched from DRAM under
// the wave model. Closed forms (floor sums) for the common cases, an enumeration for causal
// split-KV. tests/model checks every case against a brute-force enumeration of CTAs and elements.
#pragma once
#include <cstdint>

namespace simfa::model {

// How the CTAs of one KV group tile the work.
struct GroupGeometry {
  std::int64_t seqlen_q = 0;   // L
  std::int64_t seqlen_kv = 0;  // S
  std::int64_t group = 1;      // G
  bool pack_gqa = false;       // one packed head of G·L rows instead of G heads of L rows
  bool causal = false;
  std::int64_t tile_m = 0;     // T_M
  std::int64_t tile_n = 0;     // T_N
  std::int64_t splits = 1;     // split-KV pieces per (m-block, head)
  std::int64_t n_conc = 1;     // CTAs resident at once: N_SM · O_limit
};

// Counts for one KV group. A "row" is one head_dim-long vector (one Q, K, V or O row).
struct GroupCounts {
  std::int64_t m_blocks = 0;        // M-blocks per head unit
  std::int64_t n_blocks = 0;        // ⌈S/T_N⌉
  std::int64_t ctas = 0;            // all CTAs of the group (every split, every head)
  std::int64_t sharers = 0;         // CTAs reading the same K/V range (one split)
  std::int64_t q_rows = 0;          // Q rows loaded, summed over CTAs that process a block
  std::int64_t q_rows_touched = 0;  // distinct Q rows loaded
  std::int64_t o_rows = 0;          // output rows (G·L); each split writes its own partial
  std::int64_t kv_rows = 0;         // K rows loaded summed over CTAs (V is the same)
  std::int64_t kv_rows_touched = 0; // distinct K rows loaded
  std::int64_t kv_rows_real = 0;    // K rows fetched from DRAM, summed over waves
  std::int64_t score_elems = 0;     // Σ over processed tiles of valid rows × valid KV columns
  std::int64_t useful_elems = 0;    // (query, key) pairs the mask keeps
  std::int64_t waves = 1;           // W_grp (Eq. 5): max(1, ⌈sharers / n_conc⌉)
};

GroupCounts count_group(const GroupGeometry& g);

// Σ_{i=0}^{n-1} ⌊(a·i + b) / m⌋ for n ≥ 0, m ≥ 1, a ≥ 0, b ≥ 0, in O(log m).
std::int64_t floor_sum(std::int64_t n, std::int64_t m, std::int64_t a, std::int64_t b);

}  // namespace simfa::model
