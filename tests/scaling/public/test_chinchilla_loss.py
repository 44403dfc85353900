"""Task 1: the parametric loss L(N, D) = E + A/N^alpha + B/D^beta, on scalars and broadcast
arrays."""

import numpy as np
from common import params, random_law

from autograder.harness import graded
from scaling import chinchilla_loss


def loss_cases(rng):
    out = []
    for _ in range(3):
        out.append({
            "p": random_law(rng),
            "N": np.exp(rng.uniform(np.log(1e7), np.log(1e12), size=(4, 1))),
            "D": np.exp(rng.uniform(np.log(1e9), np.log(1e13), size=(1, 3))),
        })
    return out


@graded(points=2, cases=loss_cases)
def test_chinchilla_loss(rec, cases):
    for i, c in enumerate(cases):
        p = params(c["p"])
        rec.close(f"grid[{i}]", np.asarray(chinchilla_loss(c["N"], c["D"], p), float), rtol=1e-6)
        rec.close(f"scalar[{i}]", float(chinchilla_loss(float(c["N"][0, 0]), float(c["D"][0, 0]), p)),
                  rtol=1e-6)  # a loss of order 2 whose dtype the contract leaves free
