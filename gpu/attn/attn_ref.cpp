// CPU reference attention: two passes per query row (max, then exp-sum and weighted V sum).
#include "attn_ref.h"

#include <algorithm>
#include <cmath>

namespace simfa_attn {

void attention_reference(const std::vector<float>& q, const std::vector<float>& k,
                         const std::vector<float>& v, int b, int h, int h_kv, int sq, int sk, int d,
                         float scale, std::vector<float>& o, std::vector<float>& lse) {
  o.assign(size_t(b) * sq * h * d, 0.f);
  lse.assign(size_t(b) * h * sq, 0.f);
  const int group = h / h_kv;
  std::vector<double> s(sk), acc(d);
  for (int bi = 0; bi < b; ++bi)
    for (int hi = 0; hi < h; ++hi) {
      const int kh = hi / group;
      for (int r = 0; r < sq; ++r) {
        const float* qr = &q[((size_t(bi) * sq + r) * h + hi) * d];
        double mx = -1e300;
        for (int c = 0; c < sk; ++c) {
          const float* kr = &k[((size_t(bi) * sk + c) * h_kv + kh) * d];
          double dot = 0;
          for (int x = 0; x < d; ++x) dot += double(qr[x]) * kr[x];
          s[c] = dot * scale;
          mx = std::max(mx, s[c]);
        }
        double sum = 0;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int c = 0; c < sk; ++c) {
          const double p = std::exp(s[c] - mx);
          sum += p;
          const float* vr = &v[((size_t(bi) * sk + c) * h_kv + kh) * d];
          for (int x = 0; x < d; ++x) acc[x] += p * vr[x];
        }
        float* orow = &o[((size_t(bi) * sq + r) * h + hi) * d];
        for (int x = 0; x < d; ++x) orow[x] = static_cast<float>(acc[x] / sum);
        lse[(size_t(bi) * h + hi) * sq + r] = static_cast<float>(mx + std::log(sum));
      }
    }
}

ErrorStats compare(const std::vector<float>& got, const std::vector<float>& ref) {
  ErrorStats e;
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double diff = double(got[i]) - ref[i];
    e.max_abs = std::max(e.max_abs, std::fabs(diff));
    e.max_ref = std::max(e.max_ref, std::fabs(double(ref[i])));
    num += diff * diff;
    den += double(ref[i]) * ref[i];
  }
  e.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  if (!std::isfinite(e.max_abs) || !std::isfinite(e.rel_l2)) e.rel_l2 = e.max_abs = 1e30;
  return e;
}

}  // namespace simfa_attn
