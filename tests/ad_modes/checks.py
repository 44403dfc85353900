"""Parent-side checks for ad_modes (trusted: they run in the grader, never in the sandbox).

round_ste and fake_quantize are judged here against torch itself (the oracle runs in the
parent on the stored inputs): torch.round / the identity, and
torch.fake_quantize_per_tensor_affine, values and gradients.
"""

from __future__ import annotations

import re

import numpy as np

_NAME = re.compile(r"\[(\d+)\]\.(value|grad|chain\.grad)")


def _case_and_part(ctx):
    m = _NAME.fullmatch(ctx.name)
    cases = ctx.inputs if isinstance(ctx.inputs, list) else [ctx.inputs]
    return cases[int(m.group(1))], m.group(2)


def _compare(observed, expected: np.ndarray, what: str, atol: float, rtol: float) -> str | None:
    try:
        got = np.asarray(observed, dtype=np.float64)
    except (TypeError, ValueError):
        return f"{what}: expected an array of numbers"
    if got.shape != expected.shape:
        return f"{what}: expected shape {expected.shape}, got {got.shape}"
    bad = ~(np.abs(got - expected) <= atol + rtol * np.abs(expected))  # NaN counts as bad
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        return (f"{what}: {int(bad.sum())} of {bad.size} entries differ, e.g. entry {k}: got "
                f"{got.flat[k]:.6g}, expected {expected.flat[k]:.6g}")
    return None


def round_ste_like_torch(observed, ctx) -> str | None:
    """Values equal torch.round(x) (half to even; −0.0 == 0.0); the gradient reaching x is the
    upstream gradient unchanged, and in the chain sum(c * round_ste(w * s)) it is c * s."""
    import torch

    case, part = _case_and_part(ctx)
    dtype = getattr(torch, case["dtype"])
    if part == "value":
        expected = torch.round(torch.tensor(np.asarray(case["x"]), dtype=dtype)).double().numpy()
        return _compare(observed, expected, "round_ste(x)", 0.0, 0.0)
    if part == "grad":
        expected = torch.tensor(np.asarray(case["g"]), dtype=dtype).double().numpy()
        return _compare(observed, expected, "x.grad (straight through: the upstream gradient)",
                        0.0, 0.0)
    w = torch.tensor(np.asarray(case["w"]), dtype=dtype, requires_grad=True)
    identity = w * float(case["s"])  # the straight-through backward: d round_ste(z)/dz = 1
    (identity * torch.tensor(np.asarray(case["cw"]), dtype=dtype)).sum().backward()
    return _compare(observed, w.grad.double().numpy(), "w.grad in the chain", 1e-6, 1e-6)


def fake_quantize_like_torch(observed, ctx) -> str | None:
    """Value and x.grad equal torch.fake_quantize_per_tensor_affine's on the stored case
    (float32; values within 1e-6 relative, gradients exact: g where not clipped, else 0)."""
    import torch

    case, part = _case_and_part(ctx)
    x = torch.tensor(np.asarray(case["x"]), dtype=torch.float32, requires_grad=True)
    y = torch.fake_quantize_per_tensor_affine(x, float(case["scale"]), int(case["zero_point"]),
                                              int(case["qmin"]), int(case["qmax"]))
    if part == "value":
        return _compare(observed, y.detach().double().numpy(), "fake_quantize value",
                        1e-6 * float(case["scale"]), 1e-6)
    y.backward(torch.tensor(np.asarray(case["g"]), dtype=torch.float32))
    return _compare(observed, x.grad.double().numpy(), "x.grad", 0.0, 0.0)
