"""Task 1: order. Any order that sorts ascending is accepted (checks.py judges it)."""

import toy

from autograder.harness import graded


@graded(points=1, cases=lambda rng: rng.integers(0, 5, size=12).tolist())
def test_order(rec, cases):
    rec.check("order", toy.order(cases), check="sorts_ascending")
