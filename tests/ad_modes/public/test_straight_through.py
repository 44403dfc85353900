"""Task 5: gradients through round(): the straight-through estimator and fake quantization.

Expected values are the reference solution's, cross-checked by tests/ad_modes/crosscheck_torch.py
against torch.round with an identity backward (round_ste) and, with each group's scale and zero
point derived there by AWQ's rule, against torch.fake_quantize_per_channel_affine, values and
gradients (fake_quantize), including both sides of each clip boundary.
"""

import numpy as np
import torch  # noqa: F401 - imported at collection, so no test's time limit pays for it
from common import quantize_case, record_fake_quantize, record_round_ste

from ad_modes import fake_quantize, round_ste
from autograder.harness import graded


def round_cases(rng):
    ties = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51])
    # already integers (in float32 too), past any integer code, int64's 9.2e18 included
    huge = np.array([2.0**66, -3.0 * 2.0**64])
    out = []
    for dtype, x in (("float32", np.concatenate([ties, huge, rng.uniform(-6, 6, 6)])),
                     ("float64", np.concatenate([rng.normal(scale=4.0, size=10), huge]).reshape(3, 4))):
        out.append({"x": x, "g": rng.normal(size=x.shape), "dtype": dtype,
                    "w": rng.normal(size=5), "s": float(rng.uniform(2, 5)),
                    "cw": rng.normal(size=5)})
    return out


@graded(points=3, cases=round_cases)
def test_round_ste(rec, cases):
    """Forward torch.round (ties to even; the identity on floats that are already integers,
    however large), backward the identity, alone and in a chain."""
    record_round_ste(rec, cases, round_ste)


def quantize_cases(rng):
    """AWQ's int4 groups (0..15), signed int4, 3-bit and 8-bit codes; 1-D, 2-D and 3-D x;
    groups above and below 0 (clipped at one end) beside groups that straddle it, and a group
    of zeros (a pruned row: its scale is the 1e-5 floor's)."""
    return [quantize_case(rng, (2, 16), 8, 0, 15, ["straddle", "above", "below", "straddle"]),
            quantize_case(rng, (24,), 6, -8, 7, ["below", "straddle", "above", "zeros"]),
            quantize_case(rng, (2, 3, 8), 4, 0, 7, ["straddle", "above", "straddle", "below"]),
            quantize_case(rng, (1, 64), 32, 0, 255, ["straddle", "above"])]


@graded(points=3, cases=quantize_cases)
def test_fake_quantize(rec, cases):
    """Values and gradients: each group on its own grid, from its own min and max."""
    record_fake_quantize(rec, cases, fake_quantize)


def boundary_cases(rng):
    return [quantize_case(rng, (4, 10), 10, 0, 15, ["above", "below"], boundary=True),
            quantize_case(rng, (3, 12), 6, -8, 7, ["below", "straddle", "above"], boundary=True)]


@graded(points=2, cases=boundary_cases)
def test_fake_quantize_clip_boundary(rec, cases):
    """In a group above 0 (z clamped to qmin), x / s = n + 0.4 rounds to code qmax (gradient
    passes) and n + 0.6 rounds past it (no gradient), n = qmax − qmin; the same at qmin below
    0."""
    record_fake_quantize(rec, cases, fake_quantize)
