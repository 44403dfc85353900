"""The autograd engine: a Tensor that records the graph as it computes, and reverse-mode backward.

Every op returns a new Tensor that remembers its parents and a closure ``_backward(g)``: given
the gradient ``g`` of the loss with respect to the op's output, it returns the gradient with
respect to each parent (the local derivative, chained). ``backward()`` visits the graph once,
in reverse topological order, and adds up the contributions that reach each node.
"""

from __future__ import annotations

import numpy as np


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a gradient of a broadcast result back to the operand's ``shape``.

    NumPy broadcasting (1) prepends axes until both operands have the same ndim, then
    (2) stretches axes of size 1. The operand was used once per stretched copy, so its gradient
    is the sum over (1) the prepended leading axes and (2) its size-1 axes.
    """
    out = np.asarray(grad, dtype=np.float64)
    while out.ndim > len(shape):
        out = out.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and out.shape[axis] != 1:
            out = out.sum(axis=axis, keepdims=True)
    return out


class Tensor:
    """A float64 array that records the operations applied to it (define-by-run)."""

    def __init__(self, data, requires_grad: bool = False, _parents: tuple[Tensor, ...] = ()):
        self.data = np.asarray(data, dtype=np.float64)
        self.grad: np.ndarray | None = None
        self.requires_grad = requires_grad or any(p.requires_grad for p in _parents)
        self._parents = _parents
        self._backward = None  # g -> tuple of gradients, one per parent (None for leaves)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    def __repr__(self) -> str:
        return f"Tensor({self.data}, requires_grad={self.requires_grad})"

    # ---- binary ops (NumPy broadcasting: unbroadcast each gradient back) -------------------

    def __add__(self, other) -> Tensor:
        other = as_tensor(other)
        out = Tensor(self.data + other.data, _parents=(self, other))
        out._backward = lambda g: (unbroadcast(g, self.shape), unbroadcast(g, other.shape))
        return out

    def __sub__(self, other) -> Tensor:
        other = as_tensor(other)
        out = Tensor(self.data - other.data, _parents=(self, other))
        out._backward = lambda g: (unbroadcast(g, self.shape), unbroadcast(-g, other.shape))
        return out

    def __mul__(self, other) -> Tensor:
        other = as_tensor(other)
        out = Tensor(self.data * other.data, _parents=(self, other))
        out._backward = lambda g: (
            unbroadcast(g * other.data, self.shape),
            unbroadcast(g * self.data, other.shape),
        )
        return out

    def __truediv__(self, other) -> Tensor:
        other = as_tensor(other)
        out = Tensor(self.data / other.data, _parents=(self, other))
        out._backward = lambda g: (  # d(a/b) = da / b - a db / b^2
            unbroadcast(g / other.data, self.shape),
            unbroadcast(-g * self.data / other.data**2, other.shape),
        )
        return out

    def __matmul__(self, other) -> Tensor:
        # C = A @ B  =>  dA = dC @ B^T,  dB = A^T @ dC   (2-D operands)
        out = Tensor(self.data @ other.data, _parents=(self, other))
        out._backward = lambda g: (g @ other.data.T, self.data.T @ g)
        return out

    def __radd__(self, other) -> Tensor:
        return as_tensor(other) + self

    def __rsub__(self, other) -> Tensor:
        return as_tensor(other) - self

    def __rmul__(self, other) -> Tensor:
        return as_tensor(other) * self

    def __rtruediv__(self, other) -> Tensor:
        return as_tensor(other) / self

    # ---- unary ops ----------------------------------------------------------------------------

    def __neg__(self) -> Tensor:
        out = Tensor(-self.data, _parents=(self,))
        out._backward = lambda g: (-g,)
        return out

    def __pow__(self, p: float) -> Tensor:
        out = Tensor(self.data**p, _parents=(self,))
        out._backward = lambda g: (g * p * self.data ** (p - 1),)
        return out

    def exp(self) -> Tensor:
        out = Tensor(np.exp(self.data), _parents=(self,))
        out._backward = lambda g: (g * out.data,)
        return out

    def log(self) -> Tensor:
        out = Tensor(np.log(self.data), _parents=(self,))
        out._backward = lambda g: (g / self.data,)
        return out

    def relu(self) -> Tensor:
        out = Tensor(np.maximum(self.data, 0.0), _parents=(self,))
        out._backward = lambda g: (g * (self.data > 0),)
        return out

    def tanh(self) -> Tensor:
        out = Tensor(np.tanh(self.data), _parents=(self,))
        out._backward = lambda g: (g * (1.0 - out.data**2),)
        return out

    # ---- reductions and shape ops -------------------------------------------------------------

    def sum(self, axis=None, keepdims: bool = False) -> Tensor:
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), _parents=(self,))
        out._backward = lambda g: (expand_to(g, self.shape, axis, keepdims),)
        return out

    def mean(self, axis=None, keepdims: bool = False) -> Tensor:
        out = Tensor(self.data.mean(axis=axis, keepdims=keepdims), _parents=(self,))
        n = self.data.size // out.data.size  # how many elements each output averaged
        out._backward = lambda g: (expand_to(g, self.shape, axis, keepdims) / n,)
        return out

    def reshape(self, *shape) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        out = Tensor(self.data.reshape(shape), _parents=(self,))
        out._backward = lambda g: (g.reshape(self.shape),)
        return out

    @property
    def T(self) -> Tensor:
        out = Tensor(self.data.T, _parents=(self,))
        out._backward = lambda g: (g.T,)
        return out

    # ---- reverse mode -------------------------------------------------------------------------

    def backward(self, grad=None) -> None:
        """Reverse mode over Kahn's order; every node keeps its .grad (non-leaves too); a root
        that requires no grad does nothing; one-element outputs seed with ones."""
        if not self.requires_grad:
            return
        if grad is None:
            if self.data.size != 1:
                raise NonScalarBackward(f"grad is needed for an output of shape {self.shape}")
            grad = np.ones(self.shape)
        pending = {id(self): np.asarray(grad, dtype=np.float64).reshape(self.shape)}
        for node in reversed(topological_order(self)):
            g = pending.pop(id(node), None)
            if g is None:
                continue
            node.grad = g.copy() if node.grad is None else node.grad + g
            if node._backward is None:
                continue
            for parent, pg in zip(node._parents, node._backward(g)):
                if parent.requires_grad:
                    pending[id(parent)] = pending[id(parent)] + pg if id(parent) in pending else pg


class NonScalarBackward(ValueError):
    """backward() without grad on an output of more than one element."""


def as_tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x)


def expand_to(g: np.ndarray, shape: tuple[int, ...], axis, keepdims: bool) -> np.ndarray:
    """The backward of a sum over ``axis``: copy ``g`` back along the reduced axes."""
    if axis is not None and not keepdims:
        g = np.expand_dims(g, axis)  # put the reduced axes back as size 1
    return np.broadcast_to(g, shape)


def topological_order(root: Tensor) -> list[Tensor]:
    """Kahn's algorithm from the root: count each node's uses, emit a node once all of its
    uses are emitted, then reverse. Wrapped constants are included."""
    uses, seen, stack = {}, {id(root)}, [root]
    nodes = []
    while stack:
        node = stack.pop()
        nodes.append(node)
        for parent in node._parents:
            uses[id(parent)] = uses.get(id(parent), 0) + 1
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    order, ready = [], [root]
    while ready:
        node = ready.pop()
        order.append(node)
        for parent in node._parents:
            uses[id(parent)] -= 1
            if uses[id(parent)] == 0:
                ready.append(parent)
    return order[::-1]
