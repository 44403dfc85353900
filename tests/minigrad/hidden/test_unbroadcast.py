"""Task 2 (hidden): unbroadcast on more shapes, 3-D broadcasting in both directions, and
broadcast operands inside longer expressions."""

import numpy as np
from common import record_binary_grads, record_unbroadcast

from autograder.harness import graded
from minigrad import Tensor, unbroadcast

TOL = {"atol": 1e-10, "rtol": 1e-8}  # contract: SPEC 5.1 Tensor wraps float64 (not free)

UNBROADCAST_PAIRS = [
    ((5, 1, 4), (1, 4)), ((5, 2, 4), (5, 1, 1)), ((2, 2), (2,)), ((2, 2), (2, 1)), ((4, 4), ()),
    ((3, 4, 5), (5,)), ((3, 4, 5), (4, 1)), ((3, 4, 5), (1, 1, 1)), ((1, 3), (1,)), ((4,), ()),
    ((2, 3, 3), (3, 3)), ((2, 3, 3), (3, 1)),
]


def unbroadcast_cases(rng):
    return [{"grad": rng.normal(size=g), "shape": list(s)} for g, s in UNBROADCAST_PAIRS]


@graded(points=3, cases=unbroadcast_cases)
def test_unbroadcast_function_hidden(rec, cases):
    record_unbroadcast(rec, unbroadcast, cases, TOL)


def cube_cases(rng):
    shapes = [((2, 3, 4), (4,)), ((3, 1), (2, 1, 4)), ((2, 1, 4), (3, 1)), ((4,), (2, 3, 4)),
              ((1, 3, 1), (2, 1, 4)), ((3, 3), (2, 3, 3)), ((2, 3, 3), (3, 1))]
    return [{"a": rng.normal(size=sa), "b": rng.uniform(0.5, 2.0, sb),
             "g": rng.normal(size=np.broadcast_shapes(sa, sb))} for sa, sb in shapes]


@graded(points=3, cases=cube_cases)
def test_broadcast_3d_grads(rec, cases):
    """Broadcasting where both operands are stretched, up to 3-D."""
    record_binary_grads(rec, cases, TOL)


def layer_cases(rng):
    return [{"x": rng.normal(size=(n, n)), "w": rng.normal(size=(n, n)), "b": rng.normal(size=n),
             "y": rng.normal(size=(n, n))} for n in (2, 3, 5)]


@graded(points=3, cases=layer_cases)
def test_bias_of_square_layer(rec, cases):
    """A bias added to a square batch (batch size == width): the bias gradient sums over the
    batch axis. Summing over features instead raises nothing and trains the wrong thing."""
    for i, c in enumerate(cases):
        w = Tensor(c["w"], requires_grad=True)
        b = Tensor(c["b"], requires_grad=True)
        out = (Tensor(c["x"]) @ w + b).tanh()
        ((out - Tensor(c["y"])) ** 2).mean().backward()
        rec.close(f"[{i}].w.grad", w.grad, **TOL)
        rec.close(f"[{i}].b.grad", b.grad, **TOL)
