import toy
from common import add_cases

from autograder.harness import graded


@graded(points=2, cases=add_cases)
def test_add(rec, cases):
    for i, (a, b) in enumerate(cases):
        rec.close(f"sum[{i}]", toy.add(a, b), atol=1e-12)


@graded(points=1)
def test_mean_of_nothing(rec):
    rec.raises("error", toy.mean, [])


@graded(points=1, cases=lambda rng: rng.integers(0, 5, size=12).tolist())
def test_order(rec, cases):
    rec.check("order", toy.order(cases), check="sorts_ascending")
