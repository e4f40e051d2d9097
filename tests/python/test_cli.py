"""`simfa analyze` and `simfa plot` through the binary (skipped when the binary given by
SIMFA_BIN does not have the commands yet)."""
import csv
import json
import os
import subprocess

import pytest

BIN = os.environ.get("SIMFA_BIN", "")


def simfa(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(autouse=True)
def need_binary():
    if not BIN or not os.path.exists(BIN):
        pytest.skip("SIMFA_BIN not set")
    if simfa("analyze", "--help").returncode != 0:
        pytest.skip("this simfa binary has no 'analyze' command yet")


def test_analyze_sweep_writes_json_and_csv(tmp_path):
    j, c = tmp_path / "a.json", tmp_path / "a.csv"
    p = simfa("analyze", "--model", "llama3-405b", "--gpu", "h800", "--sweep",
              "seqlen=16K:64K:8K", "--json", str(j), "--csv", str(c))
    assert p.returncode == 0, p.stderr
    assert "realistic" in p.stdout and "64K" in p.stdout
    data = json.loads(j.read_text())
    assert len(data["points"]) == 7
    last = data["points"][-1]
    for key in ("flops", "l2_bytes", "dram_ideal_bytes", "dram_real_bytes", "dram_bytes", "waves",
                "regime", "r_traffic", "intensity", "latency_us", "genz_dram_bytes",
                "llmviewer_dram_bytes"):
        assert key in last
    assert last["dram_real_bytes"] == 21206401024 and last["regime"] == "realistic"
    rows = list(csv.DictReader(c.open()))
    assert len(rows) == 7 and rows[0]["regime"] == "ideal"


@pytest.mark.parametrize("args, flag", [
    (["--seqlen", "0"], "--seqlen"),
    (["--seqlen", "abc"], "--seqlen"),
    (["--seqlen", "4096", "--l2-effective-mib", "lots"], "--l2-effective-mib"),
    (["--seqlen", "4096", "--tile-m", "-1"], "--tile-m"),
    (["--seqlen", "4096", "--occupancy", "-1"], "--occupancy"),
    (["--seqlen", "1024", "--splits", "64"], "--splits"),
    (["--sweep", "seqlen=64K:16K:8K"], "--sweep"),
    (["--sweep", "colour=1,2"], "--sweep"),
    (["--model", "gpt"], "--model"),
])
def test_bad_flags_exit_2_with_one_clear_line(args, flag):
    p = simfa("analyze", *args)
    assert p.returncode == 2
    assert flag in p.stderr
    assert p.stderr.count("\n") == 1


def test_plot_traffic_writes_svg(tmp_path):
    out = tmp_path / "fig.svg"
    p = simfa("plot", "traffic", "--model", "llama3-405b", "--gpu", "h800", "-o", str(out))
    assert p.returncode == 0, p.stderr
    svg = out.read_text()
    assert svg.startswith("<svg") and "GenZ" in svg and "realistic regime" in svg
    p2 = simfa("plot", "traffic", "--model", "llama3-405b", "--gpu", "h800", "-o", str(out) + "2.svg")
    assert (tmp_path / "fig.svg2.svg").read_text() == svg  # deterministic
    assert simfa("plot", "traffic", "-o", str(tmp_path / "x.png")).returncode == 2
