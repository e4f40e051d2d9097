"""Figures of the analytic model with matplotlib, like the paper's Fig. 8 (L2 traffic) and
Fig. 9 (DRAM traffic: ideal, realistic, GenZ baseline, measured), plus a roofline.

Each function evaluates ``simfa.analyze`` over a sequence-length sweep (keywords as for
``analyze``), draws on ``ax`` (a new figure when None) and returns the Axes. Points from a
simulator or from Nsight Compute go in ``measured`` / ``simulated`` as {seqlen: bytes}, a pair of
sequences (seqlens, bytes) or an (n, 2) array.

    import simfa.plot as sp
    ax = sp.traffic(model="llama3-405b", gpu="h800", measured={16384: 1.2e9, 65536: 2.4e10})
    ax.figure.savefig("fig9.pdf")
"""
from __future__ import annotations

import numpy as _np

from . import analyze as _analyze

__all__ = ["traffic", "l2_traffic", "roofline", "default_seqlens"]

_GB = 1e9


def default_seqlens():
    """16K to 64K tokens in steps of 8K (the paper's §6 range)."""
    return _np.arange(16384, 65536 + 1, 8192)


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    _, ax = plt.subplots(figsize=(7.5, 4.6))
    return ax


def _points(name, pts):
    """{x: bytes}, (xs, bytes) or an (n, 2) array -> (x array, bytes array)."""
    if pts is None:
        return None
    if isinstance(pts, dict):
        x, y = zip(*sorted(pts.items())) if pts else ((), ())
    else:
        a = _np.asarray(pts, dtype=float)
        if a.ndim == 2 and a.shape[1] == 2:
            x, y = a[:, 0], a[:, 1]
        elif a.ndim == 2 and a.shape[0] == 2:
            x, y = a[0], a[1]
        else:
            raise ValueError(f"{name}: expected {{seqlen: bytes}}, (seqlens, bytes) or an (n, 2) "
                             f"array")
    return _np.asarray(x, dtype=float), _np.asarray(y, dtype=float)


def _sweep(seqlens, kw):
    x = default_seqlens() if seqlens is None else _np.asarray(seqlens)
    if "seqlen_q" in kw or "seqlen_kv" in kw:
        raise ValueError("seqlens: the plots sweep L = S; use simfa.analyze for other sweeps")
    return x, _analyze(seqlen=x, fields="all", **kw)


