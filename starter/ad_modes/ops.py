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
    raise NotImplementedError


def _elementwise(name: str, x):
    """VALUES[name] applied to x: a Dual, a tape Var, or anything np.asarray takes."""
    fn = VALUES[name]
    raise NotImplementedError
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
    raise NotImplementedError


def dot(a, b):
    """`np.dot` for 1-D and 2-D operands (inner product, matrix-vector, vector-matrix,
    matrix-matrix); either operand may be a constant array."""
    raise NotImplementedError
