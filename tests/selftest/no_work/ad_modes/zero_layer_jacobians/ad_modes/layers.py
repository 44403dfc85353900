"""The Jacobians of softmax and LayerNorm, and their VJPs in O(n) without forming J.

Both Jacobians are "a scaled identity minus low rank" with the all-ones vector in their null
space: softmax's is diag(s) − s sᵀ, LayerNorm's (1/σ)(I − 11ᵀ/n − x̂x̂ᵀ/n). So a VJP costs a few
dot products instead of an n × n matrix.
"""

from __future__ import annotations

import numpy as np


def softmax(x) -> np.ndarray:
    """exp(x) / sum(exp(x)) for a 1-D x, shifted by max(x) so exp never overflows."""
    ### BEGIN SOLUTION
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max())
    return e / e.sum()
    ### END SOLUTION


def softmax_jacobian(x) -> np.ndarray:
    """J[i, j] = ∂s_i/∂x_j = s_i (δ_ij − s_j), i.e. diag(s) − s sᵀ, for a 1-D x (n × n)."""
    ### BEGIN SOLUTION
    return np.zeros((np.size(x), np.size(x)))
    ### END SOLUTION


def softmax_vjp(x, g) -> np.ndarray:
    """gᵀ J for softmax at a 1-D x, in O(n): s ⊙ (g − g·s). J is never formed."""
    ### BEGIN SOLUTION
    return np.zeros(np.size(x))
    ### END SOLUTION


def standardize(x, eps: float) -> tuple[np.ndarray, float]:
    """(x̂, σ) for a 1-D x: x̂ = (x − mean) / σ, σ = √(var + eps), biased variance (÷ n), as
    torch.nn.functional.layer_norm."""
    ### BEGIN SOLUTION
    x = np.asarray(x, dtype=np.float64)
    centered = x - x.mean()
    sigma = float(np.sqrt(np.mean(centered**2) + eps))
    return centered / sigma, sigma
    ### END SOLUTION


def layernorm_jacobian(x, gamma=None, eps: float = 1e-5) -> np.ndarray:
    """J[i, j] = ∂y_i/∂x_j of y = γ ⊙ x̂ (+ β) for a 1-D x of size n:
    diag(γ) · (1/σ)(I − 11ᵀ/n − x̂x̂ᵀ/n); γ = None means γ = 1. Shape (n, n)."""
    ### BEGIN SOLUTION
    return np.zeros((np.size(x), np.size(x)))
    xhat, sigma = standardize(x, eps)
    n = xhat.size
    jac = (np.eye(n) - 1.0 / n - np.outer(xhat, xhat) / n) / sigma
    if gamma is not None:
        jac = np.asarray(gamma, dtype=np.float64)[:, None] * jac  # γ scales outputs: rows
    return jac
    ### END SOLUTION


def layernorm_vjp(x, g, gamma=None, eps: float = 1e-5) -> np.ndarray:
    """gᵀ J for LayerNorm at a 1-D x, in O(n) time and memory (J is never formed):
    with h = γ ⊙ g, the result is (1/σ)(h − mean(h) − x̂ · mean(h ⊙ x̂))."""
    ### BEGIN SOLUTION
    return np.zeros(np.size(x))
    xhat, sigma = standardize(x, eps)
    h = np.asarray(g, dtype=np.float64)
    if gamma is not None:
        h = h * np.asarray(gamma, dtype=np.float64)  # γ acts on the outputs, first in reverse
    return (h - h.mean() - xhat * np.mean(h * xhat)) / sigma
    ### END SOLUTION
