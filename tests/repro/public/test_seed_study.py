"""Task 6 — seed_study: mean, sample std and a t-based 95% interval over seeds."""

import numpy as np
from common import record_random_study, record_table_study

from autograder.harness import graded
from repro import seed_study


def table(seeds: list, values) -> dict:
    return {"seeds": [int(s) for s in seeds], "values": [float(v) for v in values]}


def table_cases(rng: np.random.Generator) -> list:
    return [
        table(range(5), 2.0 + 0.05 * rng.normal(size=5)),  # 5 seeds: t = 2.776, not 1.96
        table([11, 3], [0.31, 0.29]),                        # 2 seeds: t = 12.706
        table(range(100, 110), 1.0 + 0.2 * rng.standard_t(3, size=10)),
        table([5, 6, 7], [0.75, 0.75, 0.75]),                # no spread: the interval is a point
    ]


@graded(points=4, cases=table_cases)
def test_study_of_known_values(rec, cases):
    """train_fn(s) returns a stored value per seed: values in seed order, their mean, their
    sample std (ddof=1), and mean +- t_{0.975, n-1} * std / sqrt(n)."""
    for i, c in enumerate(cases):
        record_table_study(rec, i, c)


def seed_lists(rng: np.random.Generator) -> list:
    """A fixed list with repeats, then drawn seeds repeated in a drawn pattern."""
    pool = [int(s) for s in rng.choice(1000, size=int(rng.integers(3, 5)), replace=False)]
    pattern = [*pool, *(pool[int(k)] for k in rng.integers(0, len(pool), size=int(rng.integers(2, 6))))]
    return [[3, 8, 3, 8, 5], [pattern[k] for k in rng.permutation(len(pattern))]]


@graded(points=2, cases=seed_lists)
def test_each_run_is_seeded(rec, cases):
    """seed_everything(s) runs before each train_fn(s): a repeated seed repeats its value
    (whatever ran before it), different seeds give different values."""
    for i, seeds in enumerate(cases):
        record_random_study(rec, i, seeds)


def two_seeds(rng: np.random.Generator) -> list:
    return [table(rng.choice(1000, size=2, replace=False), rng.uniform(0.0, 2.0, size=2))]


@graded(points=1, cases=two_seeds)
def test_fewer_than_two_seeds(rec, cases):
    """ValueError for fewer than 2 seeds, and the right study of the smallest valid list (so
    raising everywhere earns nothing)."""
    rec.raises("one seed", seed_study, lambda s: 1.0, [7])
    rec.raises("no seed", seed_study, lambda s: 1.0, [])
    record_table_study(rec, 0, cases[0])
