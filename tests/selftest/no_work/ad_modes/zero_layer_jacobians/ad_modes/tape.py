"""Reverse mode: record the computation on a tape, then pull adjoints back through it.

Every op on a `Var` returns a new `Var` that remembers its inputs and, for each input, a
function g -> gᵀ·(∂out/∂input) (its local vector-Jacobian product). `vjp(f, x)` runs f once to
record the tape and returns a `pullback(u) = uᵀ J` that walks it once in reverse.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a gradient of a broadcast result back to the operand's `shape`."""
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1)
    return grad.sum(axis=axes, keepdims=True).reshape(shape)


def _as_var(value) -> Var:
    return value if isinstance(value, Var) else Var(np.asarray(value, dtype=np.float64))


class Var:
    """A value on the tape: a float64 array, its inputs, and one local VJP per input."""

    __array_ufunc__ = None  # `ndarray op Var` defers to Var's reflected operators

    def __init__(self, value, parents: tuple[Var, ...] = (), vjps: tuple[Callable, ...] = ()):
        self.value = np.asarray(value, dtype=np.float64)
        self.parents = parents
        self.vjps = vjps

    @property
    def shape(self) -> tuple[int, ...]:
        return self.value.shape

    def __repr__(self) -> str:
        return f"Var({self.value})"

    def __add__(self, other) -> Var:
        other = _as_var(other)
        return Var(self.value + other.value, (self, other),
                   (lambda g: unbroadcast(g, self.shape), lambda g: unbroadcast(g, other.shape)))

    def __radd__(self, other) -> Var:
        return _as_var(other) + self

    def __sub__(self, other) -> Var:
        other = _as_var(other)
        return Var(self.value - other.value, (self, other),
                   (lambda g: unbroadcast(g, self.shape), lambda g: unbroadcast(-g, other.shape)))

    def __rsub__(self, other) -> Var:
        return _as_var(other) - self

    def __mul__(self, other) -> Var:
        """`self * other`: a new Var with one local VJP per input (see __add__ for the form)."""
        ### BEGIN SOLUTION
        other = _as_var(other)
        return Var(self.value * other.value, (self, other),
                   (lambda g: unbroadcast(g * other.value, self.shape),
                    lambda g: unbroadcast(g * self.value, other.shape)))
        ### END SOLUTION

    def __rmul__(self, other) -> Var:
        return _as_var(other) * self

    def __truediv__(self, other) -> Var:
        """`self / other`: a new Var with one local VJP per input."""
        ### BEGIN SOLUTION
        other = _as_var(other)
        return Var(self.value / other.value, (self, other),
                   (lambda g: unbroadcast(g / other.value, self.shape),
                    lambda g: unbroadcast(-g * self.value / other.value**2, other.shape)))
        ### END SOLUTION

    def __rtruediv__(self, other) -> Var:
        return _as_var(other) / self

    def __neg__(self) -> Var:
        return Var(-self.value, (self,), (lambda g: -g,))

    def __pow__(self, exponent) -> Var:
        """`self ** c` for a constant exponent c."""
        ### BEGIN SOLUTION
        c = float(exponent)
        return Var(self.value**c, (self,), (lambda g: g * c * self.value ** (c - 1),))
        ### END SOLUTION


def topological_order(root: Var) -> list[Var]:
    """Every Var the root depends on, each once, after all of its inputs (iterative DFS)."""
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
        elif id(node) not in visited:
            visited.add(id(node))
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents if id(p) not in visited)
    return order


def vjp(f: Callable, x) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """Reverse mode: `(f(x), pullback)` with `pullback(u) = uᵀ J`.

    f runs once, on a `Var`, recording the tape. `pullback(u)` takes u of f(x)'s shape and
    returns an array of x's shape; it may be called any number of times, and each call starts
    from fresh adjoints (the same u always gives the same answer).
    """
    ### BEGIN SOLUTION
    leaf = Var(np.asarray(x, dtype=np.float64))
    out = _as_var(f(leaf))
    order = topological_order(out)

    def pullback(u) -> np.ndarray:
        adjoints = {id(out): np.asarray(u, dtype=np.float64).reshape(out.shape)}
        for node in reversed(order):  # every use of a node is visited before the node
            g = adjoints.get(id(node))
            if g is None:
                continue
            for parent, local_vjp in zip(node.parents, node.vjps):
                contribution = local_vjp(g)
                if id(parent) in adjoints:  # a branch point: the adjoints of all uses add up
                    adjoints[id(parent)] = adjoints[id(parent)] + contribution
                else:
                    adjoints[id(parent)] = contribution
        return adjoints.get(id(leaf), np.zeros_like(leaf.value))

    return out.value, pullback
    ### END SOLUTION
