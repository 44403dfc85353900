"""Primitives that work on plain arrays, on `Dual`s (forward mode) and on tape `Var`s (reverse
mode), so one function f written with them runs in both modes.

Each elementwise primitive has its value in `VALUES` and its derivative in `derivative()`,
which both modes use (forward: f'(x)·tangent; reverse: adjoint·f'(x)).
"""

from __future__ import annotations

import numpy as np

from ad_modes.dual import Dual, _as_dual  # noqa: F401 - the starter keeps them for your code
from ad_modes.tape import Var, _as_var  # noqa: F401

VALUES = {"sin": np.sin, "cos": np.cos, "exp": np.exp, "log": np.log, "tanh": np.tanh}


def derivative(name: str, x: np.ndarray) -> np.ndarray:
    """f'(x) elementwise for the primitive `name` (a key of VALUES)."""
    ### BEGIN SOLUTION
    if name == "sin":
        return np.cos(x)
    if name == "cos":
        return -np.sin(x)
    if name == "exp":
        return np.exp(x)
    if name == "log":
        return 1.0 / x
    return 1.0 - np.tanh(x) ** 2  # tanh
    ### END SOLUTION


def _elementwise(name: str, x):
    """VALUES[name] applied to x: a Dual, a tape Var, or anything np.asarray takes."""
    fn = VALUES[name]
    ### BEGIN SOLUTION
    if isinstance(x, Dual):
        return Dual(fn(x.primal), derivative(name, x.primal) * x.tangent)
    if isinstance(x, Var):
        return Var(fn(x.value), (x,), (lambda g: g * derivative(name, x.value),))
    ### END SOLUTION
    return fn(np.asarray(x, dtype=np.float64))


def sin(x):
    """Elementwise sine."""
    return _elementwise("sin", x)


def cos(x):
    """Elementwise cosine."""
    return _elementwise("cos", x)


def exp(x):
    """Elementwise exponential."""
    return _elementwise("exp", x)


def log(x):
    """Elementwise natural logarithm."""
    return _elementwise("log", x)


def tanh(x):
    """Elementwise hyperbolic tangent."""
    return _elementwise("tanh", x)


def sum(x, axis=None):  # noqa: A001 - the contract's name
    """Sum over `axis` (None: all elements; an int or a tuple of ints), as `np.sum`."""
    ### BEGIN SOLUTION
    if isinstance(x, Dual):
        return Dual(np.sum(x.primal, axis=axis), np.sum(x.tangent, axis=axis))
    if isinstance(x, Var):
        shape = x.shape
        kept = np.sum(x.value, axis=axis, keepdims=True).shape  # summed axes become size 1
        return Var(np.sum(x.value, axis=axis), (x,),
                   (lambda g: np.broadcast_to(np.reshape(g, kept), shape).copy(),))
    return np.sum(np.asarray(x, dtype=np.float64), axis=axis)
    ### END SOLUTION


def dot(a, b):
    """`np.dot` for 1-D and 2-D operands (inner product, matrix-vector, vector-matrix,
    matrix-matrix); either operand may be a constant array."""
    ### BEGIN SOLUTION
    if isinstance(a, Dual) or isinstance(b, Dual):
        a, b = _as_dual(a), _as_dual(b)  # product rule: d(ab) = da·b + a·db
        return Dual(np.dot(a.primal, b.primal),
                    np.dot(a.tangent, b.primal) + np.dot(a.primal, b.tangent))
    if isinstance(a, Var) or isinstance(b, Var):
        a, b = _as_var(a), _as_var(b)
        out = np.dot(a.value, b.value)
        a2 = a.value if a.value.ndim == 2 else a.value[None, :]  # a 1-D left operand is a row
        b2 = b.value if b.value.ndim == 2 else b.value[:, None]  # a 1-D right one a column

        def as_2d(g):  # the output's adjoint, in the shape of a2 @ b2
            return np.reshape(g, (a2.shape[0], b2.shape[1]))

        # C = A B  =>  adjoint of A = Ḡ Bᵀ, adjoint of B = Aᵀ Ḡ
        return Var(out, (a, b), (lambda g: (as_2d(g) @ b2.T).reshape(a.shape),
                                 lambda g: (a2.T @ as_2d(g)).reshape(b.shape)))
    return np.dot(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    ### END SOLUTION
