# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""The global batch: what one optimizer step sees, summed over accumulation and ranks."""


def _positive(**kwargs: int) -> None:
    """A helper you may use (or delete): ValueError naming the first argument that is <= 0."""
    ### BEGIN SOLUTION
    for name, value in kwargs.items():
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")
    ### END SOLUTION


def global_batch_size(micro_batch: int, grad_accum: int, dp: int) -> int:
    """Sequences per optimizer step.

    micro_batch: sequences per forward/backward on one rank; grad_accum: backwards accumulated
    per optimizer step; dp: data-parallel ranks. ValueError if any argument is <= 0.
    """
    raise ValueError("no batch")


def tokens_per_step(micro_batch: int, grad_accum: int, dp: int, seq_len: int) -> int:
    """Tokens per optimizer step (the global batch in tokens); seq_len: tokens per sequence.

    ValueError if any argument is <= 0. Llama 3 405B: tokens_per_step(32, 1, 64, 8192) is
    16,777,216 (the paper's "16M").
    """
    raise ValueError("no batch")
