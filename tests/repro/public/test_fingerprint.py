"""Task 3 — fingerprint: equal digests exactly when the bits are equal."""

import copy

import numpy as np
import torch
from common import flip_bit, record_digest_pair, tiny_model

from autograder.harness import graded


def tensors(rng: np.random.Generator) -> dict:
    return {"x": rng.normal(size=(4, 6)).astype(np.float32),
            "y": rng.normal(size=(5,)),  # float64
            "element": int(rng.integers(0, 24)), "bits": [0, 1, 22, 30],
            "model_seed": int(rng.integers(0, 1000))}


@graded(points=2, cases=tensors)
def test_equal_bits_equal_digest(rec, cases):
    """A copy, a tensor in another storage, and the same list twice give the same digest."""
    x, y = torch.from_numpy(cases["x"]), torch.from_numpy(cases["y"])
    record_digest_pair(rec, "copy", [x, y], [x.clone(), y.clone()])
    record_digest_pair(rec, "same list twice", [x, y], [x, y])
    model = tiny_model(cases["model_seed"])
    record_digest_pair(rec, "model and its deep copy", model, copy.deepcopy(model))
    record_digest_pair(rec, "model rebuilt from its seed", model, tiny_model(cases["model_seed"]))
    weight = model[0].weight  # a Parameter (requires grad) and a plain copy of its values
    record_digest_pair(rec, "parameter vs a plain copy", [weight], [weight.detach().clone()])
    record_digest_pair(rec, "result of an op vs its values", [weight * 1.0], [weight.detach().clone()])


@graded(points=3, cases=tensors)
def test_any_flipped_bit_changes_digest(rec, cases):
    """One flipped bit anywhere — the lowest mantissa bit too — 0.0 vs -0.0, and a 1-ulp step
    of one parameter give another digest."""
    x, y = torch.from_numpy(cases["x"]), torch.from_numpy(cases["y"])
    for k, bit in enumerate(cases["bits"]):
        record_digest_pair(rec, f"x bit {k}", [x, y], [flip_bit(x, cases["element"], bit), y])
    record_digest_pair(rec, "y lowest bit", [x, y], [x, flip_bit(y, 3, 0)])
    record_digest_pair(rec, "0.0 vs -0.0", [torch.zeros(3)], [-torch.zeros(3)])
    model = tiny_model(cases["model_seed"])
    stepped = copy.deepcopy(model)
    with torch.no_grad():
        w = stepped[0].weight
        w[1, 2] = torch.nextafter(w[1, 2], torch.tensor(float("inf")))
    record_digest_pair(rec, "model, one weight 1 ulp up", model, stepped)


@graded(points=2, cases=tensors)
def test_dtype_and_shape_count(rec, cases):
    """The same bytes as another dtype or another shape give another digest."""
    x = torch.from_numpy(cases["x"])
    record_digest_pair(rec, "float32 vs the same bytes as int32", [x], [x.view(torch.int32)])
    record_digest_pair(rec, "(4, 6) vs (6, 4)", [x], [x.reshape(6, 4)])
    record_digest_pair(rec, "[(4, 6)] vs [(2, 6), (2, 6)]", [x], [x[:2], x[2:]])


@graded(points=2, cases=tensors)
def test_views_hash_their_elements(rec, cases):
    """A view hashes like its contiguous copy, never like the rest of its storage."""
    x = torch.from_numpy(cases["x"])
    record_digest_pair(rec, "transposed view vs copy", [x.T], [x.T.contiguous()])
    record_digest_pair(rec, "strided slice vs copy", [x[:, ::2]], [x[:, ::2].clone()])
    record_digest_pair(rec, "first rows vs whole tensor", [x[:2]], [x.clone()])
    record_digest_pair(rec, "transposed view vs untransposed", [x.T.contiguous()], [x])
