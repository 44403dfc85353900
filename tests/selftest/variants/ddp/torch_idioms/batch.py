"""The global batch, with a ValueError subclass and numpy integers inside."""

import numpy as np


class BatchError(ValueError):
    pass


def _check(*values):
    if any(v < 1 for v in values):
        raise BatchError(f"all arguments must be positive, got {values}")


def global_batch_size(micro_batch, grad_accum, dp):
    _check(micro_batch, grad_accum, dp)
    return np.int64(micro_batch) * grad_accum * dp


def tokens_per_step(micro_batch, grad_accum, dp, seq_len):
    _check(micro_batch, grad_accum, dp, seq_len)
    return global_batch_size(micro_batch, grad_accum, dp) * np.int64(seq_len)
