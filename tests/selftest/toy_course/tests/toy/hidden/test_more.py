import toy

from autograder.harness import graded


@graded(points=3, cases=lambda rng: rng.normal(size=7))
def test_mean(rec, cases):
    rec.close("mean", toy.mean(list(cases)), rtol=1e-12)
