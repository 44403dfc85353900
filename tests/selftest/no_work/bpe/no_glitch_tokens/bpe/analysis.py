# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""Tasks 4 and 5: what a vocabulary costs and what it wastes."""

import numpy as np
from scipy.optimize import linprog

from .tokenizer import Tokenizer


def bytes_per_token(tokenizer: Tokenizer, text: str) -> float:
    """UTF-8 bytes of `text` divided by the number of tokens it encodes to (text not empty)."""
    ### BEGIN SOLUTION
    return len(text.encode("utf-8")) / len(tokenizer.encode(text))
    ### END SOLUTION


def attention_flops(seq_len: int, d_model: int, n_layers: int) -> int:
    """Forward FLOPs of attention's two seq x seq matmuls, QK^T and A.V, at 2 FLOPs per
    multiply-add, over all layers: 4 * seq_len**2 * d_model * n_layers."""
    ### BEGIN SOLUTION
    return 4 * seq_len**2 * d_model * n_layers
    ### END SOLUTION


def unused_tokens(tokenizer: Tokenizer, text: str) -> set[int]:
    """Every id of the tokenizer's vocabulary (single bytes, merges and special tokens)
    that is never emitted when encoding `text`: the glitch-token candidates."""
    return set()


def unreachable_tokens(W_U: np.ndarray) -> list[int]:
    """Sorted indices of the rows of W_U (shape (vocab, d_model)) that can never be the
    STRICT argmax of W_U @ h, for any hidden state h.

    Row i is unreachable exactly when it lies in the closed convex hull of the other rows
    (interior, boundary and duplicates included; tolerance 1e-9). Decide it with a linear
    program per row (scipy.optimize.linprog).
    """
    return []
