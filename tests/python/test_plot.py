"""simfa.plot: the Fig. 8/9-style figures and the roofline draw what they say."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import simfa
import simfa.plot as sp


def labels(ax):
    return [l.get_label() for l in ax.get_lines()]


def test_traffic_figure_with_baselines_and_points(tmp_path):
    ax = sp.traffic(model="llama3-405b", gpu="h800",
                    measured={16384: 1.3e9, 65536: 2.5e10}, simulated=([32768], [2.4e9]))
    names = labels(ax)
    assert "GenZ / ideal cache (Eq. 3)" in names
    assert "SimFA model (regime by Eq. 4)" in names
    assert "measured" in names and "simulated" in names
    model = next(l for l in ax.get_lines() if l.get_label().startswith("SimFA"))
    r = simfa.analyze(model="llama3-405b", seqlen=sp.default_seqlens())
    assert np.allclose(model.get_ydata(), r["dram_bytes"] / 1e9)
    assert [t.get_text() for t in ax.get_xticklabels()][0] == "16K"
    out = tmp_path / "fig9.svg"
    ax.figure.savefig(out)
    assert out.stat().st_size > 1000


def test_l2_figure_shows_multicast_for_fa3():
    ax = sp.l2_traffic(model="llama3-70b")
    assert "with FA3 cluster multicast" in labels(ax)
    ax = sp.l2_traffic(model="llama3-70b", kernel="cutile")
    assert "with FA3 cluster multicast" not in labels(ax)


def test_roofline_points_lie_under_the_roof():
    ax = sp.roofline(model="llama3-8b", seqlens=[4096, 65536])
    pts = [l for l in ax.get_lines() if l.get_label() == "vs DRAM traffic"][0]
    roof = [l for l in ax.get_lines() if l.get_label() == "DRAM roof"][0]
    assert max(pts.get_ydata()) <= max(roof.get_ydata()) * 1.0001


def test_bad_points_are_value_errors():
    with pytest.raises(ValueError, match="measured"):
        sp.traffic(measured=[1, 2, 3])
