"""Task 7 — welch_t_test and significantly_different, against scipy.stats.ttest_ind(equal_var=False)."""

import numpy as np
from common import record_significance, record_welch

from autograder.harness import graded


def group(rng: np.random.Generator, n: int, mean: float, sd: float) -> list:
    return [float(x) for x in mean + sd * rng.normal(size=n)]


def unequal_cases(rng: np.random.Generator) -> list:
    """Unequal sizes AND unequal variances: where Welch and the pooled (Student) test differ."""
    cases = []
    for _ in range(8):
        na, nb = int(rng.integers(2, 8)), int(rng.integers(10, 40))
        cases.append({"a": group(rng, na, 1.0, float(rng.uniform(1, 4))),
                      "b": group(rng, nb, float(rng.uniform(0, 2)), float(rng.uniform(0.1, 0.6)))})
    return cases


def edge_cases(rng: np.random.Generator) -> list:
    same = group(rng, 6, 2.0, 0.3)
    return [
        {"a": same, "b": list(same)},                          # equal samples: t = 0, p = 1
        {"a": [1.5, 1.5, 1.5], "b": group(rng, 5, 1.0, 0.2)},  # one sample without spread
        {"a": [1.0, 1.0, 1.0], "b": [2.0, 2.0, 2.0, 2.0]},     # no spread, different means: -inf, 0
        {"a": [0.5, 0.5], "b": [0.5, 0.5, 0.5]},               # no spread, equal means: nan, nan
        {"a": group(rng, 2, 0.0, 1.0), "b": group(rng, 30, 0.5, 1.0)},
    ]


def significance_cases(rng: np.random.Generator) -> list:
    cases = []
    # Henderson et al.: two groups of 5 seeds of ONE algorithm that still "differ significantly"
    # (drawn until |t| > 3.5: with 5 + 5 values Welch's df >= 4, where t_{0.975} = 2.776)
    cases.append({"a": group(rng, 5, 1.0, 0.5), "b": group(rng, 5, 1.0, 0.5), "alpha": None})
    while len(cases) < 2:
        a, b = np.array(group(rng, 5, 1.0, 0.5)), np.array(group(rng, 5, 1.0, 0.5))
        t = (a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / 5 + b.var(ddof=1) / 5)
        if abs(t) > 3.5:
            cases.append({"a": a.tolist(), "b": b.tolist(), "alpha": None})
    for alpha in (0.01, 0.1, 0.5):
        cases.append({"a": group(rng, 4, 0.0, 1.0), "b": group(rng, 7, 1.0, 1.0), "alpha": alpha})
    cases.append({"a": [1.0, 1.0, 1.0], "b": [2.0, 2.0], "alpha": None})
    for clear in rng.integers(0, 2, size=6):  # clearly different (5 sd apart), or one group twice
        a = group(rng, int(rng.integers(3, 8)), 0.0, 1.0)
        b = group(rng, int(rng.integers(3, 8)), 5.0, 0.2) if clear else list(a)
        cases.append({"a": a, "b": b, "alpha": None})
    cases = [cases[i] for i in rng.permutation(len(cases))]
    cases.append({"a": [1.0, 1.0, 1.0], "b": [1.0, 1.0], "alpha": None})
    return cases


@graded(points=4, cases=unequal_cases)
def test_welch_unequal_sizes_and_variances(rec, cases):
    for i, c in enumerate(cases):
        record_welch(rec, i, c)


@graded(points=2, cases=edge_cases)
def test_welch_edge_cases(rec, cases):
    for i, c in enumerate(cases):
        record_welch(rec, i, c)


@graded(points=2, cases=significance_cases)
def test_significantly_different(rec, cases):
    for i, c in enumerate(cases):
        record_significance(rec, i, c)
