"""Cross-check the minigrad goldens against torch.autograd (float64). Instructor tool, trusted.

Runs every graded test function on its stored inputs with a torch-backed stand-in for the
minigrad API (`Tensor`, `SGD`, `unbroadcast`, swapped in the test modules and in `common`, whose
graph builder and recording loops make tensors too), and compares what it records with the goldens
(which come from solutions/), using each observation's manifest tolerance. Observations judged
by named checks (topological orders) are skipped: the check itself is the oracle there.

    .venv/bin/python tests/minigrad/crosscheck_torch.py      # exit 0: goldens agree with torch
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "solutions")]  # test modules import `minigrad` at load

from autograder.authoring.crosscheck import MISSING, Golden, main
from autograder.harness import exception_kind

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the tests import tests/minigrad/common.py as `common`

import common


def _t(x):
    return x.t if isinstance(x, TorchTensor) else x


class TorchTensor:
    """The minigrad API on top of torch tensors: torch.autograd does the differentiation."""

    def __init__(self, data=None, requires_grad: bool = False, _t: torch.Tensor | None = None):
        if _t is None:
            _t = torch.tensor(np.asarray(data, dtype=np.float64), requires_grad=requires_grad)
        self.t = _t

    data = property(lambda self: self.t.detach().numpy().copy())
    grad = property(lambda self: None if self.t.grad is None else self.t.grad.numpy().copy())
    requires_grad = property(lambda self: self.t.requires_grad)
    shape = property(lambda self: tuple(self.t.shape))

    def __add__(self, o): return TorchTensor(_t=self.t + _t(o))  # noqa: E704
    def __radd__(self, o): return TorchTensor(_t=_t(o) + self.t)  # noqa: E704
    def __sub__(self, o): return TorchTensor(_t=self.t - _t(o))  # noqa: E704
    def __rsub__(self, o): return TorchTensor(_t=_t(o) - self.t)  # noqa: E704
    def __mul__(self, o): return TorchTensor(_t=self.t * _t(o))  # noqa: E704
    def __rmul__(self, o): return TorchTensor(_t=_t(o) * self.t)  # noqa: E704
    def __truediv__(self, o): return TorchTensor(_t=self.t / _t(o))  # noqa: E704
    def __rtruediv__(self, o): return TorchTensor(_t=_t(o) / self.t)  # noqa: E704
    def __matmul__(self, o): return TorchTensor(_t=self.t @ _t(o))  # noqa: E704
    def __neg__(self): return TorchTensor(_t=-self.t)  # noqa: E704
    def __pow__(self, p): return TorchTensor(_t=self.t ** p)  # noqa: E704
    def exp(self): return TorchTensor(_t=self.t.exp())  # noqa: E704
    def log(self): return TorchTensor(_t=self.t.log())  # noqa: E704
    def relu(self): return TorchTensor(_t=self.t.relu())  # noqa: E704
    def tanh(self): return TorchTensor(_t=self.t.tanh())  # noqa: E704

    def sum(self, axis=None, keepdims=False):
        return TorchTensor(_t=self._reduce(torch.sum, axis, keepdims))

    def mean(self, axis=None, keepdims=False):
        return TorchTensor(_t=self._reduce(torch.mean, axis, keepdims))

    def _reduce(self, fn, axis, keepdims):
        if axis is None:
            out = fn(self.t)
            return out.reshape([1] * self.t.ndim) if keepdims else out
        return fn(self.t, dim=axis, keepdim=keepdims)

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return TorchTensor(_t=self.t.reshape(shape))

    @property
    def T(self):
        return TorchTensor(_t=self.t.permute(tuple(reversed(range(self.t.ndim)))))

    def backward(self, grad=None):
        if grad is None:
            if self.t.numel() != 1:
                raise ValueError("grad can be implicitly created only for scalar outputs")
            grad = np.ones(self.shape)
        seed = torch.as_tensor(np.asarray(grad, dtype=np.float64)).reshape(self.t.shape)
        self.t.backward(seed, retain_graph=True)


class TorchSGD:
    def __init__(self, params, lr):
        self.opt = torch.optim.SGD([p.t for p in params], lr=lr)

    def step(self):
        self.opt.step()

    def zero_grad(self):
        self.opt.zero_grad(set_to_none=True)


def torch_unbroadcast(grad, shape):
    return torch.as_tensor(np.asarray(grad, dtype=np.float64)).sum_to_size(shape).numpy()


class Recorder:
    def __init__(self):
        self.values: dict[str, object] = {}

    def close(self, name, value, atol=0.0, rtol=0.0):
        self.values[name] = value

    exact = close

    def check(self, name, value, check):
        pass  # named checks are their own oracle

    def raises(self, name, fn, *args, **kwargs):
        try:
            result = fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001
            self.values[name] = exception_kind(e)
            return None
        self.values[name] = None
        return result


@cache
def graded_functions(visibility: str) -> dict:
    """{test id: graded test function} of tests/minigrad/<visibility>/, with the torch-backed
    API swapped into each module and into `common`."""
    common.Tensor = TorchTensor  # common.build and the record_* loops
    found = {}
    for path in sorted((HERE / visibility).glob("test_*.py")):
        spec = importlib.util.spec_from_file_location(f"xc_{visibility}_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.__dict__.update(Tensor=TorchTensor, SGD=TorchSGD, unbroadcast=torch_unbroadcast)
        for fn in vars(module).values():
            graded = getattr(fn, "_graded", None)
            if graded is not None:
                found[graded.id] = fn
    return found


def torch_oracle(golden: Golden):
    """The graded test run on torch; each value it records judged against the golden.
    Topological orders (named checks) are skipped: checks.py is their oracle."""
    fn = graded_functions(golden.visibility).get(golden.id)
    names = golden.observed("exact", "close")
    if fn is None or not names:
        return
    rec = Recorder()
    fn(rec, golden.cases)
    for name in names:
        yield golden.compare(name, rec.values.get(name, MISSING), "torch")


if __name__ == "__main__":
    sys.exit(main(__file__, torch_oracle, "torch.autograd (float64)"))
