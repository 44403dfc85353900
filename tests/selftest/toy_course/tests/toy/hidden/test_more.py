"""Task 2 (hidden): mean on stored lists."""

import toy
from common import mean_cases

from autograder.harness import graded


@graded(points=3, cases=mean_cases)
def test_mean(rec, cases):
    rec.close("mean", toy.mean(list(cases)), rtol=1e-12)

