"""simfa sweep end to end: a sweep killed at random moments and started again stores every point
once; CSV export; bad input; an MPI sweep stores what a single process stores."""
import csv
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import time

import pytest

BIN = os.environ["SIMFA_BIN"]

# 24 small simulations (a few tenths of a second each) and their analytic figures.
STUDY = """
name = "resume"
gpus = ["h800", "h100"]
run = "both"
[shape]
model = "none"
heads_kv = [1, 2]
head_dim = 64
seqlen = "512:1536:512"
causal = [false, true]
"""

# What two runs of the same point must agree on (wall time, time stamps and the row id differ).
SAME = ("point_key, point_index, gpu, gpu_name, variant, actions, workload, model, batch, seqlen_q, seqlen_kv, "
        "heads_kv, \"group\", head_dim, dtype, causal, overrides, status, message, clock_mhz, cycles, latency_us, "
        "tflops, l2_bytes, dram_read_bytes, dram_write_bytes, tensor_util, model_latency_us, model_dram_bytes, "
        "json_remove(json, '$.simulate.sim_wall_s', '$.simulate.sim_cycles_per_s')")


def sweep(*args, **kw):
    return subprocess.run([BIN, "sweep", *args], capture_output=True, text=True, **kw)


def rows(db):
    with sqlite3.connect(db) as c:
        return c.execute(f"select {SAME} from points order by point_index").fetchall()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref")
    (d / "s.toml").write_text(STUDY)
    r = sweep(str(d / "s.toml"), "--db", str(d / "ref.sqlite"), "-j", "2")
    assert r.returncode == 0, r.stderr
    assert "study resume: 24 points" in r.stderr
    got = rows(d / "ref.sqlite")
    assert len(got) == 24
    assert all(row[17] == "ok" for row in got), [row[18] for row in got if row[17] != "ok"]
    return got


