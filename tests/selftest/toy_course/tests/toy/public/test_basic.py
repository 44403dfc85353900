"""Task 2: add and mean. Sums on stored pairs; the mean of nothing raises."""

import toy
from common import add_cases

from autograder.harness import graded


@graded(points=2, cases=add_cases)
def test_add(rec, cases):
    for i, (a, b) in enumerate(cases):
        rec.close(f"sum[{i}]", toy.add(a, b), atol=1e-12)


@graded(points=1, cases=lambda rng: rng.normal(size=3).tolist())
def test_mean_of_nothing(rec, cases):
    """The mean of nothing raises. Beside the verdict, the test records the stored value it ran
    with: a verdict alone is the same on every input set, and worth nothing in grade."""
    rec.raises("error", toy.mean, [])
    rec.close("stored", float(cases[0]), rtol=0.0)
