"""Task 5 (hidden): inference-aware sizing for other laws (the Epoch AI refit), huge inference
demand, and targets close to E."""

from common import EPOCH, params

from autograder.harness import graded
from scaling import inference_optimal


def inference_cases(rng):
    out = []
    for target_gap in [0.05, 0.2, 0.6]:
        for d_inf in [0.0, 3e12, 1e15]:
            out.append({"p": EPOCH, "target": EPOCH[0] + target_gap * float(rng.uniform(0.9, 1.1)),
                        "d_inf": d_inf * float(rng.uniform(1, 2))})
    return out


@graded(points=2, cases=inference_cases)
def test_inference_optimal_hidden(rec, cases):
    for i, c in enumerate(cases):
        N, D = inference_optimal(c["target"], c["d_inf"], params(c["p"]))
        rec.close(f"N_D[{i}]", [float(N), float(D)], rtol=1e-5)


@graded(points=1)
def test_inference_target_not_above_E_hidden(rec, cases):
    p = params(EPOCH)
    rec.raises("at_E", inference_optimal, 1.82, 0.0, p)
    rec.raises("far_below_E", inference_optimal, 0.5, 1e9, p)
    rec.raises("just_above_E", inference_optimal, 1.9, 1e9, p)
