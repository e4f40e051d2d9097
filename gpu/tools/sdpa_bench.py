#!/usr/bin/env python3
"""Times PyTorch's fused attention kernels (FlashAttention-2 and cuDNN backends of
scaled_dot_product_attention) on the FA3 paper's Fig. 5 grid: FP16 forward, head dim 64/128/256,
causal and not, seqlen 512-16k, batch = 16384 / seqlen, heads = 2048 / head dim.

These are not FA3 and not simfa's kernel: they are other real Hopper attention kernels measured on
the same GPU, a reference for what the hardware reaches (see data/measured/h200/README.md). Output
is `simfa validate` columns plus a backend column in a second file.
Usage: sdpa_bench.py OUT.csv [--quick]
"""
import sys
import time

def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) >= 2 else 2
    out = sys.argv[1]
    quick = "--quick" in sys.argv[2:]
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    dev = torch.cuda.get_device_name(0)
    backends = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)]
    seqlens = [512, 2048, 8192] if quick else [512, 1024, 2048, 4096, 8192, 16384]
    runs, warm = (5, 2) if quick else (20, 3)
    rows = []
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t_start = time.time()
    for name, be in backends:
        for d in (64, 128, 256):
            for causal in (False, True):
                for L in seqlens:
                    b, h = 16384 // L, 2048 // d
                    g = torch.Generator(device="cuda").manual_seed(L + d)
                    q, k, v = (torch.randn(b, L, h, d, device="cuda", dtype=torch.float16,
                                           generator=g).transpose(1, 2) for _ in range(3))
                    try:
                        with sdpa_kernel([be]):
                            ts = []
                            for r in range(warm + runs):
                                e0.record()
                                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                                e1.record()
                                torch.cuda.synchronize()
                                if r >= warm:
                                    ts.append(e0.elapsed_time(e1) * 1e3)
                        ts.sort()
                        us = ts[len(ts) // 2]
                        status = "ok"
                    except Exception as ex:  # backend does not support this shape
                        us, status = float("nan"), type(ex).__name__
                    flops = 4.0 * b * h * L * L * d / (2 if causal else 1)
                    rows.append((name, d, causal, L, b, h, us, flops / (us * 1e-6) / 1e12 if us == us else float("nan"), status))
                    print(f"{name} d{d} {'causal' if causal else 'full'} s{L}: {us:.1f} us {rows[-1][7]:.0f} TFLOPS {status}", flush=True)
                    del q, k, v
    with open(out, "w") as f:
        f.write(f"# device={dev}\n# torch={torch.__version__} cudnn={torch.backends.cudnn.version()}\n")
        f.write(f"# method=torch scaled_dot_product_attention per backend, FP16 forward, (b, L, h, d) "
                f"transposed views, CUDA events, median of {runs} after {warm} warm-ups; clock not "
                f"controlled (see env/smi-trace.csv); wall {time.time() - t_start:.0f} s\n")
        f.write("backend,case,batch,seqlen,heads,head_dim,causal,measured_us,tflops,status\n")
        for name, d, causal, L, b, h, us, tf, st in rows:
            case = f"{name}-d{d}-{'causal' if causal else 'full'}-s{L}"
            f.write(f"{name},{case},{b},{L},{h},{d},{int(causal)},{us:.2f},{tf:.1f},{st}\n")
    return 0

if __name__ == "__main__":
    sys.exit(main())
