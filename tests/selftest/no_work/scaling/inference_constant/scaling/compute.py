# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""What to train: the compute-optimal split, inference-aware sizing, and MoE FLOPs."""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from .chinchilla import ScalingParams


def compute_optimal(C, p: ScalingParams):
    """(N_opt, D_opt) minimizing L(N, D) = E + A/N^alpha + B/D^beta subject to C = 6 N D.

    C: a float or an array of FLOP budgets; the outputs broadcast like C (float64 arrays, 0-d
    for a scalar C). Derive the closed form (handout, Task 3); no numerical search.
    """
    ### BEGIN SOLUTION
    # Substituting D = C / (6N) and setting dL/dN = 0 gives
    #     N_opt = G (C/6)^(beta / (alpha + beta)),  D_opt = G^-1 (C/6)^(alpha / (alpha + beta)),
    # with G = (alpha A / (beta B))^(1 / (alpha + beta)).
    C = np.asarray(C, dtype=float)
    s = p.alpha + p.beta
    G = (p.alpha * p.A / (p.beta * p.B)) ** (1 / s)
    return G * (C / 6) ** (p.beta / s), (C / 6) ** (p.alpha / s) / G
    ### END SOLUTION


def inference_optimal(loss_target: float, inference_tokens: float, p: ScalingParams):
    """(N, D_train) minimizing lifetime FLOPs 6 N D_train + 2 N D_inf subject to
    L(N, D_train) = loss_target (Sardana et al., 2023).

    inference_tokens: D_inf >= 0, tokens the model will serve over its lifetime.
    Returns two floats, relative precision 1e-6 or better.
    Raises ValueError when loss_target <= p.E (no finite model reaches it).
    """
    return 1e9, 2e10


def moe_training_flops(n_active, D):
    """Training FLOPs of a mixture-of-experts model trained on D tokens, n_active parameters
    used per token. Floats or arrays (broadcast)."""
    ### BEGIN SOLUTION
    # Each token passes through the active parameters only (shared layers plus the routed
    # experts); memory, not compute, pays for the total parameter count.
    return 6 * np.asarray(n_active, dtype=float) * np.asarray(D, dtype=float)
    ### END SOLUTION
