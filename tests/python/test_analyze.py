"""simfa.analyze: values, numpy broadcasting, validation like the CLI, and sweep speed."""
import time

import numpy as np
import pytest

import simfa


def test_paper_value_405b_64k_realistic():
    # Hand values of tests/model/test_paper_values.cpp (H800, effective L2 25 MiB).
    r = simfa.analyze(model="llama3-405b", seqlen=65536, gpu="h800", fields="all")
    assert r["flops"] == 281474976710656
    assert r["l2_bytes"] == 2203318222848
    assert r["dram_ideal_bytes"] == 4563402752
    assert r["dram_real_bytes"] == 21206401024
    assert r["dram_bytes"] == r["dram_real_bytes"]
    assert r["waves"] == 63
    assert r["regime"] == "realistic"
    assert r.genz_dram_bytes == r.dram_ideal_bytes
    assert r.llmviewer_dram_bytes == r.l2_bytes
    assert isinstance(r["flops"], float) and isinstance(r["regime"], str)


def test_array_sweep_matches_scalar_calls():
    seq = np.arange(16384, 65536 + 1, 8192)
    r = simfa.analyze(model="llama3-405b", seqlen=seq)
    assert r["dram_bytes"].shape == seq.shape
    assert list(r["regime"]) == ["ideal"] * 5 + ["realistic"] * 2
    for i, s in enumerate(seq):
        one = simfa.analyze(model="llama3-405b", seqlen=int(s))
        assert one["dram_bytes"] == r["dram_bytes"][i]
        assert one["latency_us"] == r["latency_us"][i]
    r = simfa.analyze(model="llama3-405b", seqlen=seq, fields=["seqlen_q", "seqlen_kv"])
    assert (r["seqlen_q"] == seq).all() and (r["seqlen_kv"] == seq).all()


def test_broadcasting_two_dimensions():
    seq = np.array([16384, 32768, 65536])[:, None]
    group = np.array([1, 4, 16])[None, :]
    r = simfa.analyze(model="none", heads_kv=8, head_dim=128, group=group, seqlen=seq)
    assert r["l2_bytes"].shape == (3, 3)
    # L2 traffic grows linearly with G (no PackGQA for these lengths).
    assert np.allclose(r["l2_bytes"][:, 2] / r["l2_bytes"][:, 0], 16)


def test_explicit_arguments_override_the_preset():
    a = simfa.analyze(model="llama3-405b", seqlen=8192, group=4, fields="all")
    b = simfa.analyze(model="llama3-8b", seqlen=8192, fields="all")
    assert a["group"] == 4 and a["dram_bytes"] == b["dram_bytes"]


def test_knobs_and_all_fields():
    r = simfa.analyze(seqlen=65536, kernel="cutile", fields="all")
    assert r["tile_m"] == 64 and r["tile_n"] == 32
    assert r["waves"] == 125
    names = {f["name"] for f in simfa.fields()}
    assert names == set(r.keys())
    r = simfa.analyze(seqlen=65536, l2_effective_mib=40, fields=["regime", "l2_effective_bytes"])
    assert set(r) == {"regime", "l2_effective_bytes"}
    assert r["regime"] == "ideal" and r["l2_effective_bytes"] == 40 * 2**20
    r = simfa.analyze(seqlen=65536, occupancy=np.array([1, 2]), num_sms=114, fields=["r_traffic_asym"])
    assert list(r["r_traffic_asym"]) == [114, 228]


def test_decode_split_kv_and_causal_arrays():
    r = simfa.analyze(model="llama3-8b", seqlen_q=1, seqlen_kv=65536,
                      fields=["num_splits", "pack_gqa", "combine_l2_bytes"])
    assert r["num_splits"] == 15 and r["pack_gqa"] == 1 and r["combine_l2_bytes"] == 495360
    r = simfa.analyze(seqlen=8192, causal=np.array([False, True]), fields=["flops", "causal"])
    assert list(r["causal"]) == [False, True]
    assert 0.5 < r["flops"][1] / r["flops"][0] < 0.6


