"""Task 2 (hidden) — deterministic_mode from other prior states, and nested blocks."""

import numpy as np
from common import global_state, isolated, prior_states, record_after, record_inside, set_global_state

from autograder.harness import graded
from repro import deterministic_mode


def states(rng: np.random.Generator) -> list:
    return prior_states(rng, 8)


@graded(points=2, cases=states)
def test_settings_inside_hidden(rec, cases):
    for i, prior in enumerate(cases):
        record_inside(rec, i, prior, bool(i % 2 == 0))


@graded(points=3, cases=states)
def test_restores_prior_state_hidden(rec, cases):
    for i, prior in enumerate(cases):
        record_after(rec, i, prior, bool(i % 2 == 0), body_raises=bool(i % 3 == 0))


@graded(points=2, cases=states)
def test_nested_blocks_restore_in_order(rec, cases):
    """deterministic_mode(False) inside deterministic_mode(True): each exit restores the
    state its own entry saw."""
    for i, prior in enumerate(cases[:4]):
        def body(i=i, prior=prior):
            set_global_state(prior)
            with deterministic_mode(True):
                with deterministic_mode(False):
                    pass
                middle = global_state()
            for key, value in middle.items():
                if key != "CUBLAS_WORKSPACE_CONFIG":
                    rec.exact(f"nested[{i}].between.{key}", value)
            for key, value in global_state().items():
                rec.exact(f"nested[{i}].after.{key}", value)
        isolated(body)
