"""Task 5 (hidden): round_ste and fake_quantize on other inputs and grids."""

import numpy as np
import torch  # noqa: F401 - imported at collection, so no test's time limit pays for it
from common import quantize_case, record_fake_quantize, record_round_ste

from ad_modes import fake_quantize, round_ste
from autograder.harness import graded


def round_cases(rng):
    out = []
    for dtype, x in (("float64", np.array([3.5, 4.5, -3.5, 0.0, 7.2, -7.7, 5.0 * 2.0**62, -2.0**69])),
                     ("float32", rng.uniform(-20, 20, (2, 5)))):
        out.append({"x": x, "g": rng.normal(size=x.shape), "dtype": dtype,
                    "w": rng.normal(size=4), "s": float(rng.uniform(1, 3)),
                    "cw": rng.normal(size=4)})
    return out


@graded(points=2, cases=round_cases)
def test_round_ste_hidden(rec, cases):
    record_round_ste(rec, cases, round_ste)


def quantize_cases(rng):
    return [quantize_case(rng, (3, 12), 12, 0, 15, ["above", "straddle", "below"]),
            quantize_case(rng, (40,), 8, 0, 3, ["straddle", "below", "above", "zeros", "straddle"]),
            quantize_case(rng, (2, 2, 16), 16, -128, 127, ["below", "straddle", "above"]),
            quantize_case(rng, (2, 20), 10, 0, 15, ["above", "below"], boundary=True)]


@graded(points=3, cases=quantize_cases)
def test_fake_quantize_hidden(rec, cases):
    record_fake_quantize(rec, cases, fake_quantize)
