"""simfa: cycle-level simulation of FlashAttention-3 on Hopper GPUs, and its analytic model.

The analytic model (paper §3 and its extensions; docs/analytic-model.md) runs in C++ and takes
numpy arrays for vectorised sweeps::

    import numpy as np, simfa
    r = simfa.analyze(model="llama3-405b", gpu="h800", seqlen=np.arange(16384, 65537, 8192))
    r["dram_bytes"], r["regime"], r.latency_us

Keywords mirror the flags of ``simfa analyze`` (``seqlen_q`` is ``--seqlen-q``) and go through
the same validation; a bad value raises ValueError with the same message as the command line.

The cycle-level simulator runs a workload (the FA3 kernel by default, or a GEMM), like ``simfa run``::

    r = simfa.run(model="llama3-8b", seqlen=2048, gpu="h800")
    r.latency_us, r.tflops, r.l2_bytes, r.analytic["l2_bytes_coalesced"], r.stats["gpu.tensor.utilization"]
    g = simfa.run(workload="gemm", m=4096, n=4096, k=4096, gpu="h100")
"""
from __future__ import annotations

import json as _json
import numbers as _numbers
import os as _os
import warnings as _warnings

import numpy as _np

from . import _simfa

__all__ = [
    "GpuSpec", "Results", "DEFAULT_FIELDS", "analyze", "gpu", "gpu_presets", "config", "config_keys", "models",
    "fa3_tiles", "fields", "run", "run_trace", "workloads", "SimfaWarning", "model_config_keys", "vocabulary",
]

GpuSpec = _simfa.GpuSpec

# The outputs analyze() returns unless `fields` says otherwise: the resolved lengths and the
# issue's main quantities. Every output array costs memory to fill, which dominates sweeps of
# millions of points; fields="all" returns everything simfa.fields() lists.
DEFAULT_FIELDS = ("flops", "l2_bytes", "dram_ideal_bytes", "dram_real_bytes", "dram_bytes",
                  "waves", "regime", "r_traffic", "intensity", "latency_us")

_SHAPE_FIELDS = ("batch", "seqlen_q", "seqlen_kv", "heads_kv", "group", "head_dim", "causal")


def _all_fields():
    return list(_SHAPE_FIELDS) + [f[0] for f in _simfa.fields()]


# The model's keywords that alias a configuration key (docs/configuration.md, "One vocabulary").
_KEYWORD_KEYS = dict(tile_m="fa3.tile_m", tile_n="fa3.tile_n", occupancy="model.occupancy",
                     num_sms="gpu.num_sms", splits="fa3.splits", l2_effective_mib="model.l2_effective")


class SimfaWarning(UserWarning):
    """What simfa says about a result beyond its numbers: a simulated time that is not the real
    kernel's for this shape (``run``), assumed GPU figures or a kernel that does not run on the
    GPU (``analyze``). The same lines ``simfa run`` and ``simfa analyze`` print as warnings."""


# Keywords that accept numbers or numpy arrays (broadcast together).
_ARRAY_KEYS = ("batch", "seqlen", "seqlen_q", "seqlen_kv", "heads_kv", "group", "head_dim",
               "tile_m", "tile_n", "occupancy", "num_sms", "splits", "l2_effective_mib")


def _flag(key):
    return "--" + key.replace("_", "-")


