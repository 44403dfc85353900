"""minigrad: a define-by-run reverse-mode autograd engine over NumPy float64 arrays."""

from minigrad.engine import Tensor, topological_order, unbroadcast
from minigrad.optim import SGD

__all__ = ["SGD", "Tensor", "topological_order", "unbroadcast"]
