"""The float-comparison policy (autograder/grading/float_policy.py): what another machine's
kernels change is allowed, what a bug changes is not, and the stored values of the course
prove the second for every mutant.

- Every stored mutant value is at least MARGIN allowances from its golden (all eight
  assignments, every store), so no correct answer computed on any machine is taken for a
  recorded bug, and the allowance is far tighter than the nearest bug.
- Every mutant that loses public points is still named by `check` when the student's values
  are the mutant's as another machine rounds them (each float of its wrong values moved by
  half the allowance): the replay of test_hints.py, with those values.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from autograder.assignments import VISIBILITIES, discover, load
from autograder.authoring import course_selftest
from autograder.grading import float_policy
from autograder.grading.float_policy import FLOAT32_ROUNDOFF, MARGIN, ULPS, excess, same_result
from autograder.grading.store import load_store
from autograder.harness.plaindata import decode, encode

ASSIGNMENTS = [a.name for a in discover()]


def test_another_summation_order_is_the_same_result():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(64, 300)).astype(np.float32), rng.normal(size=(300, 77)).astype(np.float32)
    product = a @ b
    # the exactly rounded product, and the 300 terms summed last to first in float32
    exact = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    backwards = np.zeros_like(product)
    for k in reversed(range(300)):
        backwards += np.outer(a[:, k], b[k])
    for other in (exact, backwards):
        assert not np.array_equal(other, product)
        assert same_result(other, product) and excess(other, product) < 0.25
    # the same result recorded as float64 (a float32 tensor converted) keeps float32's roundoff
    assert same_result(backwards.astype(np.float64), product.astype(np.float64))


def test_what_a_bug_changes_is_not():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 16))
    gelu = x * 0.5 * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    exact_gelu = x * 0.5 * (1 + np.vectorize(math.erf)(x / np.sqrt(2)))
    assert excess(gelu, exact_gelu) > MARGIN  # tanh-approximated GELU: a few 1e-4 off
    assert not same_result(x * (1 + 1e-6), x)  # float64 by nature: 1e-6 is far
    assert same_result(x * (1 + 1e-14), x)
    assert not same_result(np.float32(1.0) + np.float32(1e-4), np.float32(1.0))


def test_the_floor_follows_the_scale_of_the_values():
    # an element that cancels to near zero moves with the array's scale, not its own
    reference = np.array([1e3, 2e-5, -5e2])
    assert same_result(reference + np.array([0.0, 1e-11, 0.0]), reference)
    assert not same_result(reference + np.array([0.0, 1e-6, 0.0]), reference)
    # a table's columns each keep their own scale (compute 1e20 next to a loss of order 1)
    table = np.array([[6e17, 5.2e6, 6.13], [3e20, 8.4e7, 3.46]])
    moved = table.copy()
    moved[0, 2] *= 1 + 1e-6
    assert not same_result(moved, table)


def test_what_no_float_computation_made_is_compared_exactly():
    assert excess(3, 3) == 0 and excess(3, 4) == float("inf")
    assert excess("a", "a") == 0 and not same_result("a", "b")
    assert not same_result(np.arange(3), np.arange(3) + 1)
    assert not same_result(np.zeros(3), np.zeros(4)) and not same_result(np.zeros(3), np.zeros(3, int))
    assert not same_result({"a": 1.0}, {"b": 1.0}) and not same_result([1.0], [1.0, 2.0])
    assert not same_result(1, 1.0) and not same_result(True, 1)
    assert same_result([1.0, 2], [1.0 + 1e-15, 2]) and not same_result([1.0, 2], [1.0, 3])
    assert same_result(float("nan"), float("nan")) and not same_result(float("nan"), 1.0)
    assert same_result(np.array([np.inf, 1.0]), np.array([np.inf, 1.0]))
    assert not same_result(np.array([-np.inf, 1.0]), np.array([np.inf, 1.0]))


def mutant_distances(name: str) -> list[tuple[float, str]]:
    """(allowances from its golden, where) of every stored mutant value of `name` that a
    float computation made: `close` and `check` observations, but not the named checks the
    contract fixes bit for bit (checks.BITWISE_CHECKS) nor `exact` ones."""
    assignment = load(name)
    bitwise = getattr(assignment.checks, "BITWISE_CHECKS", ())
    found = []
    for store_name in VISIBILITIES:
        store = load_store(assignment, store_name)
        for mutant in store.mutants.values():
            for test_id, values in mutant.values.items():
                for obs, value in values.items():
                    spec = store.tests[test_id].observations[obs]
                    if spec.kind == "exact" or spec.check in bitwise:
                        continue
                    at_least = FLOAT32_ROUNDOFF if spec.kind == "check" else 0.0
                    found.append((excess(decode(value), decode(spec.expected), at_least),
                                  f"{store_name} {mutant.name} {test_id}/{obs}"))
    return found


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_every_mutant_value_is_far_from_its_golden(name):
    distances = mutant_distances(name)
    assert distances, f"{name} stores no mutant value to measure"
    near = sorted(d for d in distances if d[0] < MARGIN)
    assert not near, (f"{len(near)} stored mutant values lie within {MARGIN} allowances "
                      f"({ULPS} units of roundoff) of the golden: {near[:5]}")


def rounded_elsewhere(value, at_least: float):
    """Decoded plain data with each float moved by half of float_policy's allowance, up or
    down by the parity of its bits: the value as another machine's kernels might give it
    (equal values stay equal, as one machine computes one thing alike twice)."""
    if isinstance(value, float) or (isinstance(value, np.ndarray) and value.dtype.kind == "f"):
        arr = np.asarray(value)
        bits = arr.view(np.uint64 if arr.dtype.itemsize == 8 else np.uint32)
        signs = np.where(bits % 2 == 0, 1.0, -1.0)
        room = float_policy.allowance(arr, at_least) / 2
        moved = (arr.astype(np.float64) + signs * room).astype(arr.dtype)
        return float(moved) if isinstance(value, float) else moved
    if isinstance(value, list):
        if value and all(isinstance(x, float) for x in value):
            return rounded_elsewhere(np.array(value), at_least).tolist()
        return [rounded_elsewhere(v, at_least) for v in value]
    if isinstance(value, dict):
        return {k: rounded_elsewhere(v, at_least) for k, v in value.items()}
    return value


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_every_mutant_is_named_with_another_machines_rounding(name, monkeypatch):
    assignment = load(name)
    bitwise = getattr(assignment.checks, "BITWISE_CHECKS", ())
    replayed = course_selftest.replayed_record
    moved = []

    def elsewhere(store, test, mutant):
        record = replayed(store, test, mutant)
        wrong = mutant.values.get(test.id, {})
        for obs in record.obs:
            spec = test.observations[obs["name"]]
            if obs["name"] in wrong and spec.kind != "exact" and spec.check not in bitwise:
                at_least = FLOAT32_ROUNDOFF if spec.kind == "check" else 0.0
                value = rounded_elsewhere(decode(obs["value"]), at_least)
                moved.append(excess(value, decode(obs["value"]), at_least) > 0)
                obs["value"] = encode(value)
        return record

    monkeypatch.setattr(course_selftest, "replayed_record", elsewhere)
    problems, _ = course_selftest.public_hint_problems(assignment)
    assert not problems, "\n".join(problems)
    if name in ("minigrad", "ad_modes", "scaling", "ddp", "fusion"):
        assert any(moved), "no float value was moved: the test proves nothing here"
