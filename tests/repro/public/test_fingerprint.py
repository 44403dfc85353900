"""Task 3 — fingerprint: equal digests exactly when the bits are equal.

Each test fingerprints a pool (common.record_digests): the pairs below, in order (pair p: its
first item, its second, and a bit copy of the first), then a dozen stored decoy tensors whose
equality is in their bits alone, in a shuffled order. The check compares which digests are equal
with the solution's; a failure names the pair (numbered from 0 in the test's list) or the decoy."""

import copy

import numpy as np
import torch
from common import decoy_arrays, flip_bit, record_digests, tiny_model

from autograder.harness import graded


def tensors(rng: np.random.Generator) -> dict:
    return {"x": rng.normal(size=(4, 6)).astype(np.float32),
            "y": rng.normal(size=(5,)),  # float64
            "element": int(rng.integers(0, 24)), "bits": [0, 1, 22, 30],
            "model_seed": int(rng.integers(0, 1000)),
            "decoys": decoy_arrays(rng), "order_seed": int(rng.integers(0, 2**31))}


@graded(points=2, cases=tensors)
def test_equal_bits_equal_digest(rec, cases):
    """A copy, a tensor in another storage, and the same list twice give the same digest."""
    x, y = torch.from_numpy(cases["x"]), torch.from_numpy(cases["y"])
    model = tiny_model(cases["model_seed"])
    weight = model[0].weight  # a Parameter (requires grad) and a plain copy of its values
    record_digests(rec, [
        ([x, y], [x.clone(), y.clone()]),  # 0: a copy
        ([x, y], [x, y]),  # 1: the same list twice
        (model, copy.deepcopy(model)),  # 2: a model and its deep copy
        (model, tiny_model(cases["model_seed"])),  # 3: a model rebuilt from its seed
        ([weight], [weight.detach().clone()]),  # 4: a parameter vs a plain copy
        ([weight * 1.0], [weight.detach().clone()]),  # 5: the result of an op vs its values
    ], cases)


@graded(points=3, cases=tensors)
def test_any_flipped_bit_changes_digest(rec, cases):
    """One flipped bit anywhere — the lowest mantissa bit too — 0.0 vs -0.0, and a 1-ulp step
    of one parameter give another digest."""
    x, y = torch.from_numpy(cases["x"]), torch.from_numpy(cases["y"])
    model = tiny_model(cases["model_seed"])
    stepped = copy.deepcopy(model)
    with torch.no_grad():
        w = stepped[0].weight
        w[1, 2] = torch.nextafter(w[1, 2], torch.tensor(float("inf")))
    record_digests(rec, [  # 0-3: bit cases["bits"][k] of x's element cases["element"] flipped
        *[([x, y], [flip_bit(x, cases["element"], bit), y]) for bit in cases["bits"]],
        ([x, y], [x, flip_bit(y, 3, 0)]),  # 4: the lowest bit of y[3]
        ([torch.zeros(3)], [-torch.zeros(3)]),  # 5: 0.0 vs -0.0
        (model, stepped),  # 6: a model, one weight 1 ulp up
    ], cases)


@graded(points=2, cases=tensors)
def test_dtype_and_shape_count(rec, cases):
    """The same bytes as another dtype or another shape give another digest."""
    x = torch.from_numpy(cases["x"])
    record_digests(rec, [
        ([x], [x.view(torch.int32)]),  # 0: float32 vs the same bytes as int32
        ([x], [x.reshape(6, 4)]),  # 1: (4, 6) vs (6, 4)
        ([x], [x[:2], x[2:]]),  # 2: [(4, 6)] vs [(2, 6), (2, 6)]
    ], cases)


@graded(points=2, cases=tensors)
def test_views_hash_their_elements(rec, cases):
    """A view hashes like its contiguous copy, never like the rest of its storage."""
    x = torch.from_numpy(cases["x"])
    record_digests(rec, [
        ([x.T], [x.T.contiguous()]),  # 0: a transposed view vs its copy
        ([x[:, ::2]], [x[:, ::2].clone()]),  # 1: a strided slice vs its copy
        ([x[:2]], [x.clone()]),  # 2: the first rows vs the whole tensor
        ([x.T.contiguous()], [x]),  # 3: transposed vs untransposed
    ], cases)
