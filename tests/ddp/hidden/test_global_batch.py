"""Task 3 (hidden) — the global batch over many configurations."""

import numpy as np
from common import record_global_batch

from autograder.harness import graded


def many_cases(rng: np.random.Generator) -> list:
    return [{"micro_batch": int(rng.integers(1, 65)), "grad_accum": int(rng.integers(1, 33)),
             "dp": int(rng.integers(1, 4097)), "seq_len": int(rng.choice([1, 128, 4096, 131072]))}
            for _ in range(12)]


@graded(points=2, cases=many_cases)
def test_global_batch_many(rec, cases):
    for i, c in enumerate(cases):
        record_global_batch(rec, i, c)
