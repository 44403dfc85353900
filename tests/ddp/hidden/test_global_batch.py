"""Task 3 (hidden) — the global batch over many configurations."""

import numpy as np

from autograder.harness import graded
from ddp import global_batch_size, tokens_per_step


def many_cases(rng: np.random.Generator) -> list:
    return [{"micro_batch": int(rng.integers(1, 65)), "grad_accum": int(rng.integers(1, 33)),
             "dp": int(rng.integers(1, 4097)), "seq_len": int(rng.choice([1, 128, 4096, 131072]))}
            for _ in range(12)]


@graded(points=2, cases=many_cases)
def test_global_batch_many(rec, cases):
    for i, c in enumerate(cases):
        b, a, dp, t = c["micro_batch"], c["grad_accum"], c["dp"], c["seq_len"]
        rec.exact(f"case[{i}] global_batch_size({b}, {a}, {dp})",
                  global_batch_size(b, a, dp))
        rec.exact(f"case[{i}] tokens_per_step({b}, {a}, {dp}, {t})",
                  tokens_per_step(b, a, dp, t))
