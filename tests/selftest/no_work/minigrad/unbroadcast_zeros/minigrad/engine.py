# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""The autograd engine: a Tensor that records the graph as it computes, and reverse-mode backward.

Design (you may change the internals; only the public API is graded): every op returns a new
Tensor that remembers its parents and a closure ``_backward(g)`` which, given the gradient ``g``
of the loss with respect to the op's output, returns the gradient with respect to each parent.
``backward()`` then visits the graph once, in reverse topological order.
"""

from __future__ import annotations

import numpy as np


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a gradient of a broadcast result back to the operand's ``shape``.

    Args:
        grad: gradient with respect to the broadcast result, e.g. shape (4, 2, 3).
        shape: the operand's shape before broadcasting, e.g. (2, 1) or () or (1, 1, 3).
    Returns:
        A float64 ndarray of exactly ``shape``. NumPy broadcasting prepends axes on the left and
        stretches axes of size 1; the operand's gradient sums over both kinds of axis.
    Example: unbroadcast(np.ones((4, 2, 3)), (2, 1)) == np.full((2, 1), 12.0)
    """
    return np.zeros(shape)


class Tensor:
    """A float64 array that records the operations applied to it (define-by-run).

    Attributes:
        data: ``np.ndarray`` of float64 (converted from whatever was given).
        grad: None until a backward pass reaches this tensor; then an ndarray of ``data.shape``.
        requires_grad: whether gradients should flow to this tensor. An op's output requires
            grad when any of its inputs does.
    """

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

    # ---- binary ops: NumPy broadcasting, so each gradient goes through unbroadcast -----------
    # `other` may be a Tensor or a Python scalar (wrap it with as_tensor).

    def __add__(self, other) -> Tensor:
        """self + other."""
        ### BEGIN SOLUTION
        other = as_tensor(other)
        out = Tensor(self.data + other.data, _parents=(self, other))
        out._backward = lambda g: (unbroadcast(g, self.shape), unbroadcast(g, other.shape))
        return out
        ### END SOLUTION

    def __sub__(self, other) -> Tensor:
        """self - other."""
        ### BEGIN SOLUTION
        other = as_tensor(other)
        out = Tensor(self.data - other.data, _parents=(self, other))
        out._backward = lambda g: (unbroadcast(g, self.shape), unbroadcast(-g, other.shape))
        return out
        ### END SOLUTION

    def __mul__(self, other) -> Tensor:
        """self * other (elementwise)."""
        ### BEGIN SOLUTION
        other = as_tensor(other)
        out = Tensor(self.data * other.data, _parents=(self, other))
        out._backward = lambda g: (
            unbroadcast(g * other.data, self.shape),
            unbroadcast(g * self.data, other.shape),
        )
        return out
        ### END SOLUTION

    def __truediv__(self, other) -> Tensor:
        """self / other (elementwise)."""
        ### BEGIN SOLUTION
        other = as_tensor(other)
        out = Tensor(self.data / other.data, _parents=(self, other))
        out._backward = lambda g: (  # d(a/b) = da / b - a db / b^2
            unbroadcast(g / other.data, self.shape),
            unbroadcast(-g * self.data / other.data**2, other.shape),
        )
        return out
        ### END SOLUTION

    def __matmul__(self, other) -> Tensor:
        """self @ other for 2-D operands: (m, k) @ (k, n) -> (m, n)."""
        ### BEGIN SOLUTION
        # C = A @ B  =>  dA = dC @ B^T,  dB = A^T @ dC   (2-D operands)
        out = Tensor(self.data @ other.data, _parents=(self, other))
        out._backward = lambda g: (g @ other.data.T, self.data.T @ g)
        return out
        ### END SOLUTION

    def __radd__(self, other) -> Tensor:
        """other + self, where other is a Python scalar."""
        ### BEGIN SOLUTION
        return as_tensor(other) + self
        ### END SOLUTION

    def __rsub__(self, other) -> Tensor:
        """other - self, where other is a Python scalar."""
        ### BEGIN SOLUTION
        return as_tensor(other) - self
        ### END SOLUTION

    def __rmul__(self, other) -> Tensor:
        """other * self, where other is a Python scalar."""
        ### BEGIN SOLUTION
        return as_tensor(other) * self
        ### END SOLUTION

    def __rtruediv__(self, other) -> Tensor:
        """other / self, where other is a Python scalar."""
        ### BEGIN SOLUTION
        return as_tensor(other) / self
        ### END SOLUTION

    # ---- unary ops ----------------------------------------------------------------------------

    def __neg__(self) -> Tensor:
        """-self."""
        ### BEGIN SOLUTION
        out = Tensor(-self.data, _parents=(self,))
        out._backward = lambda g: (-g,)
        return out
        ### END SOLUTION

    def __pow__(self, p: float) -> Tensor:
        """self ** p for a Python scalar exponent p."""
        ### BEGIN SOLUTION
        out = Tensor(self.data**p, _parents=(self,))
        out._backward = lambda g: (g * p * self.data ** (p - 1),)
        return out
        ### END SOLUTION

    def exp(self) -> Tensor:
        """e ** self, elementwise."""
        ### BEGIN SOLUTION
        out = Tensor(np.exp(self.data), _parents=(self,))
        out._backward = lambda g: (g * out.data,)
        return out
        ### END SOLUTION

    def log(self) -> Tensor:
        """Natural logarithm."""
        ### BEGIN SOLUTION
        out = Tensor(np.log(self.data), _parents=(self,))
        out._backward = lambda g: (g / self.data,)
        return out
        ### END SOLUTION

    def relu(self) -> Tensor:
        """max(x, 0) elementwise (derivative 1 where x > 0, else 0)."""
        ### BEGIN SOLUTION
        out = Tensor(np.maximum(self.data, 0.0), _parents=(self,))
        out._backward = lambda g: (g * (self.data > 0),)
        return out
        ### END SOLUTION

    def tanh(self) -> Tensor:
        """Hyperbolic tangent, elementwise."""
        ### BEGIN SOLUTION
        out = Tensor(np.tanh(self.data), _parents=(self,))
        out._backward = lambda g: (g * (1.0 - out.data**2),)
        return out
        ### END SOLUTION

    # ---- reductions and shape ops -------------------------------------------------------------

    def sum(self, axis=None, keepdims: bool = False) -> Tensor:
        """Sum over ``axis`` (None: all; an int, possibly negative; or a tuple), as NumPy."""
        ### BEGIN SOLUTION
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), _parents=(self,))
        out._backward = lambda g: (expand_to(g, self.shape, axis, keepdims),)
        return out
        ### END SOLUTION

    def mean(self, axis=None, keepdims: bool = False) -> Tensor:
        """Mean over ``axis``, same conventions as ``sum``."""
        ### BEGIN SOLUTION
        out = Tensor(self.data.mean(axis=axis, keepdims=keepdims), _parents=(self,))
        n = self.data.size // out.data.size  # how many elements each output averaged
        out._backward = lambda g: (expand_to(g, self.shape, axis, keepdims) / n,)
        return out
        ### END SOLUTION

    def reshape(self, *shape) -> Tensor:
        """``t.reshape(3, 2)`` or ``t.reshape((3, 2))``, as NumPy."""
        ### BEGIN SOLUTION
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        out = Tensor(self.data.reshape(shape), _parents=(self,))
        out._backward = lambda g: (g.reshape(self.shape),)
        return out
        ### END SOLUTION

    @property
    def T(self) -> Tensor:
        """The transpose (axes reversed, as NumPy's ``.T``)."""
        ### BEGIN SOLUTION
        out = Tensor(self.data.T, _parents=(self,))
        out._backward = lambda g: (g.T,)
        return out
        ### END SOLUTION

    # ---- reverse mode -------------------------------------------------------------------------

    def backward(self, grad=None) -> None:
        """Accumulate d(self)/d(leaf), chained with ``grad``, into ``.grad`` of every leaf that
        requires grad.

        Args:
            grad: the gradient of the final loss with respect to ``self`` (same shape as
                ``self.data``). If None, ``self`` must hold exactly one element (shape (), (1,),
                (1, 1), ...) and the seed is 1; otherwise raise ``ValueError``.
        Contract:
            - Gradients accumulate (+=) into ``.grad`` of leaves, across calls too: calling
              backward twice on the same graph gives twice the gradient.
            - Each node's backward runs exactly once per call, in reverse topological order
              (a chain of 60 diamonds must finish in milliseconds).
            - Iterative: no RecursionError for a graph 10,000 ops deep.
        """
        ### BEGIN SOLUTION
        # grad defaults to 1 for a one-element output; a larger output needs it explicitly.
        if grad is None:
            if self.data.size != 1:
                raise ValueError(
                    f"backward() on a non-scalar output of shape {self.shape} needs grad="
                )
            grad = np.ones_like(self.data)
        grads = {self: np.asarray(grad, dtype=np.float64).reshape(self.shape)}
        for node in reversed(topological_order(self)):
            g = grads.pop(node, None)
            if g is None or not node.requires_grad:
                continue
            if node._backward is None:  # a leaf: accumulate, as PyTorch does
                if node.grad is None:
                    node.grad = np.zeros_like(node.data)
                node.grad += g
                continue
            for parent, parent_grad in zip(node._parents, node._backward(g)):
                if parent.requires_grad:  # a branch point sums the gradients of its uses
                    grads[parent] = grads.get(parent, 0.0) + parent_grad
        ### END SOLUTION


