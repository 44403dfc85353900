"""Task 6 (hidden) — seed_study on other seed counts and values."""

import numpy as np
from common import record_random_study, record_table_study

from autograder.harness import graded


def table_cases(rng: np.random.Generator) -> list:
    cases = []
    for n in (3, 4, 6, 20):
        cases.append({"seeds": [int(s) for s in rng.permutation(50)[:n]],
                      "values": [float(v) for v in 3.0 + rng.gamma(2.0, 0.1, size=n)]})
    cases.append({"seeds": [1, 2], "values": [1.0, 1.0]})
    return cases


@graded(points=3, cases=table_cases)
def test_study_of_known_values_hidden(rec, cases):
    for i, c in enumerate(cases):
        record_table_study(rec, i, c)


def seed_lists(rng: np.random.Generator) -> list:
    """Repeated seeds (drawn), and the edge 2**31 among them."""
    a, b, c, d = (int(s) for s in rng.choice(2**31, 4, replace=False))
    return [[a, a, a, b], [c, 2**31, c, d, 2**31]]


@graded(points=2, cases=seed_lists)
def test_each_run_is_seeded_hidden(rec, cases):
    for i, seeds in enumerate(cases):
        record_random_study(rec, i, seeds)
