"""Forward mode: dual numbers carry a value and a directional derivative through every op.

A `Dual(primal, tangent)` stands for primal + tangent·ε with ε² = 0, so f(a + bε) = f(a) + f'(a)·b·ε:
evaluating f once on a Dual gives f(x) and the Jacobian-vector product J·v at the same time.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _as_dual(value) -> Dual:
    """A constant as a Dual: its tangent is zero."""
    if isinstance(value, Dual):
        return value
    primal = np.asarray(value, dtype=np.float64)
    return Dual(primal, np.zeros_like(primal))


class Dual:
    """A NumPy float64 array (`primal`) and its tangent (same shape): value + derivative."""

    __array_ufunc__ = None  # `ndarray op Dual` defers to Dual's reflected operators

    def __init__(self, primal, tangent):
        self.primal = np.asarray(primal, dtype=np.float64)
        self.tangent = np.broadcast_to(np.asarray(tangent, dtype=np.float64),
                                       self.primal.shape).copy()

    @property
    def shape(self) -> tuple[int, ...]:
        return self.primal.shape

    def __repr__(self) -> str:
        return f"Dual({self.primal}, {self.tangent})"

    def __add__(self, other) -> Dual:
        other = _as_dual(other)
        return Dual(self.primal + other.primal, self.tangent + other.tangent)

    def __radd__(self, other) -> Dual:
        return _as_dual(other) + self

    def __sub__(self, other) -> Dual:
        other = _as_dual(other)
        return Dual(self.primal - other.primal, self.tangent - other.tangent)

    def __rsub__(self, other) -> Dual:
        return _as_dual(other) - self

    def __mul__(self, other) -> Dual:
        """`self * other` (a Dual or a constant): the product rule."""
        ### BEGIN SOLUTION
        other = _as_dual(other)  # product rule: (ab)' = a'b + ab'
        return Dual(self.primal * other.primal,
                    self.tangent * other.primal + self.primal * other.tangent)
        ### END SOLUTION

    def __rmul__(self, other) -> Dual:
        return _as_dual(other) * self

    def __truediv__(self, other) -> Dual:
        """`self / other` (a Dual or a constant): the quotient rule."""
        ### BEGIN SOLUTION
        other = _as_dual(other)  # quotient rule: (a/b)' = a'/b - a b'/b²
        return Dual(self.primal / other.primal,
                    self.tangent / other.primal
                    - self.primal * other.tangent / other.primal**2)
        ### END SOLUTION

    def __rtruediv__(self, other) -> Dual:
        return _as_dual(other) / self

    def __neg__(self) -> Dual:
        return Dual(-self.primal, -self.tangent)

    def __pow__(self, exponent) -> Dual:
        """`self ** c` for a constant exponent c: (aᶜ)' = c·aᶜ⁻¹·a'."""
        ### BEGIN SOLUTION
        c = float(exponent)
        return Dual(self.primal**c, c * self.primal ** (c - 1) * self.tangent)
        ### END SOLUTION


def jvp(f: Callable, x, v) -> tuple[np.ndarray, np.ndarray]:
    """Forward mode: `(f(x), J v)` from one evaluation of f on `Dual(x, v)`.

    `x` and `v` are arrays of the same shape; f is built from `ad_modes.ops` and the Dual
    operators. Returns f(x) and the directional derivative J·v, both of f(x)'s shape.
    """
    ### BEGIN SOLUTION
    x = np.asarray(x, dtype=np.float64)
    out = f(Dual(x, np.asarray(v, dtype=np.float64).reshape(x.shape)))
    if not isinstance(out, Dual):  # f ignores its input: J = 0
        out = _as_dual(out)
    return out.primal, out.tangent
    ### END SOLUTION
