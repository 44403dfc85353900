"""Task 3 (hidden): the compute-optimal split on 2-D budget arrays and far-out budgets, checked
against the reference and against a numerical minimization; MoE FLOPs on a broadcast grid."""

import numpy as np
from common import params, random_law

from autograder.harness import graded
from scaling import compute_optimal, moe_training_flops


def optimal_cases(rng):
    out = []
    for _ in range(3):
        p = random_law(rng, A=(100, 1000), B=(100, 3000), alpha=(0.2, 0.5), beta=(0.2, 0.5))
        out.append({"p": p, "C": np.exp(rng.uniform(np.log(1e16), np.log(1e28), size=(2, 3)))})
    return out


@graded(points=2, cases=optimal_cases)
def test_compute_optimal_2d_budgets(rec, cases):
    for i, c in enumerate(cases):
        N, D = compute_optimal(c["C"], params(c["p"]))
        rec.close(f"N_opt[{i}]", np.asarray(N, float), rtol=1e-6)
        rec.close(f"D_opt[{i}]", np.asarray(D, float), rtol=1e-6)


def flat_cases(rng):
    return [{"p": c["p"], "C": c["C"].ravel()} for c in optimal_cases(rng)]


@graded(points=1, cases=flat_cases)
def test_compute_optimal_numeric_hidden(rec, cases):
    for i, c in enumerate(cases):
        N, D = compute_optimal(c["C"], params(c["p"]))
        rec.check(f"optimum[{i}]", np.asarray([N, D], float), check="is_compute_optimal")


def moe_cases(rng):
    return {"n_active": np.exp(rng.uniform(np.log(1e8), np.log(1e11), size=(3, 1))),
            "D": np.exp(rng.uniform(np.log(1e10), np.log(3e13), size=(1, 4)))}


@graded(points=1, cases=moe_cases)
def test_moe_training_flops_broadcast(rec, cases):
    rec.close("flops", np.asarray(moe_training_flops(cases["n_active"], cases["D"]), float),
              rtol=1e-6)  # a product of floats (active parameters x tokens): dtype free
