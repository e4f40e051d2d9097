#!/usr/bin/env python3
"""Protocol model of gpu/attn/attn_kernel.cuh (one CTA): the producer warp, two consumer
WarpGroups, the Q / K / V mbarriers with their parities, the named barriers (QueryEmpty, ping-pong)
and asynchronous TMA copies, run under many random interleavings. It checks what the GPU cannot
tell us before a run: no deadlock, and every GEMM reads the K / V stage that holds the block (and
tile) it expects, for both schedules, ragged block counts and several tiles per CTA. The sequence
of operations per role mirrors the kernel line by line; keep them in step.
Usage: pipeline_model.py [--seeds N]   (exit 1 on a violation)"""
import random
import sys

STAGES = 2


class MBarrier:
    """mbarrier: `count` arrivals plus transaction bytes complete a phase; try_wait(parity) is true
    once the phase with that parity has completed (a fresh barrier passes parity 1)."""

    def __init__(self, count):
        self.count, self.pending, self.tx, self.completed = count, count, 0, 0

    def _check(self):
        if self.pending == 0 and self.tx == 0:
            self.completed += 1
            self.pending = self.count

    def arrive(self, tx=0):
        self.tx += tx
        self.pending -= 1
        assert self.pending >= 0, "too many arrivals"
        self._check()

    def complete_tx(self, n):
        self.tx -= n
        self._check()

    def ready(self, parity):
        return (self.completed & 1) != parity


class NamedBarrier:
    """bar.arrive / bar.sync with a thread count: completes when `need` threads arrived."""

    def __init__(self, need):
        self.need, self.count, self.generation = need, 0, 0

    def arrive(self, n):
        self.count += n
        assert self.count <= self.need, "named barrier over-arrived"
        if self.count == self.need:
            self.count, self.generation = 0, self.generation + 1

    def sync(self, n):  # returns the generation to wait past
        gen = self.generation
        self.arrive(n)
        return gen


class Cta:
    def __init__(self, n_blocks, tiles, overlap, rng):
        self.n, self.tiles, self.overlap, self.rng = n_blocks, tiles, overlap, rng
        self.bar_q = MBarrier(1)
        self.k_full = [MBarrier(1) for _ in range(STAGES)]
        self.v_full = [MBarrier(1) for _ in range(STAGES)]
        self.k_empty = [MBarrier(2) for _ in range(STAGES)]
        self.v_empty = [MBarrier(2) for _ in range(STAGES)]
        self.query_empty = NamedBarrier(288)
        self.sched = [NamedBarrier(256), NamedBarrier(256)]
        self.smem = {("q", 0): None}
        for s in range(STAGES):
            self.smem[("k", s)] = self.smem[("v", s)] = None
        self.inflight = []  # (key, content, barrier, bytes)

    # TMA: the copy lands later; content becomes visible, then the barrier's tx completes.
    def tma(self, key, content, bar, nbytes):
        self.inflight.append((key, content, bar, nbytes))

    def land_one(self):
        i = self.rng.randrange(len(self.inflight))
        key, content, bar, nbytes = self.inflight.pop(i)
        self.smem[key] = content
        bar.complete_tx(nbytes)

    def expect(self, key, content, who):
        got = self.smem[key]
        if got != content:
            raise AssertionError(f"{who}: smem {key} holds {got}, expected {content}")


def wait_mbar(bar, parity):
    while not bar.ready(parity):
        yield "blocked"


def wait_named(nb, n):
    gen = nb.sync(n)
    while nb.generation == gen:
        yield "blocked"


def stage(it):
    return it % STAGES


