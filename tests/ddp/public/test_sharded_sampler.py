"""Task 2 — ShardedSampler: DistributedSampler's indices, every index once per epoch."""

import numpy as np
from common import clean_call, label, reads_per_index, shards

from autograder.harness import graded
from ddp import ShardedSampler


def sampler_cases(rng: np.random.Generator) -> list:
    """(length, replicas, shuffle, seed, drop_last, epoch), lengths not divisible included."""
    cases = [
        {"n": 10, "replicas": 2, "shuffle": False, "seed": 0, "drop_last": False, "epoch": 0},
        {"n": 10, "replicas": 3, "shuffle": False, "seed": 0, "drop_last": False, "epoch": 0},
        {"n": 10, "replicas": 3, "shuffle": False, "seed": 0, "drop_last": True, "epoch": 0},
        {"n": 2, "replicas": 5, "shuffle": False, "seed": 0, "drop_last": False, "epoch": 0},
    ]
    for _ in range(10):
        cases.append({"n": int(rng.integers(1, 40)), "replicas": int(rng.integers(1, 6)),
                      "shuffle": True, "seed": int(rng.integers(0, 10_000)),
                      "drop_last": bool(rng.integers(0, 2)), "epoch": int(rng.integers(0, 5))})
    return cases


@graded(points=4, cases=sampler_cases)
def test_matches_distributed_sampler(rec, cases):
    for i, c in enumerate(cases):
        for rank, indices in enumerate(shards(c)):
            rec.exact(f"case[{i}] {label(c)} rank {rank}: indices", indices)
            s = ShardedSampler(c["n"], c["replicas"], rank, shuffle=c["shuffle"], seed=c["seed"],
                               drop_last=c["drop_last"])
            rec.exact(f"case[{i}] {label(c)} rank {rank}: len", len(s))


@graded(points=2, cases=sampler_cases)
def test_every_index_once_per_epoch(rec, cases):
    """Times each index is read per epoch over all ranks: 1, or 2 for the few padded ones."""
    for i, c in enumerate(cases):
        rec.exact(f"case[{i}] {label(c)}: reads per index", reads_per_index(shards(c), c["n"]))


def epoch_cases(rng: np.random.Generator) -> list:
    return [{"n": int(rng.integers(8, 30)), "replicas": int(rng.integers(2, 5)),
             "seed": int(rng.integers(0, 10_000))} for _ in range(3)]


@graded(points=3, cases=epoch_cases)
def test_set_epoch_reshuffles(rec, cases):
    """A new order per epoch only with set_epoch; the same epoch gives the same order."""
    for i, c in enumerate(cases):
        s = ShardedSampler(c["n"], c["replicas"], 1, shuffle=True, seed=c["seed"])
        rec.exact(f"case[{i}] first pass", [int(j) for j in s])
        rec.exact(f"case[{i}] second pass, no set_epoch", [int(j) for j in s])
        for k, epoch in enumerate((1, 2, 1, 0)):
            s.set_epoch(epoch)
            rec.exact(f"case[{i}] step {k}: set_epoch({epoch})", [int(j) for j in s])


def bad_rank_cases(rng: np.random.Generator) -> list:
    """Ranks just past, far past and below the range of a drawn number of replicas."""
    n = [int(k) for k in rng.integers(2, 8, size=3)]
    return [{"rank": n[0], "replicas": n[0]}, {"rank": n[1] + int(rng.integers(1, 9)),
                                               "replicas": n[1]},
            {"rank": -int(rng.integers(1, 4)), "replicas": n[2]}]


@graded(points=1, cases=bad_rank_cases)
def test_bad_rank_raises_and_last_rank_gets_its_indices(rec, cases):
    """ValueError for a rank outside [0, num_replicas), and the right indices for the last
    valid rank (raising everywhere earns nothing); an empty dataset raises nothing and gives no
    index (as DistributedSampler)."""
    for i, c in enumerate(cases):
        rec.raises(f"[{i}] rank={c['rank']} of {c['replicas']}", clean_call, ShardedSampler, 10,
                   c["replicas"], c["rank"])
        last = clean_call(ShardedSampler, 10, c["replicas"], c["replicas"] - 1, False)
        rec.exact(f"[{i}] rank={c['replicas'] - 1} of {c['replicas']}", [int(j) for j in last])
    # an empty dataset is valid: DistributedSampler accepts it and every rank gets no index
    for drop_last in (False, True):
        name = f"ShardedSampler(0, 2, 1, drop_last={drop_last})"
        rec.raises(name, clean_call, ShardedSampler, 0, 2, 1, True, 0, drop_last)
        empty = clean_call(ShardedSampler, 0, 2, 1, True, 0, drop_last)
        rec.exact(f"{name}: indices", [int(j) for j in empty])
        rec.exact(f"{name}: len", len(empty))
