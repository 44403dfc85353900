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
import json
import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "solutions")]  # test modules import `minigrad` at load

from autograder.grading.compare import compare_value
from autograder.harness import exception_kind
from autograder.harness.plaindata import decode, encode

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


def crosscheck(visibility: str) -> tuple[int, list[str]]:
    goldens = json.loads((HERE / "goldens" / f"{visibility}.json").read_text())
    inputs = json.loads((HERE / "inputs" / f"{visibility}.json").read_text())
    compared, problems = 0, []
    common.Tensor = TorchTensor  # common.build and the record_* loops
    for path in sorted((HERE / visibility).glob("test_*.py")):
        spec = importlib.util.spec_from_file_location(f"xc_{visibility}_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.__dict__.update(Tensor=TorchTensor, SGD=TorchSGD, unbroadcast=torch_unbroadcast)
        for fn in vars(module).values():
            graded = getattr(fn, "_graded", None)
            if graded is None or graded.id not in goldens["tests"]:
                continue
            specs = goldens["tests"][graded.id]["observations"]
            if all(o["kind"] == "check" for o in specs.values()):
                continue  # topological orders: judged by checks.py, not by values
            rec = Recorder()
            cases = decode(inputs[graded.id]) if graded.id in inputs else None
            fn(rec, cases)
            for name, ospec in specs.items():
                if ospec["kind"] == "check":
                    continue
                if name not in rec.values:
                    problems.append(f"{graded.id}/{name}: torch recorded nothing")
                    continue
                observed = decode(encode(rec.values[name]))
                message = compare_value(ospec, observed, decode(ospec["expected"]), None, None)
                compared += 1
                if message:
                    problems.append(f"{graded.id}/{name}: torch {message}")
    return compared, problems


def main() -> int:
    total, failures = 0, []
    for visibility in ("public", "hidden"):
        compared, problems = crosscheck(visibility)
        total += compared
        failures += problems
    for p in failures:
        print("MISMATCH", p)
    print(f"{total} observations compared with torch.autograd (float64): "
          f"{len(failures)} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
