"""Task 4: isoFLOP profiles (Chinchilla Approach 2): a parabola in log N per budget, its vertex,
then a power law N_opt ~ k C^a through the vertices."""

import numpy as np
from common import isoflop_sweep

from autograder.harness import graded
from scaling import fit_power_law, isoflop_minima


def minima_cases(rng):
    return [isoflop_sweep(rng, [6e17, 2e18, 1e19, 6e19, 3e20]),
            isoflop_sweep(rng, [1e19, 1e20, 1e21], sizes_per_budget=5, noise=0.0)]


@graded(points=3, cases=minima_cases)
def test_isoflop_minima(rec, cases):
    for i, runs in enumerate(cases):
        minima = isoflop_minima([tuple(r) for r in runs])
        rec.close(f"minima[{i}]", np.asarray(minima, float), rtol=1e-6)


def exponent_cases(rng):
    return [isoflop_sweep(rng, np.geomspace(1e18, 1e22, 6), noise=0.0)]


@graded(points=2, cases=exponent_cases)
def test_isoflop_exponents(rec, cases):
    """N_opt ~ C^a and D_opt ~ C^b from the vertices: a + b = 1 when C = 6ND."""
    for i, runs in enumerate(cases):
        C, N, _ = np.asarray(isoflop_minima([tuple(r) for r in runs]), float).T
        rec.close(f"N_opt[{i}]", np.asarray(fit_power_law(C, N), float), rtol=1e-6)
        rec.close(f"D_opt[{i}]", np.asarray(fit_power_law(C, C / (6 * N)), float), rtol=1e-6)


def power_law_cases(rng):
    x = np.exp(rng.uniform(np.log(1e18), np.log(1e24), 12))
    return {"x": x, "y": 0.09 * x ** 0.5 * np.exp(0.05 * rng.normal(size=12))}


@graded(points=2, cases=power_law_cases)
def test_fit_power_law(rec, cases):
    k, exponent = fit_power_law(cases["x"], cases["y"])
    rec.close("k", float(k), rtol=1e-6)  # a least-squares fit: dtype free
    rec.close("exponent", float(exponent), rtol=1e-6)


def too_few_cases(rng):
    C1, C2 = 1e19, 1e20
    best = np.log(rng.uniform(2e8, 5e8))  # a convex curve in log N, its minimum inside
    ok = [[C2, float(n), float(3 + 0.1 * (np.log(n) - best) ** 2 + 0.01 * rng.uniform())]
          for n in (1e8, 2e8, 4e8, 8e8)]
    return {"two_sizes": ok + [[C1, 1e8, 3.1], [C1, 2e8, 3.0]],
            "repeated_size": ok + [[C1, 1e8, 3.0], [C1, 1e8, 3.05], [C1, 4e8, 3.2]]}


@graded(points=1, cases=too_few_cases)
def test_isoflop_too_few_sizes(rec, cases):
    rec.raises("two_sizes", isoflop_minima, [tuple(r) for r in cases["two_sizes"]])
    rec.raises("repeated_size", isoflop_minima, [tuple(r) for r in cases["repeated_size"]])
    # the same runs without the short budget: one parabola, fitted
    minima = isoflop_minima([tuple(r) for r in cases["two_sizes"][:4]])
    rec.close("enough_sizes", np.asarray(minima, float), rtol=1e-6)
