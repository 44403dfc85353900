"""Seeding every random number generator a training run draws from."""

import random  # noqa: F401 (used by the solution)

import numpy as np  # noqa: F401 (used by the solution)
import torch  # noqa: F401 (used by the solution)


def seed_everything(seed: int) -> None:
    """Seed Python's `random`, NumPy's global RNG and torch (CPU and every CUDA device).

    seed: a non-negative int below 2**32 (NumPy's limit). After seed_everything(s), the next
    draws of random.random(), np.random.rand() and torch.rand() are the same in every run and
    every process; a different seed gives different draws.
    """
    raise NotImplementedError
