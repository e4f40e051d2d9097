// The results database of `simfa sweep` (SQLite): one row per study point in table `points`, one
// row per study in table `studies`. The column list below is the one definition: the writer
// (study/db.cpp), `simfa sweep --csv`, `simfa report` and docs/studies.md all read it. A column
// that a point does not have (analytic figures of a simulate-only point, simulated figures of a
// point that failed) is NULL. pandas: pd.read_sql("select * from points", sqlite3.connect(db)).
//
// Besides these fixed columns, every configuration key a study varies or sets (its [set], [[zip]]
// and variant keys) gets a TEXT column of its own, named as the key ("l2.size", "fa3.stages"),
// holding the value as the study wrote it; it is added (ALTER TABLE) when a study first uses it.
#pragma once
#include <string_view>

namespace simfa::study {

enum class ColumnType { Integer, Real, Text };

struct Column {
  std::string_view name;
  ColumnType type;
  std::string_view doc;
};

// Table `points` starts with this column: INTEGER PRIMARY KEY, the order rows were stored in (not
// part of a result: two sweeps of one study store the same rows in different orders).
inline constexpr std::string_view kRowIdColumn = "id";

// Columns of table `points` after the row id, in order.
inline constexpr Column kPointColumns[] = {
    // Identity and inputs.
    {"study", ColumnType::Text, "the study's name"},
    {"point_key", ColumnType::Text,
     "the point's inputs as canonical JSON (with the study name): unique; resuming skips points "
     "whose key is present"},
    {"point_index", ColumnType::Integer, "position of the point in the study's expansion order"},
    {"gpu", ColumnType::Text, "the GPU as the study names it: a preset or a TOML file"},
    {"gpu_name", ColumnType::Text, "the configuration's gpu.name"},
    {"variant", ColumnType::Text, "the kernel variant's name ('' when the study has none)"},
    {"actions", ColumnType::Text, "what ran: simulate, analyze or simulate+analyze"},
    {"workload", ColumnType::Text, "fa3 or gemm"},
    {"model", ColumnType::Text, "model preset of an attention shape, or ''"},
    {"batch", ColumnType::Integer, "B"},
    {"seqlen_q", ColumnType::Integer, "L, query sequence length"},
    {"seqlen_kv", ColumnType::Integer, "S, key/value sequence length"},
    {"heads_kv", ColumnType::Integer, "H_KV"},
    {"group", ColumnType::Integer, "G, query heads per KV head"},
    {"head_dim", ColumnType::Integer, "D"},
    {"dtype", ColumnType::Text, "fp16, bf16 or fp8_e4m3"},
    {"causal", ColumnType::Integer, "1 when causal"},
    {"m", ColumnType::Integer, "GEMM M"},
    {"n", ColumnType::Integer, "GEMM N"},
    {"k", ColumnType::Integer, "GEMM K"},
    {"overrides", ColumnType::Text, "every configuration override of the point (JSON object key -> value text)"},
    // Outcome.
    {"status", ColumnType::Text, "ok, bad_input, deadlock or error"},
    {"message", ColumnType::Text,
     "the error message; for an ok point its warnings, one per line, each starting with 'simulate: ' or "
     "'analyze: ' (an out-of-scope shape, assumed GPU values), or ''"},
    // Simulated figures (simulate).
    {"clock_mhz", ColumnType::Real, "SM clock the run simulated at"},
    {"cycles", ColumnType::Integer, "simulated cycles"},
    {"latency_us", ColumnType::Real, "simulated kernel latency"},
    {"tflops", ColumnType::Real, "nominal FLOPs / simulated latency, in TFLOPS"},
    {"peak_fraction", ColumnType::Real, "tflops / the tensor peak at the run's clock"},
    {"l2_bytes", ColumnType::Real, "simulated L2 bytes (reads and writes the SMs request)"},
    {"dram_read_bytes", ColumnType::Real, "simulated DRAM bytes read"},
    {"dram_write_bytes", ColumnType::Real, "simulated DRAM bytes written"},
    {"dram_bytes", ColumnType::Real, "dram_read_bytes + dram_write_bytes"},
    {"tensor_util", ColumnType::Real, "tensor pipe utilization (fraction of SM cycles)"},
    {"mufu_util", ColumnType::Real, "MUFU pipe utilization (FA3)"},
    {"fp32_util", ColumnType::Real, "FP32 pipe utilization (FA3)"},
    {"sampled", ColumnType::Integer, "1 when the run was sampled (docs/sampling.md)"},
    // Analytic figures (analyze; docs/analytic-model.md).
    {"model_flops", ColumnType::Real, "analytic FLOPs"},
    {"model_latency_us", ColumnType::Real, "analytic latency estimate"},
    {"model_bound", ColumnType::Text, "compute, l2 or dram"},
    {"model_regime", ColumnType::Text, "ideal or realistic (Eq. 4)"},
    {"model_l2_bytes", ColumnType::Real, "analytic L2 bytes"},
    {"model_dram_bytes", ColumnType::Real, "analytic DRAM bytes (the regime's)"},
    {"model_dram_ideal_bytes", ColumnType::Real, "analytic DRAM bytes, ideal regime"},
    {"model_dram_real_bytes", ColumnType::Real, "analytic DRAM bytes, realistic regime"},
    {"genz_dram_bytes", ColumnType::Real, "GenZ / LLM-Viewer's DRAM bytes for the same shape"},
    // Provenance.
    {"wall_s", ColumnType::Real, "seconds the point took"},
    {"simfa_version", ColumnType::Text, "simfa's version"},
    {"simfa_commit", ColumnType::Text, "the git commit simfa was built from"},
    {"finished_at", ColumnType::Text, "UTC time the point finished (ISO 8601)"},
    {"json", ColumnType::Text,
     "the whole result: {\"simulate\": simfa run --json's document, \"analyze\": simfa analyze "
     "--json's point}"},
};

// Columns of table `studies`: one row per study name (the last run's file wins).
inline constexpr Column kStudyColumns[] = {
    {"name", ColumnType::Text, "the study's name (primary key)"},
    {"file", ColumnType::Text, "path of the study file"},
    {"text", ColumnType::Text, "the study file's contents"},
    {"points", ColumnType::Integer, "points the study expands to"},
    {"started_at", ColumnType::Text, "UTC time the last sweep of it started"},
    {"simfa_version", ColumnType::Text, "simfa's version"},
};

}  // namespace simfa::study
