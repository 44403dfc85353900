"""Task 7 (hidden) — Welch's t-test on other groups, and significance near the threshold."""

import numpy as np
from common import record_significance, record_welch

from autograder.harness import graded


def cases_(rng: np.random.Generator) -> list:
    cases = []
    for _ in range(6):
        na, nb = int(rng.integers(2, 5)), int(rng.integers(15, 60))
        cases.append({"a": [float(x) for x in rng.exponential(2.0, size=na)],
                      "b": [float(x) for x in 1.0 + 0.3 * rng.normal(size=nb)]})
    cases.append({"a": [3.0, 3.0], "b": [1.0, 1.0, 1.0]})  # +inf, 0
    cases.append({"a": [1.0, 2.0], "b": [1.0, 2.0]})
    return cases


@graded(points=3, cases=cases_)
def test_welch_hidden(rec, cases):
    for i, c in enumerate(cases):
        record_welch(rec, i, c)


def significance_cases(rng: np.random.Generator) -> list:
    out = []
    for _ in range(6):  # a small noisy group against a large tight one: pooling shrinks a's noise
        a = [float(x) for x in 1.5 + 2.0 * rng.normal(size=3)]
        b = [float(x) for x in 0.3 * rng.normal(size=25)]
        out.append({"a": a, "b": b, "alpha": float(rng.choice([0.05, 0.2]))})
    return out


@graded(points=2, cases=significance_cases)
def test_significantly_different_hidden(rec, cases):
    for i, c in enumerate(cases):
        record_significance(rec, i, c)
