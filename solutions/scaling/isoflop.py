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
    ### BEGIN SOLUTION
    # A parabola that opens downward has no minimum: also a ValueError here (left free).
    profiles = defaultdict(list)
    for C, N, loss in runs:
        profiles[float(C)].append((float(N), float(loss)))
    minima = []
    for C, points in sorted(profiles.items()):
        N, loss = np.array(points).T
        if len(set(N)) < 3:
            raise ValueError(f"budget C={C:g} has fewer than 3 model sizes")
        a, b, c = np.polyfit(np.log(N), loss, 2)
        if a <= 0:
            raise ValueError(f"budget C={C:g}: the loss curve has no minimum")
        x = -b / (2 * a)
        minima.append((C, float(np.exp(x)), float(c - b * b / (4 * a))))
    return minima
    ### END SOLUTION


def fit_power_law(x, y) -> tuple[float, float]:
    """(k, exponent) with y ~ k * x**exponent: least squares on log y = log k + exponent log x.

    x, y: 1-D arrays of positive numbers, same length (>= 2).
    """
    ### BEGIN SOLUTION
    exponent, log_k = np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)
    return float(np.exp(log_k)), float(exponent)
    ### END SOLUTION
