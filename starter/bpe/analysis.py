"""Tasks 4 and 5: what a vocabulary costs and what it wastes."""

import numpy as np
from scipy.optimize import linprog

from .tokenizer import Tokenizer


def bytes_per_token(tokenizer: Tokenizer, text: str) -> float:
    """UTF-8 bytes of `text` divided by the number of tokens it encodes to (text not empty)."""
    raise NotImplementedError


def attention_flops(seq_len: int, d_model: int, n_layers: int) -> int:
    """Forward FLOPs of attention's two seq x seq matmuls, QK^T and A.V, at 2 FLOPs per
    multiply-add, over all layers: 4 * seq_len**2 * d_model * n_layers."""
    raise NotImplementedError


def unused_tokens(tokenizer: Tokenizer, text: str) -> set[int]:
    """Every id of the tokenizer's vocabulary (single bytes, merges and special tokens)
    that is never emitted when encoding `text`: the glitch-token candidates."""
    raise NotImplementedError


def unreachable_tokens(W_U: np.ndarray) -> list[int]:
    """Sorted indices of the rows of W_U (shape (vocab, d_model)) that can never be the
    STRICT argmax of W_U @ h, for any hidden state h.

    Row i is unreachable exactly when it lies in the closed convex hull of the other rows
    (interior, boundary and duplicates included; tolerance 1e-9). Decide it with a linear
    program per row (scipy.optimize.linprog).
    """
    raise NotImplementedError
