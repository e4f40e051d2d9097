"""One vocabulary in Python (docs/configuration.md, "One vocabulary"): analyze's keywords are
aliases of the configuration keys its ``set`` takes, a key the model does not read is a
ValueError, the Blackwell presets reach the model and not the simulator, and a decode shape is
simulated with a warning."""
import warnings

import numpy as np
import pytest

import simfa


def test_set_keys_are_the_keywords():
    a = simfa.analyze(model="llama3-8b", seqlen=8192, set={"fa3.tile_m": 64, "fa3.tile_n": 128}, fields="all")
    b = simfa.analyze(model="llama3-8b", seqlen=8192, tile_m=64, tile_n=128, fields="all")
    assert a["tile_m"] == 64 and a["tile_n"] == 128
    assert a == b
    c = simfa.analyze(model="llama3-8b", seqlen=8192, fields="all")
    assert c["tile_m"] == 128 and c["l2_bytes"] != a["l2_bytes"]
    a = simfa.analyze(seqlen=8192, set={"fa3.kernel": "cutile", "model.l2_effective": "16MiB",
                                         "gpu.num_sms": 114, "fa3.splits": 1}, fields="all")
    b = simfa.analyze(seqlen=8192, kernel="cutile", l2_effective_mib=16, num_sms=114, splits=1, fields="all")
    assert a == b and a["tile_m"] == 64 and a["num_sms"] == 114


def test_a_keyword_and_its_key_together_are_an_error():
    with pytest.raises(ValueError, match="name the same key"):
        simfa.analyze(seqlen=1024, tile_m=64, set={"fa3.tile_m": 128})
    with pytest.raises(ValueError, match="contradicts --set fa3.kernel=fa3"):
        simfa.analyze(seqlen=1024, kernel="cutile", set={"fa3.kernel": "fa3"})


def test_a_key_the_model_does_not_read_is_an_error():
    with pytest.raises(ValueError, match="simfa.analyze does not read fa3.stages"):
        simfa.analyze(seqlen=1024, set={"fa3.stages": 3})
    with pytest.raises(ValueError, match="does not read sm.max_ctas, which configures the cycle simulator"):
        simfa.analyze(seqlen=1024, set=["sm.max_ctas=4"])
    with pytest.raises(ValueError, match="simfa.gpu does not read fa3.tile_m"):
        simfa.gpu("h800", set={"fa3.tile_m": 64})
    assert "fa3.tile_m" in simfa.model_config_keys() and "fa3.stages" not in simfa.model_config_keys()


def test_blackwell_presets_reach_the_model_not_the_simulator():
    assert {"b200", "gb10"} <= set(simfa.gpu_presets())
    g = simfa.gpu("gb10")
    assert g.num_sms == 48 and g.arch == "blackwell-sm12x" and g.effective_l2() == 24 * 2**20
    with pytest.warns(simfa.SimfaWarning, match="assumed values of gpu.clock"):
        r = simfa.analyze(gpu="gb10", kernel="cutile", seqlen=np.array([16384, 65536]), fields="all")
    assert list(r["regime"]) == ["ideal", "realistic"]
    with pytest.warns(simfa.SimfaWarning, match="is a Hopper \\(sm_90\\) kernel"):
        simfa.analyze(gpu="b200", seqlen=8192)
    for gpu in ("b200", "gb10"):
        with pytest.raises(ValueError, match="simfa's cycle simulator models Hopper \\(sm_90\\) SMs only"):
            simfa.run(gpu=gpu, seqlen=256)
    with pytest.raises(ValueError, match="tcgen05 UMMA"):
        simfa.run(gpu="b200", workload="gemm", m=256, n=256, k=256)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simfa.analyze(gpu="h800", seqlen=8192)  # a Hopper preset: nothing to say


def test_decode_is_simulated_with_a_warning():
    small = dict(model="llama3-8b", seqlen_q=1, seqlen_kv=2048)
    with pytest.warns(simfa.SimfaWarning, match="num_splits heuristic splits this shape's KV"):
        r = simfa.run(**small)
    assert len(r.warnings) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = simfa.run(**small, set={"fa3.splits": 1})
    assert r.warnings == []
    with pytest.raises(ValueError, match="without split-KV"):
        simfa.run(**small, set={"fa3.splits": 4})


def test_the_vocabulary_table_names_real_keywords():
    import inspect
    params = set(inspect.signature(simfa.run).parameters) | set(inspect.signature(simfa.analyze).parameters)
    keys = {k["key"] for k in simfa.config_keys()}
    for t in simfa.vocabulary():
        words = t["keyword"].split(" (")[0].split("=")[0]
        for w in words.split(", "):
            assert w in params, (t["quantity"], w)
        if t["key"] and t["key"] != "KEY":
            assert t["key"] in keys, t["key"]


def test_run_trace_refuses_workload_keys(tmp_path):
    with pytest.raises(ValueError, match="simfa.run_trace does not read fa3.\\* keys"):
        simfa.run_trace(str(tmp_path), set={"fa3.tile_m": 64})
