"""Task 1 (hidden): ops on other shapes, 3-D reductions, 0-d tensors, and composite
expressions (softmax, log-sum-exp, MSE) whose gradients mix several local derivatives."""

import numpy as np
from common import record_reduction_grads, record_unary_grads

from autograder.harness import graded
from minigrad import Tensor

TOL = {"atol": 1e-10, "rtol": 1e-8}  # contract: SPEC 5.1 Tensor wraps float64 (not free)


def op_cases(rng):
    return {"a": rng.normal(size=(3, 2)), "pos": rng.uniform(0.5, 2.0, size=(3, 2)),
            "cube": rng.normal(size=(2, 3, 4)), "s": float(rng.normal()),
            "m": rng.normal(size=(4, 4)), "k": rng.normal(size=(4, 2)),
            "g32": rng.normal(size=(3, 2)), "g42": rng.normal(size=(4, 2)),
            "u": rng.normal(size=24), "c": float(rng.uniform(-2.0, -0.5))}


@graded(points=2, cases=op_cases)
def test_unary_grads_hidden(rec, cases):
    """Local derivatives on another shape, negative scalars, and fractional/negative powers."""
    g, c = cases["g32"], cases["c"]
    exprs = {
        "pow-2": ("pos", lambda x: x**-2), "pow1.5": ("pos", lambda x: x**1.5),
        "pow4": ("a", lambda x: x**4), "exp(c*x)": ("a", lambda x: (c * x).exp()),
        "log(x/c*c)": ("pos", lambda x: (x / c * c).log()), "relu(-x)": ("a", lambda x: (-x).relu()),
        "tanh(c*x)": ("a", lambda x: (x * c).tanh()), "c-x/c": ("a", lambda x: c - x / c),
        "c/(x-c)": ("pos", lambda x: c / (x - c)),
    }
    record_unary_grads(rec, exprs, cases, g, TOL)


@graded(points=2, cases=op_cases)
def test_scalar_tensor_grads(rec, cases):
    """0-d tensors: value and gradient shape ()."""
    s = Tensor(np.array(cases["s"]), requires_grad=True)
    out = (s * s).exp() + 3.0 * s - s / 2.0
    out.backward()
    rec.close("value", out.data, **TOL)
    rec.close("grad", s.grad, **TOL)


@graded(points=3, cases=op_cases)
def test_reduction_grads_3d(rec, cases):
    """sum/mean of a (2, 3, 4) tensor over every axis and pairs of axes."""
    axes = (None, 0, 1, 2, -1, -2, (0, 2), (1, 2), (0, 1, 2))
    record_reduction_grads(rec, cases["cube"], cases["u"], axes, TOL)


@graded(points=3, cases=op_cases)
def test_composite_grads(rec, cases):
    """Softmax, log-sum-exp, a linear layer with MSE, a 2-layer MLP: composites of the ops."""
    a0, m0, k0 = cases["a"], cases["m"], cases["k"]

    a = Tensor(a0, requires_grad=True)
    e = a.exp()
    softmax = e / e.sum(axis=1, keepdims=True)
    (softmax * Tensor(cases["g32"])).sum().backward()
    rec.close("softmax.grad", a.grad, **TOL)

    a = Tensor(a0, requires_grad=True)
    lse = a.exp().sum(axis=0).log()
    (lse * lse).sum().backward()
    rec.close("logsumexp.grad", a.grad, **TOL)

    w = Tensor(m0, requires_grad=True)
    b = Tensor(k0[:, 0], requires_grad=True)
    h = (Tensor(k0.T) @ w + b).relu()  # (2, 4) @ (4, 4) + (4,)
    loss = ((h @ Tensor(m0[:, :1]) - 0.5) ** 2).mean()
    loss.backward()
    rec.close("mlp.loss", loss.data, **TOL)
    rec.close("mlp.w.grad", w.grad, **TOL)
    rec.close("mlp.b.grad", b.grad, **TOL)

    w = Tensor(m0, requires_grad=True)
    x = Tensor(k0, requires_grad=True)
    (w.T @ x.tanh()).backward(np.array(cases["g42"]))  # .T feeding a square matmul
    rec.close("wT_x.w.grad", w.grad, **TOL)
    rec.close("wT_x.x.grad", x.grad, **TOL)


@graded(points=2, cases=op_cases)
def test_shape_grads_hidden(rec, cases):
    """reshape round trips and .T of a transposed reshape."""
    x = Tensor(cases["cube"], requires_grad=True)
    y = x.reshape(6, 4).T.reshape((2, 12)) * Tensor(np.array(cases["u"]).reshape(2, 12))
    y.sum().backward()
    rec.close("cube.grad", x.grad, **TOL)