def parity(it):
    return (it // STAGES) & 1


def producer(c):
    it = 0
    for t in range(c.tiles):
        def load(kind, it_x, blk):
            s = stage(it_x)
            empty = (c.v_empty if kind == "v" else c.k_empty)[s]
            full = (c.v_full if kind == "v" else c.k_full)[s]
            yield from wait_mbar(empty, parity(it_x) ^ 1)
            full.arrive(tx=2)
            c.tma((kind, s), (t, blk), full, 1)  # two boxes per stage
            c.tma((kind, s), (t, blk), full, 1)

        yield from load("k", it, c.n - 1)
        yield from wait_named(c.query_empty, 32)
        c.bar_q.arrive(tx=2)
        c.tma(("q", 0), t, c.bar_q, 1)
        c.tma(("q", 0), t, c.bar_q, 1)
        for j in range(c.n - 2, -1, -1):
            it_j = it + (c.n - 1 - j)
            yield from load("k", it_j, j)
            yield from load("v", it_j - 1, j + 1)
        yield from load("v", it + c.n - 1, 0)
        it += c.n
        yield "step"


def consumer(c, wg):
    own, other = c.sched[wg], c.sched[1 - wg]
    c.query_empty.arrive(128)
    if wg == 0:
        c.sched[0].arrive(128)
    it = 0
    for t in range(c.tiles):
        who = f"WG{wg + 1} tile {t}"
        yield from wait_mbar(c.bar_q, t & 1)
        c.expect(("q", 0), t, who)

        def qk(it_x, blk):
            c.expect(("q", 0), t, who)
            c.expect(("k", stage(it_x)), (t, blk), who + f" QK({blk})")

        def pv(it_x, blk):
            c.expect(("v", stage(it_x)), (t, blk), who + f" PV({blk})")

        if c.overlap:
            it0 = it
            yield from wait_mbar(c.k_full[stage(it0)], parity(it0))
            qk(it0, c.n - 1)
            yield "step"  # wait_group 0
            qk(it0, c.n - 1)  # still intact when released
            c.k_empty[stage(it0)].arrive()
            for j in range(c.n - 2, -1, -1):
                it_j = it + (c.n - 1 - j)
                it_v = it_j - 1
                if wg == 0:
                    yield from wait_mbar(c.k_full[stage(it_j)], parity(it_j))
                yield from wait_named(own, 128)
                qk(it_j, j)
                if wg == 0:
                    yield from wait_mbar(c.v_full[stage(it_v)], parity(it_v))
                pv(it_v, j + 1)
                other.arrive(128)
                yield "step"  # wait_group 1
                qk(it_j, j)
                c.k_empty[stage(it_j)].arrive()
                yield "step"  # softmax, wait_group 0
                pv(it_v, j + 1)
                c.v_empty[stage(it_v)].arrive()
            c.query_empty.arrive(128)
            it_last = it + c.n - 1
            yield from wait_mbar(c.v_full[stage(it_last)], parity(it_last))
            pv(it_last, 0)
            yield "step"
            pv(it_last, 0)
            c.v_empty[stage(it_last)].arrive()
        else:
            yield from wait_named(own, 128)
            for j in range(c.n - 1, -1, -1):
                it_j = it + (c.n - 1 - j)
                yield from wait_mbar(c.k_full[stage(it_j)], parity(it_j))
                qk(it_j, j)
                other.arrive(128)
                yield "step"
                qk(it_j, j)
                c.k_empty[stage(it_j)].arrive()
                yield from wait_mbar(c.v_full[stage(it_j)], parity(it_j))
                yield from wait_named(own, 128)
                pv(it_j, j)
                yield "step"
                pv(it_j, j)
                c.v_empty[stage(it_j)].arrive()
            other.arrive(128)
            c.query_empty.arrive(128)
        it += c.n
        yield "step"  # epilogue


def run(n_blocks, tiles, overlap, seed):
    rng = random.Random(seed)
    c = Cta(n_blocks, tiles, overlap, rng)
    roles = {"producer": producer(c), "wg1": consumer(c, 0), "wg2": consumer(c, 1)}
    blocked_rounds = 0
    while roles or c.inflight:
        choices = list(roles) + (["tma"] if c.inflight else [])
        pick = rng.choice(choices)
        if pick == "tma":
            c.land_one()
            blocked_rounds = 0
            continue
        try:
            r = next(roles[pick])
            blocked_rounds = blocked_rounds + 1 if r == "blocked" else 0
        except StopIteration:
            del roles[pick]
            blocked_rounds = 0
        if blocked_rounds > 2000 and not c.inflight:
            raise AssertionError(f"deadlock: {sorted(roles)} blocked")


def main():
    seeds = int(sys.argv[sys.argv.index("--seeds") + 1]) if "--seeds" in sys.argv else 40
    cases = 0
    for overlap in (True, False):
        for n_blocks in (1, 2, 3, 5):
            for tiles in (1, 2, 3):
                for seed in range(seeds):
                    try:
                        run(n_blocks, tiles, overlap, seed)
                    except AssertionError as e:
                        print(f"FAIL overlap={overlap} n_blocks={n_blocks} tiles={tiles} seed={seed}: {e}")
                        return 1
                    cases += 1
    print(f"pipeline model: {cases} interleavings, no deadlock, every GEMM read the right stage")
    return 0


if __name__ == "__main__":
    sys.exit(main())
