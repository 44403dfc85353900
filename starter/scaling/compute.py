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
    raise NotImplementedError


def inference_optimal(loss_target: float, inference_tokens: float, p: ScalingParams):
    """(N, D_train) minimizing lifetime FLOPs 6 N D_train + 2 N D_inf subject to
    L(N, D_train) = loss_target (Sardana et al., 2023).

    inference_tokens: D_inf >= 0, tokens the model will serve over its lifetime.
    Returns two floats, relative precision 1e-6 or better.
    Raises ValueError when loss_target <= p.E (no finite model reaches it).
    """
    raise NotImplementedError


def moe_training_flops(n_active, D):
    """Training FLOPs of a mixture-of-experts model trained on D tokens, n_active parameters
    used per token. Floats or arrays (broadcast)."""
    raise NotImplementedError
