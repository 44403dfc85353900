"""Task 3: the compute-optimal split under C = 6ND (closed form), and MoE training FLOPs.

The closed form is compared with the reference; independently, a trusted check minimizes
L(N, C / 6N) numerically (scipy, in the grader) and requires the same optimum.
"""

import numpy as np
from common import CHINCHILLA, EPOCH, params, random_law

from autograder.harness import graded
from scaling import compute_optimal, moe_training_flops


def optimal_cases(rng):
    random = [random_law(rng) for _ in range(2)]
    budgets = np.sort(np.exp(rng.uniform(np.log(1e18), np.log(1e26), size=5)))
    return [{"p": p, "C": budgets} for p in [CHINCHILLA, EPOCH, *random]]


@graded(points=3, cases=optimal_cases)
def test_compute_optimal_closed_form(rec, cases):
    for i, c in enumerate(cases):
        N, D = compute_optimal(c["C"], params(c["p"]))
        rec.close(f"N_opt[{i}]", np.asarray(N, float), rtol=1e-6)
        rec.close(f"D_opt[{i}]", np.asarray(D, float), rtol=1e-6)
        N0, D0 = compute_optimal(float(c["C"][0]), params(c["p"]))
        rec.close(f"scalar[{i}]", [float(N0), float(D0)], rtol=1e-6)


@graded(points=2, cases=optimal_cases)
def test_compute_optimal_matches_numeric_minimum(rec, cases):
    for i, c in enumerate(cases):
        N, D = compute_optimal(c["C"], params(c["p"]))
        rec.check(f"optimum[{i}]", np.asarray([N, D], float), check="is_compute_optimal")


def moe_cases(rng):
    return {"n_active": np.array([12.9e9, 1.3e9, 37e9]) * rng.uniform(0.9, 1.1, size=3),
            "D": np.exp(rng.uniform(np.log(1e11), np.log(2e13), size=3))}


@graded(points=1, cases=moe_cases)
def test_moe_training_flops(rec, cases):
    rec.close("flops", np.asarray(moe_training_flops(cases["n_active"], cases["D"]), float),
              rtol=1e-6)  # a product of floats (active parameters x tokens): dtype free
    rec.close("scalar", float(moe_training_flops(float(cases["n_active"][0]), float(cases["D"][0]))),
              rtol=1e-6)
