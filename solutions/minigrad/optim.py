"""Plain stochastic gradient descent over minigrad leaves."""

from collections.abc import Iterable

from minigrad.engine import Tensor


class SGD:
    """Stochastic gradient descent: ``p.data <- p.data - lr * p.grad``.

    Args:
        params: the leaf Tensors to train (any iterable; keep your own list).
        lr: the learning rate.
    """

    def __init__(self, params: Iterable[Tensor], lr: float):
        self.params = list(params)
        self.lr = lr

    def step(self) -> None:
        """Update every parameter that has a gradient (``.grad`` not None) in place of its
        ``.data``: ``p.data - lr * p.grad``. Parameters with no gradient are left alone."""
        ### BEGIN SOLUTION
        for p in self.params:
            if p.grad is not None:
                p.data = p.data - self.lr * p.grad
        ### END SOLUTION

    def zero_grad(self) -> None:
        """Forget the accumulated gradients, so the next backward() starts from nothing.
        Setting ``.grad`` to None or to zeros is fine. Must also work before any backward()
        (when ``.grad`` is still None), as the first step of a training loop calls it."""
        ### BEGIN SOLUTION
        # Gradients accumulate across backward passes, so every step must start from nothing.
        for p in self.params:
            p.grad = None
        ### END SOLUTION
