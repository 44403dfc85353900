"""Task 5: inference-aware sizing (Sardana et al., 2023): minimize 6 N D_train + 2 N D_inf on the
curve L(N, D_train) = target. With D_inf = 0 it is the Chinchilla point for that loss; the more
tokens the model will serve, the smaller and longer-trained it should be."""

import numpy as np
from common import CHINCHILLA, params, random_law

from autograder.harness import graded
from scaling import inference_optimal


def inference_cases(rng):
    out = []
    random = random_law(rng, E=(1.6, 1.9), A=(300, 500), B=(300, 2000), alpha=(0.3, 0.38), beta=(0.26, 0.38))
    for p in [CHINCHILLA, random]:
        for target in p[0] + np.array([0.15, 0.3]) * rng.uniform(0.9, 1.1):
            for d_inf in [0.0, 1e11, 1e13]:
                out.append({"p": p, "target": float(target), "d_inf": d_inf * rng.uniform(1, 3)})
    return out


@graded(points=3, cases=inference_cases)
def test_inference_optimal(rec, cases):
    for i, c in enumerate(cases):
        N, D = inference_optimal(c["target"], c["d_inf"], params(c["p"]))
        rec.close(f"N_D[{i}]", [float(N), float(D)], rtol=1e-5)


def at_e_cases(rng):
    """A random law; targets at and below its E, and one just above it."""
    return {"p": random_law(rng, E=(1.6, 1.9), A=(300, 500), B=(300, 2000), alpha=(0.3, 0.38),
                            beta=(0.26, 0.38)),
            "below": float(rng.uniform(0.05, 0.3)), "above": float(rng.uniform(0.02, 0.05)),
            "d_inf": float(rng.uniform(1e11, 1e13))}


@graded(points=1, cases=at_e_cases)
def test_inference_target_not_above_E(rec, cases):
    """No model reaches a loss at or below E: ValueError; just above E there is an optimum."""
    p, E = params(cases["p"]), cases["p"][0]
    rec.raises("at_E", inference_optimal, E, cases["d_inf"], p)
    rec.raises("below_E", inference_optimal, E - cases["below"], 0.0, p)
    N, D = inference_optimal(E + cases["above"], cases["d_inf"], p)
    rec.close("just_above_E", [float(N), float(D)], rtol=1e-5)
