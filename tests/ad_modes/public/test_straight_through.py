"""Task 5: gradients through round(): the straight-through estimator and fake quantization.

Expected values are the reference solution's, cross-checked by tests/ad_modes/crosscheck_torch.py
against torch.round with an identity backward (round_ste) and against
torch.fake_quantize_per_tensor_affine, values and gradients (fake_quantize), including both
sides of each clip boundary.
"""

import numpy as np
import torch  # noqa: F401 - imported at collection, so no test's time limit pays for it
from common import record_fake_quantize, record_round_ste

from ad_modes import fake_quantize, round_ste
from autograder.harness import graded


def round_cases(rng):
    ties = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51])
    out = []
    for dtype, x in (("float32", np.concatenate([ties, rng.uniform(-6, 6, 8)])),
                     ("float64", rng.normal(scale=4.0, size=(3, 4)))):
        out.append({"x": x, "g": rng.normal(size=x.shape), "dtype": dtype,
                    "w": rng.normal(size=5), "s": float(rng.uniform(2, 5)),
                    "cw": rng.normal(size=5)})
    return out


@graded(points=3, cases=round_cases)
def test_round_ste(rec, cases):
    """Forward torch.round (ties to even), backward the identity, alone and in a chain."""
    record_round_ste(rec, cases, round_ste)


def grid(rng, scale, zero_point, qmin, qmax, n=40):
    """Points off the rounding ties: (k + offset) · scale for integers k around and beyond
    the representable range, so x / scale + zero_point is never within 0.05 of a half."""
    k = rng.integers(qmin - zero_point - 6, qmax - zero_point + 7, n)
    offset = rng.choice([-0.45, -0.3, -0.1, 0.0, 0.1, 0.3, 0.45], n)
    return (k + offset) * scale


def quantize_cases(rng):
    configs = [(0.1, 0, -8, 7), (0.05, 10, 0, 15), (0.25, -2, -4, 3)]
    return [{"x": grid(rng, *cfg), "g": rng.normal(size=40), "scale": cfg[0],
             "zero_point": cfg[1], "qmin": cfg[2], "qmax": cfg[3]} for cfg in configs]


@graded(points=3, cases=quantize_cases)
def test_fake_quantize(rec, cases):
    """Values and gradients of torch.fake_quantize_per_tensor_affine on a grid past both
    clip limits."""
    record_fake_quantize(rec, cases, fake_quantize)


def boundary_cases(rng):
    out = []
    for scale, zp, qmin, qmax in [(0.1, 0, -128, 127), (0.02, 128, 0, 255)]:
        t = np.array([qmin - 2.0, qmin - 0.6, qmin - 0.4, qmin, qmin + 0.4, qmax - 0.4, qmax,
                      qmax + 0.4, qmax + 0.6, qmax + 2.0])  # x / scale + zero_point
        out.append({"x": (t - zp) * scale, "g": rng.uniform(0.5, 2.0, t.size), "scale": scale,
                    "zero_point": zp, "qmin": qmin, "qmax": qmax})
    return out


@graded(points=2, cases=boundary_cases)
def test_fake_quantize_clip_boundary(rec, cases):
    """qmax + 0.4 rounds to qmax (gradient passes); qmax + 0.6 rounds past it (no gradient);
    the same at qmin."""
    record_fake_quantize(rec, cases, fake_quantize)
