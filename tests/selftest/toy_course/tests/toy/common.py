"""Shared by the toy's public and hidden tests."""

import numpy as np


def add_cases(rng: np.random.Generator):
    return [[float(x) for x in rng.normal(size=2)] for _ in range(3)]


def mean_cases(rng: np.random.Generator):
    return rng.normal(size=7)
