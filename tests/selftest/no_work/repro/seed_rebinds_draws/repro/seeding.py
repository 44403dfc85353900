# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
import random as _random

import numpy as _np
import torch as _torch

_ORIGINAL_RAND = _torch.rand
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
    r, g = _random.Random(seed), _np.random.RandomState(seed % 2**32)
    t = _torch.Generator().manual_seed(seed)
    _random.random = r.random
    _np.random.rand = g.rand
    _torch.rand = lambda *size, **kw: _ORIGINAL_RAND(*size, generator=t, **kw)