def as_tensor(x) -> Tensor:
    """Wrap a Python scalar (or array) as a constant Tensor; leave Tensors alone."""
    return x if isinstance(x, Tensor) else Tensor(x)


def expand_to(g: np.ndarray, shape: tuple[int, ...], axis, keepdims: bool) -> np.ndarray:
    """A helper you may use (or delete): the backward of ``sum(axis, keepdims)``, i.e. ``g``
    copied back along the reduced axes to an operand of ``shape``."""
    ### BEGIN SOLUTION
    if axis is not None and not keepdims:
        g = np.expand_dims(g, axis)  # put the reduced axes back as size 1
    return np.broadcast_to(g, shape)
    ### END SOLUTION


def topological_order(root: Tensor) -> list[Tensor]:
    """Every node reachable from ``root`` (root included), each listed once and after all of its
    inputs (so ``root`` comes last). Any valid order is accepted.

    Must not recurse once per node: a graph 10,000 ops deep has to work (use an explicit stack).
    """
    ### BEGIN SOLUTION
    # Iterative depth-first search with an explicit stack: no recursion limit, and the visited
    # set makes each node appear once (a chain of diamonds has 2^n paths but 3n nodes).
    order, visited = [], set()
    stack = [(root, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            order.append(node)
            continue
        if node in visited:
            continue
        visited.add(node)
        stack.append((node, True))  # emitted after everything pushed above it
        for parent in node._parents:
            if parent not in visited:
                stack.append((parent, False))
    return order
    ### END SOLUTION
