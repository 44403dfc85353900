"""The global batch: what one optimizer step sees, summed over accumulation and ranks."""


def _positive(**kwargs: int) -> None:
    for name, value in kwargs.items():
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")


def global_batch_size(micro_batch: int, grad_accum: int, dp: int) -> int:
    """Sequences per optimizer step: micro_batch per backward x grad_accum backwards x dp ranks."""
    _positive(micro_batch=micro_batch, grad_accum=grad_accum, dp=dp)
    return micro_batch * grad_accum * dp


def tokens_per_step(micro_batch: int, grad_accum: int, dp: int, seq_len: int) -> int:
    """Tokens per optimizer step: the global batch times the sequence length."""
    _positive(seq_len=seq_len)
    return global_batch_size(micro_batch, grad_accum, dp) * seq_len
