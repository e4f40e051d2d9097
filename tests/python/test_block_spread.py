"""scripts/block-spread on a block log that `simfa run --block-log` wrote (docs/sampling.md, "The
block log"), and its errors."""
import os
import subprocess
import sys

import pytest

BIN = os.environ.get("SIMFA_BIN", "")
SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "block-spread")


def spread(*args):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    if not BIN or not os.path.exists(BIN):
        pytest.skip("SIMFA_BIN not set")
    path = tmp_path_factory.mktemp("blocks") / "full.csv"
    p = subprocess.run([BIN, "run", "--model", "llama3-8b", "--seqlen", "2048", "--set", "gpu.num_sms=8",
                        "--block-log", str(path)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return path


def test_a_row_per_tile_every_cta_started(log):
    rows = [line.split(",") for line in log.read_text().splitlines()[1:]]
    ctas = {r[0] for r in rows}
    tiles = sorted({int(r[1]) for r in rows if r[2] == "0" and sum(x[1] == r[1] and x[2] == "0" for x in rows) == len(ctas)})
    p = spread(log, log, "--tiles", ",".join(map(str, tiles[:2])))
    assert p.returncode == 0, p.stderr
    table = [line for line in p.stdout.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [int(line.split("|")[1]) for line in table] == tiles
    first = table[0].split("|")
    assert first[2].strip() == "0"  # every CTA starts its first tile at the same cycle
    assert first[4].strip() == "0" and first[5].strip() == "1.00"  # so do the SM pairs
    assert "correlation" in p.stdout
    # The other log is the same run: its columns repeat the first's.
    for line in table:
        c = [x.strip() for x in line.split("|")[1:-1]]
        assert c[1] == c[5] and c[3] == c[6] and c[4] == c[7]


def test_bad_logs_name_the_file_and_line(tmp_path, log):
    bad = tmp_path / "bad.csv"
    bad.write_text("cta,tile,block,cycle\n")
    p = spread(bad)
    assert p.returncode != 0 and f"{bad}:1: expected the header" in p.stderr
    bad.write_text("cta,tile,block,cycle,phase\n0,0,x,5,full\n")
    p = spread(bad)
    assert p.returncode != 0 and f"{bad}:2: cta, tile, block and cycle must be integers" in p.stderr
    p = spread(tmp_path / "none.csv")
    assert p.returncode != 0 and "No such file" in p.stderr
    p = spread(log, "--tiles", "a,b")
    assert p.returncode != 0 and "--tiles a,b: expected tile indices" in p.stderr
