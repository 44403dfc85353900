# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
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
        return None

    def zero_grad(self) -> None:
        """Forget the accumulated gradients, so the next backward() starts from nothing.
        Setting ``.grad`` to None or to zeros is fine. Must also work before any backward()
        (when ``.grad`` is still None), as the first step of a training loop calls it."""
        return None