def test_killed_at_random_moments_then_resumed(tmp_path, reference):
    (tmp_path / "s.toml").write_text(STUDY)
    db = tmp_path / "r.sqlite"
    seed = int(os.environ.get("SIMFA_TEST_SEED", "1234"))
    rng = random.Random(seed)
    kills = 0
    for _ in range(6):
        p = subprocess.Popen([BIN, "sweep", str(tmp_path / "s.toml"), "--db", str(db), "-j", "2"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(rng.uniform(0.05, 1.5))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            kills += 1
        p.wait()
        with sqlite3.connect(db) as c:  # whatever was committed is whole and readable
            n, distinct = c.execute("select count(*), count(distinct point_key) from points").fetchone()
        assert n == distinct, f"seed {seed}: a point stored twice"
    r = sweep(str(tmp_path / "s.toml"), "--db", str(db), "-j", "2")
    assert r.returncode == 0, r.stderr
    assert rows(db) == reference, f"seed {seed}, {kills} kills: the resumed database differs"
    # A finished study runs nothing more.
    r = sweep(str(tmp_path / "s.toml"), "--db", str(db))
    assert "24 points already in" in r.stderr and "0 to run" in r.stderr


def test_interrupt_stores_finished_points(tmp_path, reference):
    (tmp_path / "s.toml").write_text(STUDY)
    db = tmp_path / "i.sqlite"
    p = subprocess.Popen([BIN, "sweep", str(tmp_path / "s.toml"), "--db", str(db), "-j", "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(0.8)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate()
    if p.returncode == 130:
        assert "again runs only the rest" in err
    else:  # it finished first
        assert p.returncode == 0, err
    r = sweep(str(tmp_path / "s.toml"), "--db", str(db), "-j", "2")
    assert r.returncode == 0, r.stderr
    assert rows(db) == reference


def test_csv_export(tmp_path, reference):
    (tmp_path / "s.toml").write_text(STUDY)
    db = tmp_path / "c.sqlite"
    r = sweep(str(tmp_path / "s.toml"), "--db", str(db), "--csv", str(tmp_path / "a.csv"))
    assert r.returncode == 0, r.stderr
    r = sweep("--db", str(db), "--csv", str(tmp_path / "b.csv"), "--study", "resume")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.csv").read_text() != ""
    with open(tmp_path / "b.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert len(table) == 24
    assert "json" not in table[0]
    assert table[0]["status"] == "ok" and float(table[0]["latency_us"]) > 0
    r = sweep("--db", str(db), "--csv", "-", "--study", "other")
    assert r.returncode == 2 and "no study 'other' (studies: resume)" in r.stderr


def test_bad_input(tmp_path):
    s = tmp_path / "bad.toml"
    s.write_text('name = "b"\ngpus = "h800"\n[shape]\nseqlen = "1K:2K:0"\n')
    r = sweep(str(s), "--db", str(tmp_path / "b.sqlite"))
    assert r.returncode == 2
    assert f"{s}:4: seqlen: the step must be positive" in r.stderr
    assert not (tmp_path / "b.sqlite").exists()  # nothing ran, nothing written
    r = sweep(str(tmp_path / "missing.toml"), "--db", str(tmp_path / "b.sqlite"))
    assert r.returncode == 2 and "missing.toml" in r.stderr
    (tmp_path / "junk.sqlite").write_text("x" * 200)
    s.write_text('name = "b"\ngpus = "h800"\nrun = "analyze"\n')
    r = sweep(str(s), "--db", str(tmp_path / "junk.sqlite"))
    assert r.returncode == 2 and "junk.sqlite" in r.stderr
    r = sweep(str(s))
    assert r.returncode == 2 and "--db" in r.stderr
    # Over the study's limit: it asks for --yes.
    s.write_text('name = "big"\ngpus = "h800"\nrun = "analyze"\nmax_points = 3\n[shape]\nseqlen = "1K:4K:1K"\n')
    r = sweep(str(s), "--db", str(tmp_path / "y.sqlite"))
    assert r.returncode == 2 and "4 points, more than the study's limit of 3" in r.stderr and "--yes" in r.stderr
    r = sweep(str(s), "--db", str(tmp_path / "y.sqlite"), "--yes")
    assert r.returncode == 0, r.stderr


def test_retry_failed(tmp_path):
    s = tmp_path / "f.toml"
    # Three stages of a D64 tile fit in shared memory only for the causal kernel's smaller tile.
    s.write_text('name = "f"\ngpus = "h800"\nrun = "simulate"\n[shape]\nmodel = "none"\nheads_kv = 1\n'
                 'head_dim = 64\nseqlen = 512\n[set]\n"fa3.stages" = [2, 3]\n')
    db = tmp_path / "f.sqlite"
    r = sweep(str(s), "--db", str(db))
    assert r.returncode == 0 and "1 failed" in r.stderr, r.stderr
    r = sweep(str(s), "--db", str(db))
    assert "0 to run" in r.stderr  # failed points are stored, not retried by default
    r = sweep(str(s), "--db", str(db), "--retry-failed")
    assert r.returncode == 0 and "1 failed point to run again" in r.stderr and "1 point ran" in r.stderr, r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("select count(*) from points").fetchone()[0] == 2


@pytest.mark.skipif(os.environ.get("SIMFA_HAVE_MPI") != "1" or not shutil.which("mpirun"),
                    reason="simfa built without MPI, or no mpirun (scripts/install-deps installs OpenMPI)")
def test_mpi_three_ranks_equal_one_process(tmp_path, reference):
    (tmp_path / "s.toml").write_text(STUDY)
    db = tmp_path / "mpi.sqlite"
    cmd = ["mpirun", "--oversubscribe", "-n", "3"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    env = dict(os.environ, OMPI_MCA_plm="isolated", OMPI_MCA_btl="self,vader", OMPI_MCA_rmaps_base_oversubscribe="1")
    r = subprocess.run([*cmd, BIN, "sweep", str(tmp_path / "s.toml"), "--db", str(db)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "24 points to run on 2 MPI ranks" in r.stderr
    assert rows(db) == reference
