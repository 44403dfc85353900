"""Task 1 — seed_everything: one seed for every generator a run draws from."""

import numpy as np
from common import record_reseeding

from autograder.harness import graded


def seed_pairs(rng: np.random.Generator) -> list:
    return [[0, 1], [42, 43], [int(rng.integers(2, 2**31)), int(rng.integers(2, 2**31))]]


@graded(points=3, cases=seed_pairs)
def test_same_seed_same_draws(rec, cases):
    """After seed_everything(s), random, np.random and torch draw the same numbers whatever
    state they were in before; another seed draws other numbers."""
    for i, (seed, other) in enumerate(cases):
        record_reseeding(rec, i, seed, other)
