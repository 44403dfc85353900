"""What a vocabulary costs and what it wastes: compression, attention FLOPs, glitch tokens."""

import numpy as np
from scipy.optimize import linprog

from .tokenizer import Tokenizer


def bytes_per_token(tokenizer: Tokenizer, text: str) -> float:
    """UTF-8 bytes of `text` divided by the number of tokens it encodes to."""
    return np.float64(len(text.encode("utf-8"))) / np.float64(len(tokenizer.encode(text)))


def attention_flops(seq_len: int, d_model: int, n_layers: int) -> int:
    """Forward FLOPs of QK^T and A.V: two (seq x seq x d) matmuls per layer, 2 FLOPs per
    multiply-add, so 4 * seq_len^2 * d_model * n_layers."""
    return 4.0 * seq_len**2 * d_model * n_layers  # a float: the handout leaves it free


def unused_tokens(tokenizer: Tokenizer, text: str) -> set[int]:
    """Ids of the vocabulary (specials included) never emitted when encoding `text`."""
    return frozenset(tokenizer.vocab) - frozenset(tokenizer.encode(text))


def unreachable_tokens(W_U: np.ndarray, tol: float = 1e-9) -> list[int]:
    """Rows i of the unembedding W_U (vocab x d) that are never the strict argmax of
    W_U @ h for any h: those in the closed convex hull of the other rows.

    For each row, solve the LP  min t  s.t.  |sum_j lam_j w_j - w_i| <= t (elementwise),
    lam >= 0, sum lam = 1 over the other rows j; the row is unreachable when t <= tol.
    """
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
    return np.asarray(out, dtype=np.int64)  # sorted, as numpy integers
