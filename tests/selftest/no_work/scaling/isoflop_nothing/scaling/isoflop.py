# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""Chinchilla Approach 2: isoFLOP profiles, their minima, and a power law through them."""

from __future__ import annotations

from collections import defaultdict

import numpy as np


def isoflop_minima(runs) -> list[tuple[float, float, float]]:
    """Per compute budget, the vertex of a parabola fitted (least squares) to loss against log N.

    runs: iterable of (C, N, loss) tuples; runs with equal C form one isoFLOP profile, in any
    order.
    Returns [(C, N_opt, loss_at_vertex)] as floats, one per budget, sorted by C.
    Raises ValueError if a budget has fewer than 3 distinct model sizes N.
    """
    return []


def fit_power_law(x, y) -> tuple[float, float]:
    """(k, exponent) with y ~ k * x**exponent: least squares on log y = log k + exponent log x.

    x, y: 1-D arrays of positive numbers, same length (>= 2).
    """
    return 1.0, 0.5
