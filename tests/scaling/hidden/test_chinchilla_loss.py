"""Task 1 (hidden): the parametric loss on other shapes and extreme scales."""

import numpy as np
from common import params, random_law

from autograder.harness import graded
from scaling import chinchilla_loss


def loss_cases(rng):
    return {"p": random_law(rng),
            "N": np.exp(rng.uniform(np.log(1e5), np.log(1e13), size=7)),
            "D": np.exp(rng.uniform(np.log(1e6), np.log(1e15), size=7))}


@graded(points=1, cases=loss_cases)
def test_chinchilla_loss_elementwise(rec, cases):
    p = params(cases["p"])
    rec.close("paired", np.asarray(chinchilla_loss(cases["N"], cases["D"], p), float), rtol=1e-6)
    rec.close("fixed_N", np.asarray(chinchilla_loss(float(cases["N"][0]), cases["D"], p), float),
              rtol=1e-6)  # dtype free
