// Eqs. 1-12 of the paper's §3, written exactly as printed (non-causal, one precision P, no
// PackGQA, no split). The extended model (analysis.h) reduces to these for such shapes; the
// tests hold the two together. All counts are exact integers as long as AttentionShape::validate
// accepted the shape (every quantity is below 2^62).
#pragma once
#include <algorithm>
#include <cstdint>

namespace simfa::model::paper {

// Table 1 notation.
struct Inputs {
  std::int64_t B = 1;        // batch
  std::int64_t L = 0;        // query sequence length
  std::int64_t S = 0;        // KV sequence length
  std::int64_t H_KV = 0;     // KV heads
  std::int64_t G = 1;        // query heads per KV head
  std::int64_t D = 0;        // head dimension
  std::int64_t T_M = 0;      // tile size along M (query)
  std::int64_t P = 2;        // bytes per element
  std::int64_t N_SM = 0;     // SMs
  std::int64_t O_limit = 1;  // CTAs per SM
};

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Eq. 1: F_total = 4·B·(H_KV·G)·L·S·D.
constexpr std::int64_t eq1_flops(const Inputs& x) {
  return 4 * x.B * (x.H_KV * x.G) * x.L * x.S * x.D;
}
// Eq. 2: M_L2 = P·B·(H_KV·G)·D·(2L + ⌈L/T_M⌉·2S) bytes.
constexpr std::int64_t eq2_l2_bytes(const Inputs& x) {
  return x.P * x.B * (x.H_KV * x.G) * x.D * (2 * x.L + ceil_div(x.L, x.T_M) * 2 * x.S);
}
// Eq. 3: M_DRAM^ideal = P·B·D·(2·(H_KV·G)·L + 2·H_KV·S).
constexpr std::int64_t eq3_dram_ideal(const Inputs& x) {
  return x.P * x.B * x.D * (2 * (x.H_KV * x.G) * x.L + 2 * x.H_KV * x.S);
}
// Eq. 4: the ideal-cache condition Size_L2 > 2·P·S·D.
constexpr bool eq4_ideal_holds(const Inputs& x, double l2_bytes) {
  return l2_bytes > double(2 * x.P * x.S * x.D);
}
// Eq. 5: W_grp = max(1, ⌈G·⌈L/T_M⌉ / (N_SM·O_limit)⌉).
constexpr std::int64_t eq5_waves(const Inputs& x) {
  return std::max<std::int64_t>(1, ceil_div(x.G * ceil_div(x.L, x.T_M), x.N_SM * x.O_limit));
}
// Eq. 6: M_DRAM^real = 2·P·B·(H_KV·G)·L·D + (2·P·B·H_KV·S·D)·W_grp.
constexpr std::int64_t eq6_dram_real(const Inputs& x) {
  return 2 * x.P * x.B * (x.H_KV * x.G) * x.L * x.D + 2 * x.P * x.B * x.H_KV * x.S * x.D * eq5_waves(x);
}
// Eq. 7: R_traffic = M_L2 / M_DRAM^real.
constexpr double eq7_r_traffic(const Inputs& x) {
  return double(eq2_l2_bytes(x)) / double(eq6_dram_real(x));
}
// Eq. 8: M_L2 ≈ 2·P·B·(H_KV·G)·D·(L/T_M)·S.
constexpr double eq8_l2_asym(const Inputs& x) {
  return 2.0 * double(x.P * x.B * x.H_KV * x.G * x.D) * (double(x.L) / double(x.T_M)) * double(x.S);
}
// Eq. 9: M_DRAM^real ≈ (2·P·B·H_KV·S·D)·(G·L / (N_SM·T_M·O_limit)).
constexpr double eq9_dram_real_asym(const Inputs& x) {
  return double(2 * x.P * x.B * x.H_KV * x.S * x.D) *
         (double(x.G * x.L) / double(x.N_SM * x.T_M * x.O_limit));
}
// Eq. 10: R_traffic ≈ N_SM·O_limit.
constexpr double eq10_r_asym(const Inputs& x) { return double(x.N_SM * x.O_limit); }
// Eq. 11: I = F_total / M_L2 (FLOP per byte of L2 traffic).
constexpr double eq11_intensity(const Inputs& x) {
  return double(eq1_flops(x)) / double(eq2_l2_bytes(x));
}
// Eq. 12: I ≈ 2·T_M / P.
constexpr double eq12_intensity_asym(const Inputs& x) { return 2.0 * double(x.T_M) / double(x.P); }

}  // namespace simfa::model::paper
