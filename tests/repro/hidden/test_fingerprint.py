"""Task 3 (hidden) — fingerprint on other tensors: NaN payloads, training steps, buffers.

The pairs below (numbered from 0) and stored decoys are fingerprinted as one shuffled pool
(common.record_digests), judged against the solution's equal digests."""

import copy

import numpy as np
import torch
from common import decoy_arrays, flip_bit, record_digests, tiny_model

from autograder.harness import graded


def tensors(rng: np.random.Generator) -> dict:
    return {"x": rng.normal(size=(3, 5)).astype(np.float32), "y": rng.normal(size=(2, 2, 3)),
            "elements": [int(e) for e in rng.integers(0, 15, size=4)],
            "bits": [0, 3, 12, 23], "model_seed": int(rng.integers(0, 1000)),
            "decoys": decoy_arrays(rng), "order_seed": int(rng.integers(0, 2**31))}


@graded(points=3, cases=tensors)
def test_fingerprint_hidden(rec, cases):
    x, y = torch.from_numpy(cases["x"]), torch.from_numpy(cases["y"])
    nan = torch.tensor([float("nan")], dtype=torch.float64)
    model = tiny_model(cases["model_seed"])
    trained = copy.deepcopy(model)
    opt = torch.optim.SGD(trained.parameters(), lr=1e-6)
    trained(torch.ones(4, 4)).sum().backward()
    opt.step()
    record_digests(rec, [  # 0-3: one bit of x flipped
        *[([y, x], [y, flip_bit(x, element, bit)])
          for element, bit in zip(cases["elements"], cases["bits"])],
        ([nan], [flip_bit(nan, 0, 0)]),  # 4: two NaN payloads
        ([y.permute(2, 0, 1)], [y.permute(2, 0, 1).contiguous()]),  # 5: a permuted view's copy
        ([y[1]], [y]),  # 6: the y[1] view vs y
        (model, trained),  # 7: a model before vs after a tiny SGD step
        (tiny_model(cases["model_seed"] + 1), tiny_model(cases["model_seed"] + 1)),  # 8: one seed
    ], cases)
