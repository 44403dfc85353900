"""Task 3 — the global batch: sequences and tokens per optimizer step."""

import numpy as np
from common import clean_call, record_global_batch

from autograder.harness import graded
from ddp import global_batch_size, tokens_per_step


def batch_cases(rng: np.random.Generator) -> list:
    cases = [
        # Llama 3 405B, Table 4 of the paper: DP=64, 32 sequences per DP rank, 8,192 tokens.
        {"micro_batch": 32, "grad_accum": 1, "dp": 64, "seq_len": 8192},
        # ... and after doubling to DP=128 with 16 per DP rank: still 16M tokens per step.
        {"micro_batch": 16, "grad_accum": 1, "dp": 128, "seq_len": 8192},
    ]
    for _ in range(6):  # grad_accum > 1 everywhere here
        cases.append({"micro_batch": int(rng.integers(1, 17)), "grad_accum": int(rng.integers(2, 9)),
                      "dp": int(rng.integers(1, 257)), "seq_len": int(rng.choice([512, 2048, 4096]))})
    return cases


@graded(points=2, cases=batch_cases)
def test_global_batch_and_tokens(rec, cases):
    for i, c in enumerate(cases):
        record_global_batch(rec, i, c)


def bad_cases(rng: np.random.Generator) -> list:
    """A drawn valid (micro_batch, grad_accum, dp, seq_len), each argument made 0 and -1 in
    turn; the valid one last."""
    good = [int(rng.integers(1, 65)), int(rng.integers(1, 17)), int(rng.integers(1, 129)),
            int(rng.choice([512, 1024, 2048, 4096, 8192]))]
    cases = []
    for position in range(4):
        for bad in (0, -1):
            args = list(good)
            args[position] = bad
            cases.append(args)
    return cases + [good]


@graded(points=1, cases=bad_cases)
def test_rejects_non_positive(rec, cases):
    """ValueError for each non-positive argument, and the right sizes for the valid arguments
    they were edited from (raising everywhere earns nothing)."""
    *bad, good = cases
    for args in bad:
        rec.raises(f"tokens_per_step{tuple(args)}", clean_call, tokens_per_step, *args)
        if args[3] > 0:
            rec.raises(f"global_batch_size{tuple(args[:3])}", clean_call, global_batch_size,
                       *args[:3])
    record_global_batch(rec, "valid", dict(zip(("micro_batch", "grad_accum", "dp", "seq_len"),
                                               good)))
