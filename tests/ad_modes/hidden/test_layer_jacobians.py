"""Task 4 (hidden): softmax and LayerNorm Jacobians and VJPs on other inputs."""

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
    cases = [{"x": rng.normal(size=n) * 3, "g": rng.normal(size=n)} for n in (1, 3, 10)]
    return cases + [{"x": np.array([-750.0, 710.0, 709.0]), "g": rng.normal(size=3)}]


@graded(points=3, cases=softmax_cases)
def test_softmax_jacobian_and_vjp_hidden(rec, cases):
    record_softmax(rec, cases)


def layernorm_cases(rng):
    out = []
    for n, gamma, eps in [(2, True, None), (10, True, None), (7, False, 1e-2), (4, True, 2.0)]:
        out.append({"x": rng.normal(size=n) * 0.7 - 1.0, "g": rng.normal(size=n),
                    "gamma": rng.normal(size=n) if gamma else None, "eps": eps})
    return out


@graded(points=4, cases=layernorm_cases)
def test_layernorm_jacobian_hidden(rec, cases):
    record_layernorm_jacobians(rec, cases)


@graded(points=3, cases=layernorm_cases)
def test_layernorm_vjp_hidden(rec, cases):
    record_layernorm_vjps(rec, cases)


def structure_cases(rng):
    return [{"x": rng.normal(size=n) * 2.0 + 1.0} for n in (3, 12)]


@graded(points=2, cases=structure_cases)
def test_shared_structure_hidden(rec, cases):
    record_shared_structure(rec, cases)


def memory_cases(rng):
    n = 3000
    return [{"x": rng.normal(size=n) + 0.5, "g": rng.normal(size=n), "gamma": rng.normal(size=n)}]


@graded(points=2, cases=memory_cases)
def test_vjp_memory_hidden(rec, cases):
    record_vjp_memory(rec, cases)
