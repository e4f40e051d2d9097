"""simfa.run and simfa.run_trace: the cycle-level simulator from Python, checked against the
command line's JSON for the same workload, and its errors."""
import json
import os
import subprocess

import pytest

import simfa

TINY = dict(model="llama3-8b", seqlen=256, set={"gpu.num_sms": 8})
BIN = os.environ.get("SIMFA_BIN", "")


def test_run_returns_the_documents_fields():
    r = simfa.run(**TINY)
    for key in ("latency_us", "cycles", "tflops", "peak_fraction", "l2_bytes", "dram_read_bytes",
                "dram_write_bytes", "sim_wall_s", "sim_cycles_per_s", "config", "stats", "workload",
                "analytic"):
        assert key in r, key
    assert r.cycles > 0 and r.latency_us > 0
    assert r.workload["seqlen_q"] == 256 and r.workload["heads_kv"] == 8 and r.workload["group"] == 4
    assert r.config["gpu.num_sms"] == 8
    # Non-causal with a cluster of two: the simulated L2 bytes are the model's multicast figure.
    assert r.l2_bytes == r.analytic["l2_bytes_coalesced"]
    assert 0 < r.stats["gpu.tensor.utilization"] <= 1


def test_run_matches_the_command_line(tmp_path):
    if not BIN or not os.path.exists(BIN):
        pytest.skip("SIMFA_BIN not set")
    out = tmp_path / "run.json"
    p = subprocess.run([BIN, "run", "--model", "llama3-8b", "--seqlen", "256", "--causal",
                        "--set", "gpu.num_sms=8", "--json", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    cli = json.loads(out.read_text())
    py = simfa.run(**TINY, causal=True)
    for doc in (cli, py):
        doc.pop("sim_wall_s")
        doc.pop("sim_cycles_per_s")
    assert py == cli


def test_causal_and_ablation_keywords_change_the_run():
    base = simfa.run(**TINY)
    causal = simfa.run(**TINY, causal=True)
    assert causal.cycles < base.cycles
    # Causal runs have no cluster: the L2 request coalescer merges the SM pairs' K/V reads, and
    # without it the L2 sees every request (exactly the analytic model's Eq. 2).
    no_lrc = simfa.run(**TINY, causal=True, ablate=["no-lrc"])
    assert no_lrc.config["mem.lrc.enabled"] is False
    assert no_lrc.l2_bytes > causal.l2_bytes
    assert no_lrc.l2_bytes == no_lrc.analytic["l2_bytes"]


def test_run_trace_gives_the_same_cycles_as_the_synthesized_run(tmp_path):
    if not BIN or not os.path.exists(BIN):
        pytest.skip("SIMFA_BIN not set")
    d = tmp_path / "trace"
    p = subprocess.run([BIN, "trace", "gen", "--model", "llama3-8b", "--seqlen", "256", "--set",
                        "gpu.num_sms=8", "-o", str(d)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert simfa.run_trace(str(d), set={"gpu.num_sms": 8}).cycles == simfa.run(**TINY).cycles


@pytest.mark.parametrize("kwargs, message", [
    (dict(seqlen=0), "seqlen (--seqlen) must be at least 1"),
    (dict(heads_kv="x"), "heads_kv (--heads-kv): expected a number"),
    (dict(gpu="nope"), "'nope' is neither a built-in preset"),
    (dict(set={"no.such": 1}), "unknown configuration key 'no.such'"),
    (dict(ablate="bar"), "unknown ablation 'bar'"),
    (dict(clock_mhz=0), "clock_mhz (--clock-mhz) must be at least 1"),
    (dict(causal="yes"), "causal (--causal): expected a bool"),
    (dict(model="llama9"), "unknown model 'llama9'"),
])
def test_bad_keywords_raise_value_error_with_the_cli_message(kwargs, message):
    args = dict(TINY)
    args.update(kwargs)
    with pytest.raises(ValueError) as e:
        simfa.run(**args)
    assert message in str(e.value)


def test_run_trace_bad_path():
    with pytest.raises(ValueError) as e:
        simfa.run_trace("/nonexistent/trace")
    assert "/nonexistent/trace" in str(e.value)


GEMM = dict(workload="gemm", m=256, n=256, k=128, set={"gpu.num_sms": 2})


def test_gemm_run_returns_the_documents_fields_and_matches_the_command_line(tmp_path):
    r = simfa.run(**GEMM)
    assert r.workload["name"] == "gemm" and r.workload["m"] == 256 and r.workload["k"] == 128
    assert r.stats["gpu.tensor.flops"] == 2 * 256 * 256 * 128
    assert r.analytic["flops"] == 2 * 256 * 256 * 128
    assert 0 < r.peak_fraction < 1 and r.latency_us > r.analytic["latency_us"]
    assert set(r.pipe_utilization) == {"tensor"}
    assert "gemm" in simfa.workloads() and "m" in simfa.workloads()["gemm"]["keys"]
    if not BIN or not os.path.exists(BIN):
        pytest.skip("SIMFA_BIN not set")
    out = tmp_path / "gemm.json"
    p = subprocess.run([BIN, "run", "--workload", "gemm", "--m", "256", "--n", "256", "--k", "128",
                        "--set", "gpu.num_sms=2", "--json", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    cli = json.loads(out.read_text())
    for doc in (cli, r):
        doc.pop("sim_wall_s")
        doc.pop("sim_cycles_per_s")
    assert dict(r) == cli


@pytest.mark.parametrize("kwargs, message", [
    (dict(head_dim=64), "head_dim (--head-dim) does not apply to the gemm workload"),
    (dict(causal=True), "causal (--causal) does not apply to the gemm workload"),
    (dict(model="llama3-8b"), "model (--model) does not apply to the gemm workload"),
    (dict(m=0), "m (--m) must be at least 1, got 0"),
    (dict(k=None), "the gemm workload needs m (--m), n (--n) and k (--k): k (--k) is missing"),
    (dict(k=96), "--k 96: must be a multiple of the tile's K"),
    (dict(workload="gemv"), "unknown workload 'gemv' (expected one of: fa3, gemm)"),
])
def test_bad_gemm_keywords_raise_value_error(kwargs, message):
    args = dict(GEMM)
    args.update(kwargs)
    with pytest.raises(ValueError) as e:
        simfa.run(**args)
    assert message in str(e.value)


def test_block_log_lists_the_blocks_and_changes_nothing(tmp_path):
    log = tmp_path / "blocks.csv"
    plain = simfa.run(**TINY)
    logged = simfa.run(**TINY, block_log=log)
    assert logged.cycles == plain.cycles and logged.stats == plain.stats
    lines = log.read_text().splitlines()
    assert lines[0] == "cta,tile,block,cycle,phase"
    rows = [line.split(",") for line in lines[1:]]
    assert rows and all(len(r) == 5 and r[4] == "full" for r in rows)
    assert {int(r[0]) for r in rows} == set(range(logged["ctas"]))
    with pytest.raises(ValueError, match="block_log"):
        simfa.run(**TINY, block_log=42)
    with pytest.raises(ValueError, match="the gemm workload has no KV blocks"):
        simfa.run(workload="gemm", m=256, n=256, k=256, block_log=tmp_path / "gemm.csv")
    assert not (tmp_path / "gemm.csv").exists()
    with pytest.raises(ValueError, match="does not exist"):
        simfa.run(**TINY, block_log=tmp_path / "no" / "such" / "blocks.csv")
