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
    raise NotImplementedError


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
        raise NotImplementedError

    def __sub__(self, other) -> Tensor:
        """self - other."""
        raise NotImplementedError

    def __mul__(self, other) -> Tensor:
        """self * other (elementwise)."""
        raise NotImplementedError

    def __truediv__(self, other) -> Tensor:
        """self / other (elementwise)."""
        raise NotImplementedError

    def __matmul__(self, other) -> Tensor:
        """self @ other for 2-D operands: (m, k) @ (k, n) -> (m, n)."""
        raise NotImplementedError

    def __radd__(self, other) -> Tensor:
        """other + self, where other is a Python scalar."""
        raise NotImplementedError

    def __rsub__(self, other) -> Tensor:
        """other - self, where other is a Python scalar."""
        raise NotImplementedError

    def __rmul__(self, other) -> Tensor:
        """other * self, where other is a Python scalar."""
        raise NotImplementedError

    def __rtruediv__(self, other) -> Tensor:
        """other / self, where other is a Python scalar."""
        raise NotImplementedError

    # ---- unary ops ----------------------------------------------------------------------------

    def __neg__(self) -> Tensor:
        """-self."""
        raise NotImplementedError

    def __pow__(self, p: float) -> Tensor:
        """self ** p for a Python scalar exponent p."""
        raise NotImplementedError

    def exp(self) -> Tensor:
        """e ** self, elementwise."""
        raise NotImplementedError

    def log(self) -> Tensor:
        """Natural logarithm."""
        raise NotImplementedError

    def relu(self) -> Tensor:
        """max(x, 0) elementwise (derivative 1 where x > 0, else 0)."""
        raise NotImplementedError

    def tanh(self) -> Tensor:
        """Hyperbolic tangent, elementwise."""
        raise NotImplementedError

    # ---- reductions and shape ops -------------------------------------------------------------

    def sum(self, axis=None, keepdims: bool = False) -> Tensor:
        """Sum over ``axis`` (None: all; an int, possibly negative; or a tuple), as NumPy."""
        raise NotImplementedError

    def mean(self, axis=None, keepdims: bool = False) -> Tensor:
        """Mean over ``axis``, same conventions as ``sum``."""
        raise NotImplementedError

    def reshape(self, *shape) -> Tensor:
        """``t.reshape(3, 2)`` or ``t.reshape((3, 2))``, as NumPy."""
        raise NotImplementedError

    @property
    def T(self) -> Tensor:
        """The transpose (axes reversed, as NumPy's ``.T``)."""
        raise NotImplementedError

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
        raise NotImplementedError


def as_tensor(x) -> Tensor:
    """Wrap a Python scalar (or array) as a constant Tensor; leave Tensors alone."""
    return x if isinstance(x, Tensor) else Tensor(x)


def expand_to(g: np.ndarray, shape: tuple[int, ...], axis, keepdims: bool) -> np.ndarray:
    """A helper you may use (or delete): the backward of ``sum(axis, keepdims)``, i.e. ``g``
    copied back along the reduced axes to an operand of ``shape``."""
    raise NotImplementedError


def topological_order(root: Tensor) -> list[Tensor]:
    """Every node reachable from ``root`` (root included), each listed once and after all of its
    inputs (so ``root`` comes last). Any valid order is accepted.

    Must not recurse once per node: a graph 10,000 ops deep has to work (use an explicit stack).
    """
    raise NotImplementedError
