"""scripts/sampling-accuracy (docs/sampling.md, "Accuracy and speed"): a short shape through the
table, the mean row, the holdout set's numbering, and its errors."""
import os
import subprocess
import sys

import pytest

BIN = os.environ.get("SIMFA_BIN", "")
SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "sampling-accuracy")


def accuracy(*args):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)], capture_output=True, text=True, timeout=240)


def test_bad_arguments_are_named():
    p = accuracy("--only", "99")
    assert p.returncode != 0 and "--only: shape 99 is not in 1..16" in p.stderr
    p = accuracy("--holdout", "--only", "11")
    assert p.returncode != 0 and "--only: shape 11 is not in 1..10" in p.stderr
    p = accuracy("--gqa-causal", "--only", "6")
    assert p.returncode != 0 and "--only: shape 6 is not in 1..5" in p.stderr
    p = accuracy("--holdout", "--gqa-causal")
    assert p.returncode != 0 and "not allowed with argument --holdout" in p.stderr
    p = accuracy("--only", "a,b")
    assert p.returncode != 0 and "--only 'a,b': expected comma-separated shape numbers" in p.stderr
    p = accuracy("--sample-set", "sample.checks")
    assert p.returncode != 0 and "--sample-set 'sample.checks': expected KEY=VALUE" in p.stderr
    p = accuracy("-j", "0")
    assert p.returncode != 0 and "-j 0: expected 1 or more" in p.stderr


def test_a_short_shape_and_the_mean_row(tmp_path):
    if not BIN or not os.path.exists(BIN):
        pytest.skip("SIMFA_BIN not set")
    # Shape 9 (h100 D128 512 MHA) is too short to sample: both runs are full detail, so every
    # error is zero; the cache then holds its full-detail result for the second call.
    out, cache = tmp_path / "table.md", tmp_path / "full"
    p = accuracy("--simfa", BIN, "--only", "9", "--full-cache", cache, "--out", out,
                 "--sample-set", "sample.checks=1")
    assert p.returncode == 0, p.stderr
    rows = [line for line in out.read_text().splitlines() if line.startswith("| 9 |")]
    assert len(rows) == 1 and "+0.00%" in rows[0] and "100.0%" in rows[0]
    mean = [line for line in out.read_text().splitlines() if "mean \\|error\\|" in line]
    assert len(mean) == 1 and "0.00%" in mean[0]
    assert len(os.listdir(cache)) == 1
    p = accuracy("--simfa", BIN, "--only", "9", "--full-cache", cache)
    assert p.returncode == 0, p.stderr
    assert "| 9 |" in p.stdout and "- / " in p.stdout  # the full-detail result came from the cache
