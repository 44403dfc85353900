"""ad_modes' Task 5 forbids nothing: torch's fake-quantize kernels are compiled into every
process that loads torch, so no view can remove them, and an override registered in the child's
own heap is no defence (a child finds its handle with ctypes and releases it). The contract is
instead one no torch quantizer computes: `fake_quantize` takes each group's scale and zero point
from its own min and max by AWQ's rule (torch's observers put 0 inside the range), and
`round_ste` holds on floats past any integer code (the kernels' codes are int64).

A submission whose `fake_quantize` or `round_ste` is one of torch's quantizers
(adversarial/torch_quantizers.py: the kernels, the _cachemask and learnable variants, the fused
observer + fake-quant operator, torch.ao's observers and FakeQuantize module) earns nothing on
their public and hidden tests. Each quantizer is a real one: on a single group that straddles 0,
and on small floats, it equals the reference (so it would pass a contract it fits: the old one,
`fake_quantize(x, scale, zero_point, qmin, qmax)` as torch's per-tensor kernel, was one call of
it); and the same per-channel kernel given the contract's own grids scores full marks
(tests/selftest/variants/ad_modes/per_channel_kernel).
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import grade_root

from autograder.assignments import load

HERE = Path(__file__).resolve().parent
QUANTIZERS = HERE / "adversarial" / "torch_quantizers.py"
FAKE_QUANTIZE_TESTS = frozenset({"test_fake_quantize", "test_fake_quantize_clip_boundary",
                                 "test_fake_quantize_hidden"})
ROUND_STE_TESTS = frozenset({"test_round_ste", "test_round_ste_hidden"})


def module_from(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ROUTES = module_from(QUANTIZERS, "torch_quantizers")
CASES = [("fake_quantize", f.__name__) for f in ROUTES.FAKE_QUANTIZE] + \
        [("round_ste", f.__name__) for f in ROUTES.ROUND_STE]


@pytest.mark.parametrize("function, route", CASES, ids=[r for _, r in CASES])
def test_torch_quantizers_earn_nothing(function, route, tmp_path):
    assignment = load("ad_modes")
    package = tmp_path / "sub" / assignment.package
    shutil.copytree(assignment.solutions / assignment.package, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(QUANTIZERS, package / "_torch_quantizers.py")
    with open(package / "quantize.py", "a", encoding="utf-8") as f:
        f.write(f"\n\nfrom ._torch_quantizers import {route} as {function}  # noqa: E402\n")
    ids = FAKE_QUANTIZE_TESTS if function == "fake_quantize" else ROUND_STE_TESTS
    grade = grade_root(assignment, tmp_path / "sub", ids=ids)
    assert grade.problems == [], grade.problems
    assert {t.id for t in grade.tests} == ids
    assert [t.id for t in grade.tests if t.passed] == []


def straddling_group(rng, size: int = 16) -> np.ndarray:
    x = rng.uniform(-1.0, 1.0, size)
    x[:2] = [-0.93, 0.87]  # min < 0 < max: the observers' "0 inside the range" changes nothing
    return x


@pytest.mark.parametrize("route", ROUTES.FAKE_QUANTIZE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("qmin, qmax", [(0, 15), (-8, 7)])
def test_each_fake_quantizer_is_real(route, qmin, qmax):
    """On one group that straddles 0 each torch quantizer equals the reference: values and the
    clip mask's gradient (within float32 ulps)."""
    reference = module_from(load("ad_modes").solutions / "ad_modes" / "quantize.py", "ref_q")
    rng = np.random.default_rng(3)
    x0, g = straddling_group(rng), rng.normal(size=16)
    outs = []
    for fn in (reference.fake_quantize, route):
        x = torch.tensor(x0.reshape(1, 16), dtype=torch.float32, requires_grad=True)
        y = fn(x, 16, qmin, qmax)
        y.backward(torch.tensor(g.reshape(1, 16), dtype=torch.float32))
        outs.append((y.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(outs[1][0], outs[0][0], atol=1e-6, rtol=1e-6)
    np.testing.assert_allclose(outs[1][1], outs[0][1], atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("route", ROUTES.ROUND_STE, ids=lambda f: f.__name__)
def test_each_unit_scale_kernel_is_round_ste_on_small_floats(route):
    x = torch.tensor([-2.5, -0.5, 0.49, 1.5, 2.6, 7.0], requires_grad=True)
    y = route(x)
    y.backward(torch.arange(1.0, 7.0))
    assert torch.equal(y.detach(), torch.round(x.detach()))
    assert torch.equal(x.grad, torch.arange(1.0, 7.0))
