"""Task 1 (hidden): the parametric loss on other shapes and extreme scales."""

import numpy as np

from autograder.harness import graded
from scaling import ScalingParams, chinchilla_loss


def loss_cases(rng):
    return {"p": [float(rng.uniform(1.5, 2.0)), float(rng.uniform(200, 600)),
                  float(rng.uniform(200, 2500)), float(rng.uniform(0.25, 0.4)),
                  float(rng.uniform(0.25, 0.4))],
            "N": np.exp(rng.uniform(np.log(1e5), np.log(1e13), size=7)),
            "D": np.exp(rng.uniform(np.log(1e6), np.log(1e15), size=7))}


@graded(points=1, cases=loss_cases)
def test_chinchilla_loss_elementwise(rec, cases):
    v = cases["p"]
    p = ScalingParams(E=v[0], A=v[1], B=v[2], alpha=v[3], beta=v[4])
    rec.close("paired", np.asarray(chinchilla_loss(cases["N"], cases["D"], p), float), rtol=1e-12)
    rec.close("fixed_N", np.asarray(chinchilla_loss(float(cases["N"][0]), cases["D"], p), float),
              rtol=1e-12)
