"""fake_quantize composed from the pieces the handout builds: round_ste(x / scale + zero_point),
a clamp to [qmin, qmax] (whose gradient is 0 outside, as torch.clamp's), then
(q − zero_point) · scale. Its gradient is g·(1/s)·s: within a float32 ulp of g, not bitwise g.
round_ste as the detach trick written the other way round."""

import torch


def round_ste(x):
    return (torch.round(x) - x).detach() + x


def fake_quantize(x, scale, zero_point, qmin, qmax):
    q = round_ste(x / scale + zero_point)
    q = torch.clamp(q, qmin, qmax)
    return (q - zero_point) * scale
