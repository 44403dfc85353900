"""Cross-check the ad_modes goldens against torch (float64). Instructor tool, trusted.

Replays every graded test function on its stored inputs with torch stand-ins for the API
(swapped into `common` and into the test modules) and compares what they record with the
goldens (which come from solutions/), using each observation's manifest tolerance:

- `Dual` → torch.autograd.forward_ad dual tensors; `jvp` → torch.func.jvp; `vjp` →
  torch.func.vjp; `ops` → torch.sin / cos / exp / log / tanh / sum / matmul;
- `jacobian_fwd` / `jacobian_rev` → torch.func.jacfwd / jacrev, then a second pass with
  torch.autograd.functional.jacobian for both;
- `softmax_jacobian` / `layernorm_jacobian` → torch.func.jacrev of torch.softmax and
  torch.nn.functional.layer_norm (weight = γ, biased variance), the VJPs → torch.func.vjp;
- `fake_quantize` → torch.fake_quantize_per_channel_affine with each group as a channel (values
  and gradients: its rounding, clamp and straight-through clip mask), given the group's scale
  and zero point derived here by AWQ's rule from NumPy's float64 min and max (llm-awq's
  `pseudo_quantize_tensor` with qmin = 0 is this rule); `round_ste` → torch.round forward
  with an identity backward.

Not compared here: counts (calls of f, primitive evaluations: properties of the contract, not
of derivatives), whether f saw a torch tensor (here it does, by design), `cheaper_mode`, and
the memory observation.

    .venv/bin/python tests/ad_modes/crosscheck_torch.py      # exit 0: goldens agree with torch
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch
import torch.autograd.forward_ad as fwad
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "solutions")]  # common imports `ad_modes` at load

from autograder.authoring.crosscheck import MISSING, Golden, main

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the tests import tests/ad_modes/common.py as `common`

import common

SKIPPED = (".count.", ".memory.", "cheaper_mode(", "f_saw_torch_tensor")


def t(x) -> torch.Tensor:
    """A NumPy array (or number) as a float64 tensor; tensors pass through."""
    return x if isinstance(x, torch.Tensor) else torch.as_tensor(np.asarray(x, dtype=np.float64))


def _sum(x, axis=None):
    return torch.sum(t(x)) if axis is None else torch.sum(t(x), dim=axis)


TORCH_OPS = SimpleNamespace(sin=lambda x: torch.sin(t(x)), cos=lambda x: torch.cos(t(x)),
                            exp=lambda x: torch.exp(t(x)), log=lambda x: torch.log(t(x)),
                            tanh=lambda x: torch.tanh(t(x)), sum=_sum,
                            dot=lambda a, b: torch.matmul(t(a), t(b)))  # = np.dot on 1-D/2-D


def _np(x) -> np.ndarray:
    return x.detach().numpy().copy() if isinstance(x, torch.Tensor) else np.asarray(x, float)


def torch_dual(primal, tangent):
    return fwad.make_dual(t(primal), t(tangent))


def torch_dual_parts(d):
    primal, tangent = fwad.unpack_dual(d)
    return _np(primal), _np(torch.zeros_like(primal) if tangent is None else tangent)


def torch_jvp(f, x, v):
    return torch.func.jvp(f, (t(x),), (t(v),))


def torch_vjp(f, x):
    y, vjp_fn = torch.func.vjp(f, t(x))
    return y, lambda u: vjp_fn(t(u))[0]


def autograd_jacobian(f, x):
    return torch.autograd.functional.jacobian(f, t(x))


def _layernorm(x, gamma=None, eps=1e-5):
    return F.layer_norm(x, (x.shape[-1],), weight=None if gamma is None else t(gamma), eps=eps)


def torch_layernorm_jacobian(x, gamma=None, eps=1e-5):
    return torch.func.jacrev(lambda z: _layernorm(z, gamma, eps))(t(x))


def torch_layernorm_vjp(x, g, gamma=None, eps=1e-5):
    return torch.func.vjp(lambda z: _layernorm(z, gamma, eps), t(x))[1](t(g))[0]


def torch_softmax_jacobian(x):
    return torch.func.jacrev(lambda z: torch.softmax(z, dim=0))(t(x))


def torch_softmax_vjp(x, g):
    return torch.func.vjp(lambda z: torch.softmax(z, dim=0), t(x))[1](t(g))[0]


class TorchRoundSTE(torch.autograd.Function):
    """torch.round forward, the identity backward (torch has no built-in STE)."""

    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, g):
        return g


def torch_fake_quantize(x, group_size, qmin, qmax):
    """torch's per-channel kernel on the groups, given AWQ's per-group scale and zero point."""
    groups = x.reshape(-1, group_size)
    values = groups.detach().double().numpy()
    lo, hi = values.min(axis=1), values.max(axis=1)
    scale = np.maximum(hi - lo, 1e-5) / (qmax - qmin)
    zero = np.clip(qmin - np.round(lo / scale), qmin, qmax)
    out = torch.fake_quantize_per_channel_affine(
        groups, torch.tensor(scale, dtype=torch.float32), torch.tensor(zero, dtype=torch.int32),
        0, qmin, qmax)
    return out.reshape(x.shape)


class Recorder:
    def __init__(self):
        self.values: dict[str, object] = {}

    def close(self, name, value, atol=0.0, rtol=0.0):
        self.values[name] = _np(value) if isinstance(value, torch.Tensor) else value

    def exact(self, name, value):
        self.values[name] = value

    def check(self, name, value, check):
        pass  # ad_modes records no named checks


def stand_ins(jacobian_oracle: str) -> dict:
    """The torch API; jacobian_oracle "func" (jacfwd / jacrev) or "autograd"."""
    api = {"Dual": torch_dual, "dual_parts": torch_dual_parts, "jvp": torch_jvp,
           "vjp": torch_vjp, "ops": TORCH_OPS, "softmax_jacobian": torch_softmax_jacobian,
           "softmax_vjp": torch_softmax_vjp, "layernorm_jacobian": torch_layernorm_jacobian,
           "layernorm_vjp": torch_layernorm_vjp, "arr": lambda v: np.asarray(_np(v), float),
           "round_ste": TorchRoundSTE.apply,
           "fake_quantize": torch_fake_quantize}
    if jacobian_oracle == "func":
        api.update(jacobian_fwd=lambda f, x: torch.func.jacfwd(f)(t(x)),
                   jacobian_rev=lambda f, x: torch.func.jacrev(f)(t(x)))
    else:
        api.update(jacobian_fwd=autograd_jacobian, jacobian_rev=autograd_jacobian)
    return api


JACOBIAN_ORACLES = ("func", "autograd")


@cache
def graded_functions(visibility: str, jacobian_oracle: str) -> tuple[dict, dict]:
    """(the stand-ins, {test id: graded function}) of tests/ad_modes/<visibility>/ with that
    oracle's stand-ins swapped into each module."""
    api = stand_ins(jacobian_oracle)
    vars(common).update(api)
    found = {}
    for path in sorted((HERE / visibility).glob("test_*.py")):
        spec = importlib.util.spec_from_file_location(
            f"xc_{visibility}_{jacobian_oracle}_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        vars(module).update({k: v for k, v in api.items() if k in vars(module)})
        for fn in list(vars(module).values()):
            graded = getattr(fn, "_graded", None)
            if graded is not None:
                found[graded.id] = fn
    return api, found


def torch_oracle(golden: Golden):
    """The graded test replayed on torch, once per Jacobian oracle; each value it records
    judged against the golden (counts, cheaper_mode and memory skipped: see the docstring)."""
    names = [n for n in golden.observed("exact", "close") if not any(s in n for s in SKIPPED)]
    for jacobian_oracle in JACOBIAN_ORACLES:
        api, functions = graded_functions(golden.visibility, jacobian_oracle)
        fn = functions.get(golden.id)
        if fn is None or not names:
            continue
        vars(common).update(api)  # the recording loops in common use these names
        rec = Recorder()
        if "dual" in golden.id:  # tests of Dual itself: torch's dual tensors need a level
            with fwad.dual_level():
                fn(rec, golden.cases)
        else:  # torch.func.jvp opens its own level (they do not nest)
            fn(rec, golden.cases)
        for name in names:
            yield golden.compare(name, rec.values.get(name, MISSING), f"torch ({jacobian_oracle})")


if __name__ == "__main__":
    torch.set_default_dtype(torch.float64)
    sys.exit(main(__file__, torch_oracle, "torch.func (jvp, vjp, jacfwd, jacrev), "
                  "torch.autograd.functional.jacobian (float64) and "
                  "torch.fake_quantize_per_channel_affine"))
