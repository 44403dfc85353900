"""Task 4 (hidden): isoFLOP minima with uneven sweeps (different sizes per budget, repeated
seeds of one size), and the exponents through them."""

import numpy as np
from common import isoflop_sweep

from autograder.harness import graded
from scaling import fit_power_law, isoflop_minima


def uneven_sweep(rng, budgets, noise=2e-3):
    """4 to 9 sizes per budget over a wider spread around the optimum; two of them run twice."""
    return isoflop_sweep(rng, budgets, sizes_per_budget=None, noise=noise, spread=0.7, span=10, reseeded=2)


def minima_cases(rng):
    return [uneven_sweep(rng, np.geomspace(1e17, 1e21, 7)),
            uneven_sweep(rng, [3e20, 1e18, 3e19])]


@graded(points=2, cases=minima_cases)
def test_isoflop_minima_uneven(rec, cases):
    for i, runs in enumerate(cases):
        minima = isoflop_minima(iter([tuple(r) for r in runs]))
        rec.close(f"minima[{i}]", np.asarray(minima, float), rtol=1e-6)


def exponent_cases(rng):
    return [uneven_sweep(rng, np.geomspace(1e18, 1e23, 8), noise=0.0)]


@graded(points=1, cases=exponent_cases)
def test_isoflop_exponents_hidden(rec, cases):
    for i, runs in enumerate(cases):
        C, N, _ = np.asarray(isoflop_minima([tuple(r) for r in runs]), float).T
        rec.close(f"N_opt[{i}]", np.asarray(fit_power_law(C, N), float), rtol=1e-6)


@graded(points=1)
def test_isoflop_too_few_sizes_hidden(rec, cases):
    good = [(1e20, n, 2.9 + 0.01 * k * k) for k, n in enumerate([1e8, 3e8, 1e9, 3e9])]
    seeds = [(1e19, 1e8, 3.0), (1e19, 1e8, 3.02), (1e19, 4e8, 3.3), (1e19, 4e8, 3.28)]
    rec.raises("seeds_of_two_sizes", isoflop_minima, good + seeds)
    rec.raises("one_size", isoflop_minima, good + [(1e18, 1e8, 3.5)])
