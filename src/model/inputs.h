// One evaluation point as a user states it (command-line flags, Python keywords, sweep values),
// and its resolution into a shape and model options with the same checks and messages
// everywhere: "seqlen_q (--seqlen-q) must be at least 1, got 0".
#pragma once
#include <optional>
#include <string_view>

#include "model/analysis.h"

namespace simfa::model {

// Numeric inputs arrive as doubles (numpy, sweeps); integer ones must be integral.
struct PointInputs {
  std::optional<double> batch, seqlen, seqlen_q, seqlen_kv, heads_kv, group, head_dim;
  std::optional<double> tile_m, tile_n, occupancy, num_sms, splits, l2_effective_mib;
  bool causal = false;
};

// Settings that do not vary across a sweep: the model preset, the data type and the kernel
// configuration every point starts from (options_from_config: fa3.kernel, fa3.tile_m, ...), which a
// point's tile_m, tile_n, occupancy, num_sms, splits and l2_effective_mib override.
struct PointContext {
  const spec::ModelPreset* preset = nullptr;  // supplies heads_kv, group, head_dim
  spec::DType dtype = spec::DType::FP16;
  ModelOptions base;
};

// Resolves `in`: seqlen sets both lengths unless seqlen_q / seqlen_kv are given; heads_kv,
// group and head_dim come from the preset unless given (group defaults to 1); tile_m, tile_n,
// occupancy, num_sms and splits are ctx.base's when absent and at least 1 when given;
// l2_effective_mib is a positive number of MiB. Throws UserError naming the keyword and flag.
void resolve_point(const PointInputs& in, const PointContext& ctx, spec::AttentionShape& shape,
                   ModelOptions& opt);

}  // namespace simfa::model
