#!/usr/bin/env python3
"""Fragment-level model of one consumer WarpGroup of gpu/attn/attn_kernel.cuh (intra-WG-overlap
schedule), in plain Python: 128 threads' registers for S (88), P (44 packed pairs) and O (64),
with the PTX ISA wgmma fragment layouts for the accumulator (D: element 4i+2r+e is row g+8r,
column 8i+2t+e of the warp's 16 rows) and for A from registers (register q of k-step kk holds row
g (+8 for q=1,3), columns 16kk + (8 for q>=2) + 2t + e). It replays the kernel's mask, online
softmax with quad reductions, P packing p[j] = (s[2j], s[2j+1]), O rescaling order and epilogue
indexing over three KV blocks with a ragged end, and compares O and LSE with a direct reference
(no fp16 rounding, so they agree to rounding error). It checks the index logic, not the hardware:
the layouts are the model's assumptions. Exit 1 when the error exceeds 1e-9."""
import sys
import math, random
random.seed(1)
D, BN, N_BLK = 128, 176, 3
SK = 2 * BN + 37           # ragged: last block (processed first) has 37 valid columns
ROWS = 64
Q = [[random.uniform(-1, 1) for _ in range(D)] for _ in range(ROWS)]
K = [[random.uniform(-1, 1) for _ in range(D)] for _ in range(SK)] + [[0.0] * D] * (N_BLK * BN - SK)
V = [[random.uniform(-1, 1) for _ in range(D)] for _ in range(SK)] + [[0.0] * D] * (N_BLK * BN - SK)
scale = 1 / math.sqrt(D); sl2 = scale * 1.4426950408889634

def qk_block(j):  # per thread: s[88] in D layout
    out = {}
    for w in range(4):
        for lane in range(32):
            g, t = lane // 4, lane % 4
            s = [0.0] * 88
            for i in range(22):
                for r in range(2):
                    for e in range(2):
                        row, col = 16 * w + g + 8 * r, 8 * i + 2 * t + e
                        kr = K[j * BN + col]
                        s[4 * i + 2 * r + e] = sum(Q[row][x] * kr[x] for x in range(D))
            out[(w, lane)] = s
    return out

def pv_block(j, P, O):  # RS: A from p regs, p[4kk+q] halves e
    for w in range(4):
        # rebuild the 16 x 176 A tile of this warp from its 32 lanes' registers
        A = [[None] * BN for _ in range(16)]
        for lane in range(32):
            g, t = lane // 4, lane % 4
            p = P[(w, lane)]
            for kk in range(11):
                for q in range(4):
                    row = g + (8 if q in (1, 3) else 0)
                    kb = 16 * kk + (8 if q >= 2 else 0) + 2 * t
                    for e in range(2):
                        A[row][kb + e] = p[4 * kk + q][e]
        for lane in range(32):
            g, t = lane // 4, lane % 4
            o = O[(w, lane)]
            for i in range(16):
                for r in range(2):
                    for e in range(2):
                        col = 8 * i + 2 * t + e
                        o[4 * i + 2 * r + e] += sum(A[g + 8 * r][k] * V[j * BN + k][col] for k in range(BN))

def quad(vals, fn):  # vals: dict lane->x within a warp; quad all-reduce
    return {l: fn([vals[(l // 4) * 4 + u] for u in range(4)]) for l in range(32)}

def softmax(S, m, l, first):
    corr = {}
    for w in range(4):
        for r in range(2):
            loc = {}
            for lane in range(32):
                s = S[(w, lane)]
                mx = -math.inf if first else m[(w, lane)][r]
                for i in range(22):
                    mx = max(mx, s[4 * i + 2 * r], s[4 * i + 2 * r + 1])
                loc[lane] = mx
            red = quad(loc, max)
            for lane in range(32):
                s = S[(w, lane)]; mx = red[lane]
                c = 1.0 if first else 2 ** ((m[(w, lane)][r] - mx) * sl2)
                tot = 0.0
                for i in range(22):
                    for e in range(2):
                        x = 2 ** (s[4 * i + 2 * r + e] * sl2 - mx * sl2)
                        s[4 * i + 2 * r + e] = x; tot += x
                l[(w, lane)][r] = tot if first else l[(w, lane)][r] * c + tot
                m[(w, lane)][r] = mx
                corr.setdefault((w, lane), [0, 0])[r] = c
    return corr

keys = [(w, lane) for w in range(4) for lane in range(32)]
m = {k: [0, 0] for k in keys}; l = {k: [0, 0] for k in keys}
O = {k: [0.0] * 64 for k in keys}
S = qk_block(N_BLK - 1)
limit = SK - (N_BLK - 1) * BN
for (w, lane), s in S.items():
    t = lane % 4
    for i in range(22):
        for e in range(2):
            if 8 * i + 2 * t + e >= limit:
                s[4 * i + e] = s[4 * i + 2 + e] = -math.inf
softmax(S, m, l, True)
P = {k: [(S[k][2 * j], S[k][2 * j + 1]) for j in range(44)] for k in keys}
for j in range(N_BLK - 2, -1, -1):
    S = qk_block(j)
    pv_block(j + 1, P, O)
    corr = softmax(S, m, l, False)
    P = {k: [(S[k][2 * jj], S[k][2 * jj + 1]) for jj in range(44)] for k in keys}
    for k in keys:
        for i in range(16):
            for r in range(2):
                for e in range(2):
                    O[k][4 * i + 2 * r + e] *= corr[k][r]
pv_block(0, P, O)
# epilogue
out = [[None] * D for _ in range(ROWS)]; lse = [None] * ROWS
for w in range(4):
    for r in range(2):
        red = quad({lane: l[(w, lane)][r] for lane in range(32)}, sum)
        for lane in range(32):
            g, t = lane // 4, lane % 4
            row = 16 * w + g + 8 * r
            for i in range(16):
                for e in range(2):
                    out[row][8 * i + 2 * t + e] = O[(w, lane)][4 * i + 2 * r + e] / red[lane]
            if t == 0:
                lse[row] = m[(w, lane)][r] * scale + math.log(red[lane])
err = 0.0; lerr = 0.0
for row in range(ROWS):
    sc = [sum(Q[row][x] * K[c][x] for x in range(D)) * scale for c in range(SK)]
    mx = max(sc); p = [math.exp(x - mx) for x in sc]; tot = sum(p)
    for col in range(D):
        ref = sum(p[c] * V[c][col] for c in range(SK)) / tot
        err = max(err, abs(ref - out[row][col]))
    lerr = max(lerr, abs(mx + math.log(tot) - lse[row]))
print(f"fragment model: max |O err| = {err:.3g}, max |LSE err| = {lerr:.3g}")
sys.exit(0 if err < 1e-9 and lerr < 1e-9 else 1)
