"""Task 2 (hidden) — ShardedSampler over many (length, replicas, shuffle, drop_last, seed, epoch)."""

import numpy as np
from common import label, reads_per_index, shards

from autograder.harness import graded
from ddp import ShardedSampler


def many_cases(rng: np.random.Generator) -> list:
    cases = [  # fewer samples than ranks, exact multiples, one short of a multiple
        {"n": 1, "replicas": 4, "shuffle": True, "seed": 3, "drop_last": False, "epoch": 2},
        {"n": 3, "replicas": 8, "shuffle": True, "seed": 0, "drop_last": False, "epoch": 0},
        {"n": 3, "replicas": 8, "shuffle": True, "seed": 0, "drop_last": True, "epoch": 0},
        {"n": 24, "replicas": 8, "shuffle": True, "seed": 11, "drop_last": True, "epoch": 1},
        {"n": 23, "replicas": 8, "shuffle": True, "seed": 11, "drop_last": True, "epoch": 1},
        {"n": 23, "replicas": 8, "shuffle": False, "seed": 11, "drop_last": False, "epoch": 4},
    ]
    for _ in range(24):
        cases.append({"n": int(rng.integers(1, 120)), "replicas": int(rng.integers(1, 9)),
                      "shuffle": bool(rng.random() < 0.8), "seed": int(rng.integers(0, 2**31)),
                      "drop_last": bool(rng.integers(0, 2)), "epoch": int(rng.integers(0, 100))})
    return cases


@graded(points=4, cases=many_cases)
def test_matches_distributed_sampler_many(rec, cases):
    for i, c in enumerate(cases):
        for rank, indices in enumerate(shards(c)):
            rec.exact(f"case[{i}] {label(c)} rank {rank}: indices", indices)
        s = ShardedSampler(c["n"], c["replicas"], c["replicas"] - 1, shuffle=c["shuffle"],
                           seed=c["seed"], drop_last=c["drop_last"])
        rec.exact(f"case[{i}] {label(c)}: len", len(s))


@graded(points=2, cases=many_cases)
def test_every_index_once_per_epoch_many(rec, cases):
    for i, c in enumerate(cases):
        rec.exact(f"case[{i}] {label(c)}: reads per index", reads_per_index(shards(c), c["n"]))


def epoch_cases(rng: np.random.Generator) -> list:
    return [{"n": int(rng.integers(10, 50)), "replicas": int(rng.integers(2, 6)),
             "seed": int(rng.integers(0, 10_000)), "epochs": [int(e) for e in rng.integers(0, 50, 4)]}
            for _ in range(4)]


@graded(points=2, cases=epoch_cases)
def test_set_epoch_on_every_rank(rec, cases):
    """Ranks that all call set_epoch(e) read disjoint strided shards of epoch e's one order;
    without shuffle the epoch changes nothing."""
    for i, c in enumerate(cases):
        for k, e in enumerate(c["epochs"]):
            per_rank = []
            for rank in range(c["replicas"]):
                s = ShardedSampler(c["n"], c["replicas"], rank, shuffle=True, seed=c["seed"])
                s.set_epoch(e)
                per_rank.append([int(j) for j in s])
            rec.exact(f"case[{i}] pass {k}, epoch {e}: shards", per_rank)
        s = ShardedSampler(c["n"], c["replicas"], 0, shuffle=False, seed=c["seed"])
        s.set_epoch(c["epochs"][0])
        rec.exact(f"case[{i}] no shuffle, epoch {c['epochs'][0]}", [int(j) for j in s])
