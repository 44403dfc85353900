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
    ### BEGIN SOLUTION
    # micro_batch per backward x grad_accum backwards x dp ranks.
    _positive(micro_batch=micro_batch, grad_accum=grad_accum, dp=dp)
    return micro_batch * grad_accum * dp
    ### END SOLUTION


def tokens_per_step(micro_batch: int, grad_accum: int, dp: int, seq_len: int) -> int:
    """Tokens per optimizer step (the global batch in tokens); seq_len: tokens per sequence.

    ValueError if any argument is <= 0. Llama 3 405B: tokens_per_step(32, 1, 64, 8192) is
    16,777,216 (the paper's "16M").
    """
    ### BEGIN SOLUTION
    _positive(seq_len=seq_len)
    return global_batch_size(micro_batch, grad_accum, dp) * seq_len
    ### END SOLUTION
