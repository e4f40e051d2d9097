// A small results database like the one `simfa sweep --db` writes (tables from src/study/schema.h's
// column lists plus configuration-key columns), for the tests of `simfa report`:
//  - study "gpus": h100 and h800 x seqlen 1K..32K (L = S), simulate+analyze, fa3.stages = 2 on
//    every point; the h800 32K point deadlocked, with a message full of HTML's special characters;
//  - study "analytic": analyze only, h800, fa3.stages 2 and 3 x seqlen 4K..64K (the realistic
//    regime from 48K on).
// The figures are made up (smooth in the sequence length), not simulated.
#pragma once
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <sqlite3.h>

#include "study/schema.h"

namespace simfa::test {

using DbValue = std::variant<std::nullptr_t, long long, double, std::string>;
using DbRow = std::map<std::string, DbValue>;

inline void sql_exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : "?";
    sqlite3_free(err);
    throw std::runtime_error(sql + ": " + msg);
  }
}

inline std::string sql_type(study::ColumnType t) {
  return t == study::ColumnType::Integer ? "INTEGER" : t == study::ColumnType::Real ? "REAL" : "TEXT";
}

// Creates tables `points` (schema.h's columns, then `config_columns` as TEXT) and `studies`.
inline void create_results_tables(sqlite3* db, const std::vector<std::string>& config_columns) {
  // As simfa sweep makes it (study/db.cpp): the row id first.
  std::string sql = "CREATE TABLE points (\"" + std::string(study::kRowIdColumn) + "\" INTEGER PRIMARY KEY";
  for (const auto& c : study::kPointColumns) sql += ", \"" + std::string(c.name) + "\" " + sql_type(c.type);
  for (const auto& c : config_columns) sql += ", \"" + c + "\" TEXT";
  sql_exec(db, sql + ")");
  sql = "CREATE TABLE studies (";
  bool first = true;
  for (const auto& c : study::kStudyColumns) {
    sql += (first ? "\"" : ", \"") + std::string(c.name) + "\" " + sql_type(c.type);
    first = false;
  }
  sql_exec(db, sql + ")");
}

inline void insert_row(sqlite3* db, const std::string& table, const DbRow& row) {
  std::string cols, marks;
  for (const auto& [k, v] : row) {
    cols += (cols.empty() ? "\"" : ", \"") + k + "\"";
    marks += marks.empty() ? "?" : ", ?";
  }
  sqlite3_stmt* st = nullptr;
  const std::string sql = "INSERT INTO " + table + " (" + cols + ") VALUES (" + marks + ")";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
    throw std::runtime_error(sql + ": " + sqlite3_errmsg(db));
  int i = 1;
  for (const auto& [k, v] : row) {
    if (std::holds_alternative<long long>(v)) sqlite3_bind_int64(st, i, std::get<long long>(v));
    else if (std::holds_alternative<double>(v)) sqlite3_bind_double(st, i, std::get<double>(v));
    else if (std::holds_alternative<std::string>(v))
      sqlite3_bind_text(st, i, std::get<std::string>(v).c_str(), -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, i);
    ++i;
  }
  const int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) throw std::runtime_error(sql + ": " + sqlite3_errmsg(db));
}

// The message of the failed point: every character HTML escapes, and two lines.
inline const char* kSampleFailure =
    "deadlock: stage <0> & \"ring\" of CTA 7 never released\nSM 3 WarpGroup 1 (consumer) waits at 'MB_WAIT 0'";

