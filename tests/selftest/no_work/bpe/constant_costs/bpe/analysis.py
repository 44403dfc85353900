# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""Tasks 4 and 5: what a vocabulary costs and what it wastes."""

import numpy as np
from scipy.optimize import linprog

from .tokenizer import Tokenizer


def bytes_per_token(tokenizer: Tokenizer, text: str) -> float:
    """UTF-8 bytes of `text` divided by the number of tokens it encodes to (text not empty)."""
    return 1.0


def attention_flops(seq_len: int, d_model: int, n_layers: int) -> int:
    """Forward FLOPs of attention's two seq x seq matmuls, QK^T and A.V, at 2 FLOPs per
    multiply-add, over all layers: 4 * seq_len**2 * d_model * n_layers."""
    return 0


def unused_tokens(tokenizer: Tokenizer, text: str) -> set[int]:
    """Every id of the tokenizer's vocabulary (single bytes, merges and special tokens)
    that is never emitted when encoding `text`: the glitch-token candidates."""
    ### BEGIN SOLUTION
    return set(tokenizer.vocab) - set(tokenizer.encode(text))
    ### END SOLUTION


def unreachable_tokens(W_U: np.ndarray) -> list[int]:
    """Sorted indices of the rows of W_U (shape (vocab, d_model)) that can never be the
    STRICT argmax of W_U @ h, for any hidden state h.

    Row i is unreachable exactly when it lies in the closed convex hull of the other rows
    (interior, boundary and duplicates included; tolerance 1e-9). Decide it with a linear
    program per row (scipy.optimize.linprog).
    """
    ### BEGIN SOLUTION
    # For each row, solve the LP  min t  s.t.  |sum_j lam_j w_j - w_i| <= t (elementwise),
    # lam >= 0, sum lam = 1 over the other rows j; the row is unreachable when t <= tol.
    tol = 1e-9
    W = np.asarray(W_U, dtype=float)
    n, d = W.shape
    out = []
    for i in range(n):
        others = W[np.arange(n) != i]
        if len(others) == 0:
            continue
        m = len(others)
        c = np.r_[np.zeros(m), 1.0]  # variables: lam (m), t
        # others.T @ lam - t <= w_i  and  -others.T @ lam - t <= -w_i
        A_ub = np.block([[others.T, -np.ones((d, 1))], [-others.T, -np.ones((d, 1))]])
        b_ub = np.r_[W[i], -W[i]]
        A_eq = np.r_[np.ones(m), 0.0][None, :]
        res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=(0, None))
        if res.status == 0 and res.fun <= tol:
            out.append(i)
    return out
    ### END SOLUTION