def _token_axis(ax, x):
    ax.set_xlabel("sequence length L = S (tokens)")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{int(v) // 1024}K" if v % 1024 == 0 else str(int(v)) for v in x])


def _title(ax, kw, what):
    model = kw.get("model")
    gpu = kw.get("gpu", "h800")
    gpu = gpu if isinstance(gpu, str) else getattr(gpu, "name", "")
    ax.set_title(f"{what}{' - ' + model if model else ''} ({gpu})")


def traffic(seqlens=None, *, measured=None, simulated=None, ax=None, shade=True, **kw):
    """DRAM traffic against L = S: the ideal-cache model (GenZ, Eq. 3), the realistic wave model
    (Eq. 6), the model's regime choice (Eq. 4) and optional measured/simulated points."""
    x, r = _sweep(seqlens, kw)
    ax = _axes(ax)
    ax.plot(x, r["genz_dram_bytes"] / _GB, "--o", color="tab:gray", label="GenZ / ideal cache (Eq. 3)")
    ax.plot(x, r["dram_real_bytes"] / _GB, "--o", color="tab:orange",
            label="realistic, K/V per wave (Eq. 6)")
    ax.plot(x, r["dram_bytes"] / _GB, "-o", color="tab:blue", label="SimFA model (regime by Eq. 4)")
    for name, pts, style in (("simulated", simulated, "s"), ("measured", measured, "^")):
        p = _points(name, pts)
        if p is not None:
            ax.plot(p[0], p[1] / _GB, style, ms=8, linestyle="none", label=name,
                    color="tab:green" if name == "simulated" else "tab:red")
    if shade:
        real = _np.asarray(r["regime"]) == "realistic"
        if real.any():
            l2_eff = float(_np.asarray(r["l2_effective_bytes"]).reshape(-1)[0])
            # 2·P·S·D = L2_eff; P from the KV head bytes of the first point.
            kv = _np.asarray(r["kv_head_bytes"]).reshape(-1)
            s_star = l2_eff / (kv[0] / float(x.reshape(-1)[0]))
            lo = max(float(s_star), float(x.min()))
            ax.axvspan(lo, float(x.max()) + 0.05 * float(x.max() - x.min() or 1), color="tab:brown",
                       alpha=0.12, label="realistic regime (2PSD > L2_eff)")
            ax.axvline(s_star, color="tab:brown", linestyle=":", linewidth=1)
    _token_axis(ax, x)
    ax.set_ylabel("DRAM traffic (GB)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    _title(ax, kw, "DRAM traffic")
    return ax


def l2_traffic(seqlens=None, *, measured=None, simulated=None, ax=None, **kw):
    """L2 traffic against L = S: the demand of Eq. 2 (which LLM-Viewer charges to DRAM), its
    asymptote (Eq. 8), FA3's multicast-coalesced demand, and optional measured points."""
    x, r = _sweep(seqlens, kw)
    ax = _axes(ax)
    ax.plot(x, r["l2_bytes"] / _GB, "-o", color="tab:blue", label="L2 demand (Eq. 2) = LLM-Viewer DRAM")
    ax.plot(x, r["l2_bytes_asym"] / _GB, "--", color="tab:gray", label="asymptotic (Eq. 8)")
    if _np.any(_np.asarray(r["cluster"]) > 1):
        ax.plot(x, r["l2_bytes_coalesced"] / _GB, "--o", color="tab:purple",
                label="with FA3 cluster multicast")
    for name, pts, style in (("simulated", simulated, "s"), ("measured", measured, "^")):
        p = _points(name, pts)
        if p is not None:
            ax.plot(p[0], p[1] / _GB, style, ms=8, linestyle="none", label=name,
                    color="tab:green" if name == "simulated" else "tab:red")
    _token_axis(ax, x)
    ax.set_ylabel("L2 traffic (GB)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    _title(ax, kw, "L2 traffic")
    return ax


def roofline(seqlens=None, *, ax=None, **kw):
    """Each sweep point on the DRAM and L2 rooflines: performance = FLOPs / latency estimate,
    intensity = FLOPs per byte of DRAM (and of coalesced L2) traffic."""
    from . import gpu as _gpu, GpuSpec
    x, r = _sweep(seqlens, kw)
    g = kw.get("gpu", "h800")
    spec = g if isinstance(g, GpuSpec) else _gpu(g, kw.get("set"))
    fp8 = kw.get("dtype", "fp16").startswith("fp8")
    n_sm = float(_np.asarray(r["num_sms"]).reshape(-1)[0])
    peak = n_sm * (spec.flops_per_cycle_fp8 if fp8 else spec.flops_per_cycle_16bit) * spec.clock_hz
    ax = _axes(ax)
    i = _np.logspace(-1, 5, 200)
    ax.loglog(i, _np.minimum(peak, i * spec.dram_bytes_per_s) / 1e12, color="tab:gray", label="DRAM roof")
    ax.loglog(i, _np.minimum(peak, i * spec.l2_bytes_per_cycle * spec.clock_hz) / 1e12, "--",
              color="tab:purple", label="L2 roof")
    perf = r["flops"] / (r["latency_us"] * 1e-6) / 1e12
    ax.loglog(r["flops"] / r["dram_bytes"], perf, "o", color="tab:orange", label="vs DRAM traffic")
    ax.loglog(r["flops"] / r["l2_bytes_coalesced"], perf, "o", color="tab:blue", label="vs L2 traffic")
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("performance (TFLOP/s)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="lower right")
    _title(ax, kw, "Roofline")
    return ax
