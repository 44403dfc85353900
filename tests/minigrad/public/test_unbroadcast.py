"""Task 2: unbroadcast, and the gradients of broadcasting binary ops in every direction."""

import numpy as np
from common import record_binary_grads, record_unbroadcast

from autograder.harness import graded
from minigrad import Tensor, unbroadcast

TOL = {"atol": 1e-10, "rtol": 1e-8}  # contract: SPEC 5.1 Tensor wraps float64 (not free)

# (shape of the broadcast gradient, shape of the operand)
UNBROADCAST_PAIRS = [
    ((2, 3), (3,)), ((2, 3), (2, 1)), ((2, 3), (1, 3)), ((2, 3), ()), ((2, 3), (1, 1)),
    ((4, 2, 3), (2, 3)), ((4, 2, 3), (2, 1)), ((4, 2, 3), (1, 1, 3)), ((4, 2, 3), (4, 1, 3)),
    ((3, 3), (3,)), ((3, 3), (3, 1)), ((3, 3), (1, 3)), ((2, 3), (2, 3)), ((1,), ()),
    ((3,), (1,)),
]


def unbroadcast_cases(rng):
    return [{"grad": rng.normal(size=g), "shape": list(s)} for g, s in UNBROADCAST_PAIRS]


@graded(points=3, cases=unbroadcast_cases)
def test_unbroadcast_function(rec, cases):
    """unbroadcast(grad, shape) sums the broadcast gradient back to `shape`."""
    record_unbroadcast(rec, unbroadcast, cases, TOL)


# (shape of a, shape of b): b broadcast against a, and a against b
BINARY_PAIRS = [
    ((2, 3), (3,)), ((3,), (2, 3)), ((2, 1), (1, 3)), ((2, 3), ()), ((), (2, 3)),
    ((2, 3), (2, 1)), ((1, 3), (2, 3)), ((2, 3), (1,)),
]


def binary_cases(rng):
    out = []
    for sa, sb in BINARY_PAIRS:
        shape = np.broadcast_shapes(sa, sb)
        out.append({"a": rng.normal(size=sa), "b": rng.uniform(0.5, 2.0, sb),
                    "g": rng.normal(size=shape)})
    return out


@graded(points=4, cases=binary_cases)
def test_broadcast_binary_grads(rec, cases):
    """a + b, a - b, a * b, a / b where either side is broadcast; each gradient has the shape
    of its own operand."""
    record_binary_grads(rec, cases, TOL)


def square_cases(rng):
    return [{"m": rng.normal(size=(3, 3)), "v": rng.uniform(0.5, 2.0, 3),
             "col": rng.uniform(0.5, 2.0, (3, 1)), "g": rng.normal(size=(3, 3))}
            for _ in range(3)]


@graded(points=3, cases=square_cases)
def test_square_broadcast_wrong_axis_is_silent(rec, cases):
    """(3, 3) with (3,) or (3, 1): summing the wrong axis gives the right shape and no error,
    only the wrong numbers (the upstream gradient is not uniform, so rows and columns differ)."""
    for i, c in enumerate(cases):
        exprs = {"m+v": lambda m, v, k: m + v, "v*m": lambda m, v, k: v * m,
                 "m-col": lambda m, v, k: m - k, "col/m": lambda m, v, k: k / m}
        for name, f in exprs.items():
            m = Tensor(c["m"] + 3.0, requires_grad=True)
            v = Tensor(c["v"], requires_grad=True)
            k = Tensor(c["col"], requires_grad=True)
            f(m, v, k).backward(np.array(c["g"]))
            rec.close(f"[{i}].{name}.m.grad", m.grad, **TOL)
            other = v if "v" in name else k
            rec.close(f"[{i}].{name}.{'v' if 'v' in name else 'col'}.grad", other.grad, **TOL)
