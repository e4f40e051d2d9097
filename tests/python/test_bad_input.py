"""Issue 20 from Python: bad input raises ValueError naming the input, paths may be pathlib.Path,
and Ctrl-C ends a simulation with KeyboardInterrupt."""
import os
import pathlib
import subprocess
import sys

import pytest

import simfa

TRACE = "SIMFA_TRACE 1\nKERNEL ctas=1 stages=1\nCTA 0\nWG 0\n"


def test_run_trace_takes_pathlib_paths(tmp_path):
    t = tmp_path / "t.sft"
    t.write_text(TRACE + "BUBBLE 100\n")
    assert simfa.run_trace(t).cycles == simfa.run_trace(str(t)).cycles
    assert simfa.run_trace([t, ]).cycles > 0
    gpu = tmp_path / "g.toml"
    gpu.write_text('preset = "h100"\n')
    assert simfa.run_trace(t, gpu=gpu).config["gpu.name"] == simfa.config("h100")["gpu.name"]
    assert simfa.config(gpu)["gpu.name"] == simfa.config("h100")["gpu.name"]


@pytest.mark.parametrize("code, message", [
    ("LDG 0xffffffffff00 128\n", "t.sft:5: LDG: the load at 0xffffffffff00"),
    ("BUBBLE 1\nWG 1 role=\x1b[1m\n", "t.sft:6: WG role '\\x1b[1m' is not a name"),
    ("FOO\xff 1\n", "t.sft:5: unknown opcode 'FOO\\xc3\\xbf'"),
])
def test_trace_errors_raise_value_error(tmp_path, code, message):
    t = tmp_path / "t.sft"
    t.write_text(TRACE + code)
    with pytest.raises(ValueError) as e:
        simfa.run_trace(t)
    assert message in str(e.value)


def test_a_fifo_and_a_folder_raise_value_error(tmp_path):
    fifo = tmp_path / "f.sft"
    os.mkfifo(fifo)  # nobody writes it: opening it would block
    with pytest.raises(ValueError, match="not a regular file"):
        simfa.run_trace(fifo)
    with pytest.raises(ValueError, match="is a directory, not a TOML file"):
        simfa.run_trace(fifo, gpu=tmp_path)
    with pytest.raises(ValueError, match="expected a path"):
        simfa.run_trace(42)


def test_conflicting_and_unsupported_shapes_raise_value_error():
    with pytest.raises(ValueError, match="disagree"):
        simfa.analyze(model="llama3-8b", seqlen=512, seqlen_q=1024)
    with pytest.raises(ValueError, match="not a multiple of 8"):
        simfa.analyze(model="llama3-8b", seqlen=512, head_dim=7)


def test_ctrl_c_ends_a_simulation(tmp_path):
    # A long but finite run (a 4e9-cycle bubble with DRAM refresh ticking all along): interrupted
    # after 0.2 s it raises KeyboardInterrupt; were Ctrl-C ignored it would end by itself, printing
    # "finished", and the test would fail rather than hang.
    t = tmp_path / "long.sft"
    t.write_text(TRACE + "BUBBLE 4000000000\n")
    script = (
        "import os, signal, threading, simfa\n"
        "threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
        "try:\n"
        f"    simfa.run_trace({str(t)!r}, set={{'mem.model': 'hierarchy'}})\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n")
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert p.stdout.strip() == "interrupted", p.stdout + p.stderr