class Results(dict):
    """The model's outputs: a dict of numpy arrays (or scalars for scalar inputs) that also
    allows attribute access (``r.dram_bytes``). ``simfa.fields()`` documents every key."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __dir__(self):
        return list(self.keys()) + list(super().__dir__())


def _sets(set):
    """--set overrides as a list of "key=value" strings."""
    if set is None:
        return []
    if isinstance(set, str):
        return [set]
    if isinstance(set, dict):
        return [f"{k}={v}" for k, v in set.items()]
    try:
        items = list(set)
    except TypeError:
        raise ValueError(f"set (--set): expected a dict, a 'key=value' string or a list of them, "
                         f"got {set!r}") from None
    for s in items:
        if not isinstance(s, str):
            raise ValueError(f"set (--set): expected 'key=value' strings, got {s!r}")
    return items


def _model_and_strings(model, **strings):
    """Checks that each keyword of `strings` is a string and `model` a preset name, "none" or
    None; returns the model name the native module takes ("" for none)."""
    for key, v in strings.items():
        if not isinstance(v, str):
            raise ValueError(f"{key} ({_flag(key)}): expected a string, got {v!r}")
    if model is not None and not isinstance(model, str):
        raise ValueError(f"model (--model): expected a preset name or 'none', got {model!r}")
    return "" if model in (None, "none") else model


def gpu(name="h800", set=None):
    """The GpuSpec of a preset (``gpu_presets()``) or TOML file, after ``set`` overrides
    (a dict {key: value} or a list of "key=value" strings, like ``--set``)."""
    return _gpu_spec(name, set)


def _gpu_spec(name, set):
    if isinstance(name, _os.PathLike):
        name = _os.fspath(name)
    if not isinstance(name, str):
        raise ValueError(f"gpu (--gpu): expected a preset name, a file name or a GpuSpec, "
                         f"got {name!r}")
    return _simfa.gpu_spec(name, _sets(set))


def vocabulary():
    """Every quantity with its name on the command line, as a configuration key, as a keyword here,
    in a study file and as a column (docs/configuration.md, "One vocabulary"): a list of dicts."""
    return list(_simfa.vocabulary())


def model_config_keys():
    """The configuration keys the analytic model reads (what ``analyze``'s ``set`` may name)."""
    return list(_simfa.model_config_keys())


def gpu_presets():
    """Names of the built-in GPU presets."""
    return list(_simfa.gpu_presets())


def config(gpu="h800", set=None):
    """The fully resolved configuration {key: value} of a GPU preset or file."""
    return _json.loads(_simfa.config_json(_gpu(gpu), _sets(set)))


def config_keys():
    """Every configuration key: list of dicts with key, default, unit, doc and source."""
    return [dict(zip(("key", "default", "unit", "doc", "source"), t)) for t in _simfa.config_keys()]


def models():
    """The Llama-3 presets of the paper's Table 6: {name: {hidden, heads_q, heads_kv, group,
    head_dim}}."""
    return dict(_simfa.models())


def fa3_tiles(head_dim, dtype="fp16", causal=False):
    """FA3's tile configuration (kBlockM, kBlockN, ...) for a head dimension and data type."""
    return dict(_simfa.fa3_tiles(_int_scalar("head_dim", head_dim), dtype, bool(causal)))


def fields():
    """The output fields of ``analyze``: list of dicts with name, unit, doc."""
    shape_docs = dict(batch="B", seqlen_q="L", seqlen_kv="S", heads_kv="H_KV", group="G",
                      head_dim="D", causal="causal mask")
    return ([dict(name=k, unit="", doc=f"resolved input: {d}") for k, d in shape_docs.items()] +
            [dict(name=n, unit=u, doc=d) for n, u, d, _ in _simfa.fields()])


def _int_scalar(key, v):
    if isinstance(v, bool) or not isinstance(v, _numbers.Integral):
        raise ValueError(f"{key} ({_flag(key)}): expected an integer, got {v!r}")
    return int(v)


def _numeric_array(key, v):
    if isinstance(v, (str, bytes)):
        raise ValueError(f"{key} ({_flag(key)}): expected a number or an array of numbers, "
                         f"got {v!r}")
    try:
        a = _np.asarray(v)
    except Exception:  # ragged lists and the like
        raise ValueError(f"{key} ({_flag(key)}): expected a number or an array of numbers") from None
    if a.dtype == bool or not (_np.issubdtype(a.dtype, _np.integer) or
                               _np.issubdtype(a.dtype, _np.floating)):
        raise ValueError(f"{key} ({_flag(key)}): expected a number or an array of numbers, "
                         f"got {v!r}" if a.ndim == 0 else
                         f"{key} ({_flag(key)}): expected numbers, got an array of {a.dtype}")
    return a


def analyze(*, model="llama3-405b", batch=None, seqlen=None, seqlen_q=None, seqlen_kv=None,
            heads_kv=None, group=None, head_dim=None, dtype="fp16", causal=False, gpu="h800",
            set=None, kernel=None, tile_m=None, tile_n=None, occupancy=None, num_sms=None,
            l2_effective_mib=None, splits=None, pack_gqa=None, fields=None):
    """Evaluate the analytic model.

    Workload (the flags of ``simfa run``): ``model`` (llama3-8b/70b/405b: heads and head_dim of
    paper Table 6; "none" to give ``heads_kv``, ``group``, ``head_dim`` yourself, which also
    override a preset); ``batch``; ``seqlen`` (L, and S unless ``seqlen_kv`` is given; 6144 when
    no length is given) or ``seqlen_q``; ``seqlen_kv``; ``dtype`` (fp16, bf16, fp8_e4m3);
    ``causal``.
    GPU and kernel: ``gpu`` (preset name, TOML file or a GpuSpec) and ``set`` overrides of the
    configuration keys the model reads (``model_config_keys()``: {"fa3.tile_m": 64,
    "gpu.num_sms": 114, ...}; any other key is a ValueError, as ``simfa analyze --set`` is).
    The model's keywords are aliases of keys (docs/configuration.md, "One vocabulary"):
    ``kernel`` is fa3.kernel (fa3, simfa-attn or cutile), ``pack_gqa`` fa3.pack_gqa ("auto",
    "on", "off" or a bool), ``splits`` fa3.splits ("auto" or integers), ``tile_m`` fa3.tile_m,
    ``tile_n`` fa3.tile_n, ``occupancy`` model.occupancy, ``num_sms`` gpu.num_sms,
    ``l2_effective_mib`` model.l2_effective in MiB. Giving a keyword and its key in ``set`` is a
    ValueError.

    Every numeric keyword and ``causal`` accept numpy arrays; all arrays broadcast together and
    every output has their broadcast shape. ``fields`` selects the outputs: None for
    DEFAULT_FIELDS, "all" for everything, or a list of names (``simfa.fields()`` documents them,
    plus the resolved batch, seqlen_q, seqlen_kv, heads_kv, group, head_dim and causal).
    Returns a Results dict (attribute access allowed). What the model says beyond the numbers
    (assumed GPU figures, a kernel that does not run on the GPU's architecture) is raised as a
    SimfaWarning.
    """
    given = dict(batch=batch, seqlen=seqlen, seqlen_q=seqlen_q, seqlen_kv=seqlen_kv,
                 heads_kv=heads_kv, group=group, head_dim=head_dim, tile_m=tile_m,
                 tile_n=tile_n, occupancy=occupancy, num_sms=num_sms,
                 l2_effective_mib=l2_effective_mib)
    aliases = []  # (key, value, origin): keywords that name a configuration key
    if isinstance(splits, str):
        if splits != "auto":
            raise ValueError(f"splits (--splits): expected 'auto' or an integer, got {splits!r}")
        aliases.append(("fa3.splits", "0", "splits (--splits)"))
    elif splits is not None:
        given["splits"] = splits
    if isinstance(pack_gqa, (bool, _np.bool_)):
        pack_gqa = "on" if pack_gqa else "off"
    if pack_gqa is not None:
        if not isinstance(pack_gqa, str):
            raise ValueError(f"pack_gqa (--pack-gqa): expected 'auto', 'on', 'off' or a bool, "
                             f"got {pack_gqa!r}")
        aliases.append(("fa3.pack_gqa", pack_gqa, "pack_gqa (--pack-gqa)"))
    if kernel is not None:
        if not isinstance(kernel, str):
            raise ValueError(f"kernel (--kernel): expected a string, got {kernel!r}")
        aliases.append(("fa3.kernel", kernel, "kernel (--kernel)"))
    model = _model_and_strings(model, dtype=dtype)
    if seqlen is None and seqlen_q is None and seqlen_kv is None:
        given["seqlen"] = 6144  # simfa run's default
    sets = [] if isinstance(gpu, GpuSpec) and set is None else _sets(set)
    set_keys = {s.split("=", 1)[0].strip() for s in sets}
    for kw, key in _KEYWORD_KEYS.items():
        if given.get(kw) is not None and key in set_keys:
            raise ValueError(f"{kw} ({_flag(kw)}) and set {key!r} name the same key ({key}): give one")

    arrays = {k: _numeric_array(k, v) for k, v in given.items() if v is not None}
    causal_a = _np.asarray(causal)
    if causal_a.dtype != bool and not _np.issubdtype(causal_a.dtype, _np.integer):
        raise ValueError(f"causal (--causal): expected a bool or an array of bools, got {causal!r}")
    arrays["causal"] = causal_a
    try:
        shape = _np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        dims = ", ".join(f"{k} {a.shape}" for k, a in arrays.items() if a.ndim)
        raise ValueError(f"analyze: the array arguments do not broadcast together: {dims}") from None
    n = int(_np.prod(shape, dtype=_np.int64))
    flat = {}
    for k, a in arrays.items():
        dt = _np.uint8 if k == "causal" else _np.float64
        flat[k] = _np.ascontiguousarray(_np.broadcast_to(a.astype(dt, copy=False), shape).reshape(-1))

    if isinstance(gpu, GpuSpec):
        if set is not None:
            raise ValueError("set (--set): give overrides with a preset name, not with a GpuSpec "
                             "(change the GpuSpec's attributes instead)")
    else:
        gpu = _gpu(gpu)
    if fields is None:
        wanted = list(DEFAULT_FIELDS)
    elif isinstance(fields, str):
        wanted = _all_fields() if fields == "all" else [fields]
    else:
        wanted = list(fields)
    for f in wanted:
        if not isinstance(f, str):
            raise ValueError(f"fields: expected field names, got {f!r}")
    raw = _simfa.analyze_batch(gpu, sets, aliases, model, dtype, flat, n, wanted)
    for w in raw.pop("__warnings"):
        _warnings.warn(w, SimfaWarning, stacklevel=2)

    out = Results()
    for k, v in raw.items():
        if k.endswith("__names"):
            continue
        if k + "__names" in raw:
            # An object array of the two or three interned names: 8 bytes a point instead of
            # a fixed-width unicode array's 36.
            v = _np.array(raw[k + "__names"], dtype=object)[v]
        elif k == "causal":
            v = v.astype(bool)
        v = v.reshape(shape)
        out[k] = v.item() if shape == () else v
    return out


# -----------------------------------------------------------------------------------------------
# The cycle-level simulator.
# -----------------------------------------------------------------------------------------------
def _paths(key, v):
    """File or folder names: a str or os.PathLike (pathlib.Path), or an iterable of them."""
    if isinstance(v, (str, _os.PathLike)):
        v = [v]
    try:
        items = list(v)
    except TypeError:
        raise ValueError(f"{key}: expected a path or a list of paths, got {v!r}") from None
    out = []
    for x in items:
        if isinstance(x, _os.PathLike):
            x = _os.fspath(x)
        if not isinstance(x, str):
            raise ValueError(f"{key}: expected a path (str or pathlib.Path), got {x!r}")
        out.append(x)
    if not out:
        raise ValueError(f"{key}: no trace files given")
    return out


def _gpu(gpu):
    """A preset name or a TOML file (str or os.PathLike)."""
    if isinstance(gpu, _os.PathLike):
        gpu = _os.fspath(gpu)
    if not isinstance(gpu, str):
        raise ValueError(f"gpu (--gpu): expected a preset name or a file path, got {gpu!r}")
    return gpu


def _names(key, v):
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    items = list(v)
    for x in items:
        if not isinstance(x, str):
            raise ValueError(f"{key} ({_flag(key)}): expected names, got {x!r}")
    return items


_UNSET = object()  # a keyword not given: the workload's default


def workloads():
    """The workloads ``run`` simulates: {name: {"doc": ..., "keys": {key: doc}}}."""
    return {name: dict(doc=doc, keys=dict(keys)) for name, (doc, keys) in _simfa.workloads().items()}


def run(*, workload="fa3", model=_UNSET, batch=None, seqlen=None, seqlen_q=None, seqlen_kv=None,
        heads_kv=None, group=None, head_dim=None, m=None, n=None, k=None, dtype="fp16", causal=False,
        gpu="h800", set=None, ablate=None, clock_mhz=None, no_skip=False, block_log=None):
    """Simulate a workload on the whole GPU (``simfa run``): the FlashAttention-3 forward kernel
    (``workload="fa3"``, the default) or a persistent warp-specialized GEMM (``workload="gemm"``).

    FA3 keywords as in ``analyze`` (scalars only): ``model`` (preset, default llama3-405b, or
    "none"/None), ``batch``, ``seqlen`` (L, and S unless ``seqlen_kv`` is given; 6144 when no
    length is given), ``seqlen_q``, ``seqlen_kv``, ``heads_kv``, ``group``, ``head_dim``,
    ``dtype``, ``causal``. GEMM keywords: ``m``, ``n``, ``k`` (required), ``batch``, ``dtype``
    (C[b] = A[b] · B[b]^T; the gemm.* keys of ``set`` choose tiles, stages and schedule).
    A keyword of the other workload is a ValueError, as its flag is on the command line.
    GPU: ``gpu`` (preset name or TOML file), ``set`` (dict or "key=value" list, like ``--set``),
    ``ablate`` (names of paper Table 5: "no-lrc", "simple-hash", "no-dedup"), ``clock_mhz``.
    ``no_skip`` runs the reference mode (same results, slower). ``block_log`` (a path, FA3 only)
    writes a CSV line per KV block the run simulates in detail, as ``--block-log`` does
    (docs/sampling.md, "The block log").

    Returns a Results dict with what ``simfa run --json`` writes: ``latency_us``, ``cycles``,
    ``tflops``, ``peak_fraction``, ``l2_bytes``, ``dram_read_bytes``, ``dram_write_bytes``,
    ``pipe_utilization`` (``tensor``, and for FA3 ``mufu``, ``fp32``, ``alu``: fractions of every SM's cycles), ``sim_wall_s``, ``sim_cycles_per_s``, ``workload``, ``analytic`` (the analytic model for
    the same shape and kernel; for a GEMM a roofline with its tile waves), ``config`` and ``stats``
    (every statistic by name). Bad input raises ValueError with the command line's message; a
    deadlocked kernel raises RuntimeError with the report of every blocked WarpGroup.
    """
    if not isinstance(workload, str):
        raise ValueError(f"workload (--workload): expected a name, got {workload!r}")
    numbers = dict(batch=batch, seqlen=seqlen, seqlen_q=seqlen_q, seqlen_kv=seqlen_kv,
                   heads_kv=heads_kv, group=group, head_dim=head_dim, m=m, n=n, k=k)
    for key, v in numbers.items():
        if v is not None and (isinstance(v, bool) or not isinstance(v, _numbers.Real)):
            raise ValueError(f"{key} ({_flag(key)}): expected a number, got {v!r}")
    gpu = _gpu(gpu)
    _model_and_strings(None, dtype=dtype, gpu=gpu)
    if not isinstance(causal, (bool, _np.bool_)):
        raise ValueError(f"causal (--causal): expected a bool, got {causal!r}")
    if clock_mhz is not None and (isinstance(clock_mhz, bool) or not isinstance(clock_mhz, _numbers.Real)):
        raise ValueError(f"clock_mhz (--clock-mhz): expected a number, got {clock_mhz!r}")
    inputs = [(key, str(int(v)) if isinstance(v, _numbers.Integral) else repr(float(v)))
              for key, v in numbers.items() if v is not None]
    if model is not _UNSET:
        if model is not None and not isinstance(model, str):
            raise ValueError(f"model (--model): expected a preset name or 'none', got {model!r}")
        inputs.append(("model", "none" if model is None else model))
    inputs.append(("dtype", dtype))
    if causal:
        inputs.append(("causal", "1"))
    if block_log is not None and not isinstance(block_log, (str, _os.PathLike)):
        raise ValueError(f"block_log (--block-log): expected a path, got {block_log!r}")
    text = _simfa.run_workload_json(workload, gpu, _sets(set), _names("ablate", ablate), inputs,
                                    None if clock_mhz is None else float(clock_mhz), not no_skip,
                                    None if block_log is None else _os.fspath(block_log))
    out = Results(_json.loads(text))
    for w in out.get("warnings", []):
        _warnings.warn(w, SimfaWarning, stacklevel=2)
    return out


def run_trace(paths, *, gpu="h800", set=None, ablate=None, no_skip=False):
    """Simulate trace files, or directories of .sft files (``simfa trace run``), e.g. those
    ``simfa trace gen`` writes. Returns a Results dict with ``cycles``, ``latency_us``,
    ``sim_wall_s``, ``sim_cycles_per_s``, ``config`` and ``stats``."""
    text = _simfa.run_trace_json(_paths("paths", paths), _gpu(gpu), _sets(set), _names("ablate", ablate),
                                 not no_skip)
    return Results(_json.loads(text))
