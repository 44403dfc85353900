"""Task 3 (hidden) — fingerprint on other tensors: NaN payloads, training steps, buffers."""

import copy

import numpy as np
import torch
from common import flip_bit, record_digest_pair, tiny_model

from autograder.harness import graded


def tensors(rng: np.random.Generator) -> dict:
    return {"x": rng.normal(size=(3, 5)).astype(np.float32), "y": rng.normal(size=(2, 2, 3)),
            "elements": [int(e) for e in rng.integers(0, 15, size=4)],
            "bits": [0, 3, 12, 23], "model_seed": int(rng.integers(0, 1000))}


@graded(points=3, cases=tensors)
def test_fingerprint_hidden(rec, cases):
    x, y = torch.from_numpy(cases["x"]), torch.from_numpy(cases["y"])
    for k, (element, bit) in enumerate(zip(cases["elements"], cases["bits"])):
        record_digest_pair(rec, f"x bit {k}", [y, x], [y, flip_bit(x, element, bit)])
    nan = torch.tensor([float("nan")], dtype=torch.float64)
    record_digest_pair(rec, "two NaN payloads", [nan], [flip_bit(nan, 0, 0)])
    record_digest_pair(rec, "y vs its permuted view's copy", [y.permute(2, 0, 1)],
                       [y.permute(2, 0, 1).contiguous()])
    record_digest_pair(rec, "y[1] view vs y", [y[1]], [y])
    model = tiny_model(cases["model_seed"])
    trained = copy.deepcopy(model)
    opt = torch.optim.SGD(trained.parameters(), lr=1e-6)
    trained(torch.ones(4, 4)).sum().backward()
    opt.step()
    record_digest_pair(rec, "model before vs after a tiny SGD step", model, trained)
    record_digest_pair(rec, "two models from one seed", tiny_model(cases["model_seed"] + 1),
                       tiny_model(cases["model_seed"] + 1))
