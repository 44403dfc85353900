"""Task 2 — deterministic_mode: every flag on inside, every prior setting back on exit."""

import numpy as np
from common import prior_states, record_after, record_inside, record_strictness

from autograder.harness import graded


def states(rng: np.random.Generator) -> list:
    return prior_states(rng, 6)


def inside_cases(rng: np.random.Generator) -> dict:
    """Six prior states, each entered twice, on and off in a drawn pattern (both at least once)."""
    enabled = [True, False, *(bool(b) for b in rng.integers(0, 2, size=10))]
    return {"priors": prior_states(rng, 6), "enabled": [enabled[i] for i in rng.permutation(12)]}


@graded(points=3, cases=inside_cases)
def test_settings_inside(rec, cases):
    """Inside deterministic_mode(): deterministic algorithms on and strict (warn_only False),
    cuDNN deterministic and not benchmarking, CUBLAS_WORKSPACE_CONFIG ":4096:8" or ":16:8";
    inside deterministic_mode(False): deterministic algorithms and cuDNN determinism off."""
    for k, enabled in enumerate(cases["enabled"]):
        record_inside(rec, k, cases["priors"][k // 2], enabled)


@graded(points=3, cases=states)
def test_restores_prior_state(rec, cases):
    """After the block, every setting is what it was before — warn_only and an unset
    CUBLAS_WORKSPACE_CONFIG included."""
    for i, prior in enumerate(cases):
        record_after(rec, 2 * i, prior, True, body_raises=False)
        record_after(rec, 2 * i + 1, prior, False, body_raises=False)


@graded(points=2, cases=states)
def test_restores_when_body_raises(rec, cases):
    """An exception in the body propagates, and the prior state is still restored."""
    for i, prior in enumerate(cases):
        record_after(rec, i, prior, True, body_raises=True)


def strictness_states(rng: np.random.Generator) -> list:
    # a dozen prior states: whether the op raises after both blocks is one bit of each, so
    # that the answers of one input set are no answer to another
    return prior_states(rng, 12)


@graded(points=2, cases=strictness_states)
def test_op_without_deterministic_kernel_raises(rec, cases):
    """Tensor.put_ (no deterministic kernel) raises RuntimeError inside deterministic_mode(),
    runs inside deterministic_mode(False), and behaves as before once both are left."""
    for i, prior in enumerate(cases):
        record_strictness(rec, i, prior)
