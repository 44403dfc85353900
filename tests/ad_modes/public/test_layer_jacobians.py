"""Task 4: the Jacobians of softmax and LayerNorm, their O(n) VJPs, and the structure they
share (a scaled identity minus low rank, with null vector 1).

Expected values are the reference solution's, cross-checked against torch.func.jacrev of
torch.softmax and torch.nn.functional.layer_norm by tests/ad_modes/crosscheck_torch.py.
"""

import numpy as np
from common import (
    record_layernorm_jacobians,
    record_layernorm_vjps,
    record_shared_structure,
    record_softmax,
    record_vjp_memory,
)

from autograder.harness import graded


def softmax_cases(rng):
    cases = [{"x": rng.normal(size=n) * 2, "g": rng.normal(size=n)} for n in (2, 4, 7)]
    big = np.array([800.0, 0.0, -5.0, 3.0])  # exp(800) overflows float64
    return cases + [{"x": big, "g": rng.normal(size=4)},
                    {"x": 1000.0 + rng.normal(size=5), "g": rng.normal(size=5)}]


@graded(points=3, cases=softmax_cases)
def test_softmax_jacobian_and_vjp(rec, cases):
    """diag(s) − s sᵀ and gᵀ J, also for logits where exp overflows."""
    record_softmax(rec, cases)


def layernorm_cases(rng):
    out = []
    for n, gamma, eps in [(5, False, None), (8, True, None), (3, True, 1e-3), (6, False, 0.5)]:
        out.append({"x": rng.normal(size=n) * 1.5 + 0.3, "g": rng.normal(size=n),
                    "gamma": rng.normal(size=n) if gamma else None, "eps": eps})
    out.append({"x": 2.0 + 1e-3 * rng.normal(size=4), "g": rng.normal(size=4),  # var ≈ eps
                "gamma": rng.normal(size=4), "eps": 1e-6})
    return out


@graded(points=4, cases=layernorm_cases)
def test_layernorm_jacobian(rec, cases):
    """diag(γ) · (1/σ)(I − 11ᵀ/n − x̂x̂ᵀ/n), biased variance, as F.layer_norm."""
    record_layernorm_jacobians(rec, cases)


@graded(points=3, cases=layernorm_cases)
def test_layernorm_vjp(rec, cases):
    """gᵀ J without J."""
    record_layernorm_vjps(rec, cases)


def structure_cases(rng):
    return [{"x": rng.normal(size=n) * 1.5} for n in (4, 9)]


@graded(points=2, cases=structure_cases)
def test_shared_structure(rec, cases):
    """J·1 = 0 for both; their spectra (scaled identity minus low rank)."""
    record_shared_structure(rec, cases)


def memory_cases(rng):
    n = 2048  # J would be 2048² float64 = 32 MiB
    return [{"x": rng.normal(size=n), "g": rng.normal(size=n), "gamma": rng.normal(size=n)}]


@graded(points=2, cases=memory_cases)
def test_vjp_memory(rec, cases):
    """At n = 2048 the VJPs stay far below n²/2 floats of memory (tracemalloc peak)."""
    record_vjp_memory(rec, cases)
