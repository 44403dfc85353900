"""Task 5 (hidden): round_ste and fake_quantize on other inputs and grids."""

import numpy as np
import torch  # noqa: F401 - imported at collection, so no test's time limit pays for it
from common import record_fake_quantize, record_round_ste

from ad_modes import fake_quantize, round_ste
from autograder.harness import graded


def round_cases(rng):
    out = []
    for dtype, x in (("float64", np.array([3.5, 4.5, -3.5, 0.0, 7.2, -7.7])),
                     ("float32", rng.uniform(-20, 20, (2, 5)))):
        out.append({"x": x, "g": rng.normal(size=x.shape), "dtype": dtype,
                    "w": rng.normal(size=4), "s": float(rng.uniform(1, 3)),
                    "cw": rng.normal(size=4)})
    return out


@graded(points=2, cases=round_cases)
def test_round_ste_hidden(rec, cases):
    record_round_ste(rec, cases, round_ste)


def quantize_cases(rng):
    out = []
    for scale, zp, qmin, qmax in [(0.03, 0, -128, 127), (0.5, 3, 0, 7), (1.0, -1, -2, 2)]:
        k = rng.integers(qmin - zp - 5, qmax - zp + 6, 30)
        x = (k + rng.choice([-0.4, -0.2, 0.0, 0.2, 0.4], 30)) * scale
        t = np.array([qmin - 0.6, qmin - 0.4, qmax + 0.4, qmax + 0.6])
        out.append({"x": np.concatenate([x, (t - zp) * scale]), "g": rng.normal(size=34),
                    "scale": scale, "zero_point": zp, "qmin": qmin, "qmax": qmax})
    return out


@graded(points=3, cases=quantize_cases)
def test_fake_quantize_hidden(rec, cases):
    record_fake_quantize(rec, cases, fake_quantize)
