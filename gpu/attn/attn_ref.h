// CPU reference for the attention forward pass (BSHD layout, non-causal, GQA by head / (h/h_kv)).
// Inputs are the FP16 values converted to float; accumulation is in double.
#pragma once

#include <cstddef>
#include <vector>

namespace simfa_attn {

// o: [b, sq, h, d]; lse: [b, h, sq] (natural log of the softmax denominator of scaled scores).
void attention_reference(const std::vector<float>& q, const std::vector<float>& k,
                         const std::vector<float>& v, int b, int h, int h_kv, int sq, int sk, int d,
                         float scale, std::vector<float>& o, std::vector<float>& lse);

struct ErrorStats {
  double max_abs = 0, rel_l2 = 0, max_ref = 0;
};
ErrorStats compare(const std::vector<float>& got, const std::vector<float>& ref);

}  // namespace simfa_attn
