"""Plain stochastic gradient descent over minigrad leaves."""

from collections.abc import Iterable

import numpy as np

from minigrad.engine import Tensor


class SGD:
    """``p.data <- p.data - lr * p.grad`` for every parameter that has a gradient."""

    def __init__(self, params: Iterable[Tensor], lr: float):
        self.params = list(params)
        self.lr = lr

    def step(self) -> None:
        for p in self.params:
            if p.grad is not None:
                p.data -= self.lr * p.grad  # in place

    def zero_grad(self) -> None:
        # Gradients accumulate across backward passes, so every step must start from nothing.
        for p in self.params:
            p.grad = np.zeros_like(p.data)  # zeros, not None