inline DbRow sample_point(const std::string& study, long long index, const std::string& gpu, long long seqlen,
                          bool simulate, bool analyze) {
  const double s = double(seqlen), speed = gpu == "h100" ? 1.0 : 0.8;
  const double flops = 4.0 * 128 * 128 * s * s;  // 4·H·D·L·S, H = 128 heads
  DbRow r;
  r["study"] = study;
  r["point_key"] = "{\"study\":\"" + study + "\",\"i\":" + std::to_string(index) + "}";
  r["point_index"] = index;
  r["gpu"] = gpu;
  r["gpu_name"] = gpu == "h100" ? std::string("H100 SXM5") : std::string("H800 SXM5");
  r["variant"] = std::string();
  r["actions"] = std::string(simulate && analyze ? "simulate+analyze" : simulate ? "simulate" : "analyze");
  r["workload"] = std::string("fa3");
  r["model"] = std::string("llama3-405b");
  r["batch"] = 1LL;
  r["seqlen_q"] = seqlen;
  r["seqlen_kv"] = seqlen;
  r["heads_kv"] = 8LL;
  r["group"] = 16LL;
  r["head_dim"] = 128LL;
  r["dtype"] = std::string("bf16");
  r["causal"] = 0LL;
  r["overrides"] = std::string("{}");
  r["status"] = std::string("ok");
  r["message"] = std::string();
  if (simulate) {
    const double latency = flops / (520e12 * speed) * 1e6 + 12;
    r["clock_mhz"] = 1755.0;
    r["cycles"] = static_cast<long long>(latency * 1755);
    r["latency_us"] = latency;
    r["tflops"] = flops / latency / 1e6;
    r["peak_fraction"] = flops / latency / 1e6 / 989;
    r["l2_bytes"] = 2.0 * 128 * 128 * s * (1 + s / 256);
    r["dram_read_bytes"] = 2.0 * 128 * 136 * s * (s > 40000 ? 3.0 : 1.0);
    r["dram_write_bytes"] = 2.0 * 128 * 128 * s;
    r["dram_bytes"] = 2.0 * 128 * 136 * s * (s > 40000 ? 3.0 : 1.0) + 2.0 * 128 * 128 * s;
    r["tensor_util"] = 0.55 + 0.25 * (1 - 1024 / s);
    r["mufu_util"] = 0.18 + 0.04 * (1 - 1024 / s);
    r["fp32_util"] = 0.31 + 0.05 * (1 - 1024 / s);
    r["sampled"] = 0LL;
  }
  if (analyze) {
    const double latency = flops / (600e12 * speed) * 1e6 + 8;
    r["model_flops"] = flops;
    r["model_latency_us"] = latency;
    r["model_bound"] = std::string("compute");
    const bool realistic = s >= 48 * 1024;
    r["model_regime"] = std::string(realistic ? "realistic" : "ideal");
    r["model_l2_bytes"] = 2.0 * 128 * 128 * s * (1 + s / 250);
    const double ideal = 2.0 * 128 * 256 * s, real = 2.0 * 128 * 256 * s * (1 + s / 8192);
    r["model_dram_ideal_bytes"] = ideal;
    r["model_dram_real_bytes"] = real;
    r["model_dram_bytes"] = realistic ? real : ideal;
    r["genz_dram_bytes"] = ideal;
  }
  r["wall_s"] = 1.5;
  r["simfa_version"] = std::string("0.1.0");
  r["simfa_commit"] = std::string("d5ce229");
  r["finished_at"] = std::string("2025-01-01T00:00:00Z");
  r["json"] = std::string("{}");
  return r;
}

// Writes the sample database to `path` (which must not exist).
inline void make_sample_results_db(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) throw std::runtime_error(path + ": cannot create");
  try {
    create_results_tables(db, {"fa3.stages"});
    sql_exec(db, "BEGIN");
    long long i = 0;
    for (const char* gpu : {"h100", "h800"})
      for (long long s : {1024, 2048, 4096, 8192, 16384, 32768}) {
        DbRow r = sample_point("gpus", i++, gpu, s, true, true);
        r["fa3.stages"] = std::string("2");
        r["overrides"] = std::string("{\"fa3.stages\":\"2\"}");
        if (std::string(gpu) == "h800" && s == 32768) {
          for (const char* c : {"clock_mhz", "cycles", "latency_us", "tflops", "peak_fraction", "l2_bytes",
                                "dram_read_bytes", "dram_write_bytes", "dram_bytes", "tensor_util", "mufu_util",
                                "fp32_util", "sampled", "model_flops", "model_latency_us", "model_bound",
                                "model_regime", "model_l2_bytes", "model_dram_bytes", "model_dram_ideal_bytes",
                                "model_dram_real_bytes", "genz_dram_bytes"})
            r[c] = nullptr;
          r["status"] = std::string("deadlock");
          r["message"] = std::string(kSampleFailure);
        }
        insert_row(db, "points", r);
      }
    i = 0;
    for (const char* stages : {"2", "3"})
      for (long long s : {4096, 16384, 32768, 49152, 65536}) {
        DbRow r = sample_point("analytic", i++, "h800", s, false, true);
        r["fa3.stages"] = std::string(stages);
        if (std::string(stages) == "3") {
          r["model_latency_us"] = std::get<double>(r["model_latency_us"]) * 0.93;
          r["model_dram_real_bytes"] = std::get<double>(r["model_dram_real_bytes"]) * 1.2;
          if (std::get<std::string>(r["model_regime"]) == "realistic")
            r["model_dram_bytes"] = std::get<double>(r["model_dram_real_bytes"]);
        }
        insert_row(db, "points", r);
      }
    insert_row(db, "studies", {{"name", std::string("gpus")}, {"file", std::string("studies/gpus.toml")},
                               {"text", std::string("name = \"gpus\"\ngpus = [\"h100\", \"h800\"]\n")},
                               {"points", 12LL}, {"started_at", std::string("2025-01-01T00:00:00Z")},
                               {"simfa_version", std::string("0.1.0")}});
    insert_row(db, "studies", {{"name", std::string("analytic")}, {"file", std::string("studies/analytic.toml")},
                               {"text", std::string("name = \"analytic\"\nactions = [\"analyze\"]\n")},
                               {"points", 10LL}, {"started_at", std::string("2025-01-02T00:00:00Z")},
                               {"simfa_version", std::string("0.1.0")}});
    sql_exec(db, "COMMIT");
  } catch (...) {
    sqlite3_close(db);
    throw;
  }
  sqlite3_close(db);
}

}  // namespace simfa::test