def test_gpu_presets_and_specs():
    assert "h800" in simfa.gpu_presets()
    g = simfa.gpu("h800")
    assert g.num_sms == 132 and g.l2_partitions == 2
    assert simfa.gpu("h800-pcie").num_sms == 114
    g2 = simfa.gpu("h800", set={"gpu.num_sms": 66})
    assert g2.num_sms == 66
    g.num_sms = 100
    assert simfa.analyze(seqlen=4096, gpu=g, fields="num_sms")["num_sms"] == 100
    assert simfa.config("h800")["gpu.num_sms"] == 132
    assert simfa.models()["llama3-405b"]["group"] == 16
    assert simfa.fa3_tiles(128)["tile_n"] == 176


@pytest.mark.parametrize("kwargs, flag", [
    (dict(seqlen=0), "--seqlen"),
    (dict(seqlen=-4), "--seqlen"),
    (dict(seqlen=1.5), "--seqlen"),
    (dict(seqlen="64K"), "--seqlen"),
    (dict(seqlen=1024, seqlen_kv=0), "--seqlen-kv"),
    (dict(seqlen=1024, batch=0), "--batch"),
    (dict(seqlen=1024, tile_m=0), "--tile-m"),
    (dict(seqlen=1024, tile_n=-1), "--tile-n"),
    (dict(seqlen=1024, occupancy=0), "--occupancy"),
    (dict(seqlen=1024, num_sms=0), "--num-sms"),
    (dict(seqlen=1024, l2_effective_mib="lots"), "--l2-effective-mib"),
    (dict(seqlen=1024, l2_effective_mib=-1), "--l2-effective-mib"),
    (dict(seqlen=1024, splits="many"), "--splits"),
    (dict(seqlen=1024, splits=64), "--splits"),
    (dict(seqlen=1024, pack_gqa="maybe"), "--pack-gqa"),
    (dict(seqlen=1024, dtype="fp32"), "--dtype"),
    (dict(seqlen=1024, kernel="xla"), "--kernel"),
    (dict(seqlen=1024, model="gpt"), "--model"),
    (dict(seqlen=1024, model="none"), "--heads-kv"),
    (dict(seqlen=1024, gpu="h900"), "--gpu"),
    (dict(seqlen=1024, set={"no.such.key": 1}), "--set"),
    (dict(seqlen=1024, head_dim=512), "--head-dim"),
    (dict(seqlen=np.array([1024, 0])), "--seqlen"),
])
def test_bad_arguments_raise_value_error_naming_the_flag(kwargs, flag):
    with pytest.raises(ValueError) as e:
        simfa.analyze(**kwargs)
    assert flag in str(e.value)


def test_unbroadcastable_arrays_and_unknown_fields():
    with pytest.raises(ValueError, match="broadcast"):
        simfa.analyze(seqlen=[1024, 2048], group=[1, 2, 3])
    with pytest.raises(ValueError, match="fields"):
        simfa.analyze(seqlen=1024, fields=["dram"])
    with pytest.raises(TypeError):
        simfa.analyze(1024)  # keywords only


def test_million_point_sweep(capsys):
    """One million design points in one call (acceptance: under a second on an idle core;
    reported, not enforced, since a loaded machine is slower: docs/performance.md)."""
    rng = np.random.default_rng(0)
    seq = rng.integers(1024, 131072, 1_000_000)
    t = time.perf_counter()
    r = simfa.analyze(model="llama3-405b", seqlen=seq, fields=["dram_bytes", "regime"])
    dt = time.perf_counter() - t
    assert r["dram_bytes"].shape == (1_000_000,)
    assert (r["dram_bytes"] > 0).all()
    with capsys.disabled():
        print(f"\n[simfa] 1M-point sweep (dram_bytes, regime): {dt:.3f} s")
