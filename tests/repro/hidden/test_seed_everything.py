"""Task 1 (hidden) — seed_everything on other seeds, including neighbours and 2**32 - 1."""

import numpy as np
from common import record_reseeding

from autograder.harness import graded


def seed_pairs(rng: np.random.Generator) -> list:
    return [[7, 8], [2**32 - 1, 2**32 - 2], [1234, 4321],
            [int(rng.integers(2, 2**32)), int(rng.integers(2, 2**32))]]


@graded(points=3, cases=seed_pairs)
def test_same_seed_same_draws_hidden(rec, cases):
    for i, (seed, other) in enumerate(cases):
        record_reseeding(rec, i, seed, other)
