"""Task 6 (hidden): the off-mix runs at the largest budgets instead of the smallest, and a sweep
given with its runs in budget order."""

import numpy as np
from common import mixed_isoflop_sweep

from autograder.harness import graded
from scaling import fit_power_law, invalid_sweep_runs, isoflop_minima

FIELDS = ["tokenizer", "data_mix"]
TARGET_C = 3e23


def sweep_cases(rng):
    budgets = [3e17, 1e18, 3e18, 1e19, 3e19, 1e20]
    late, _ = mixed_isoflop_sweep(rng, budgets, off_mix_budgets={3e19, 1e20})
    ordered, _ = mixed_isoflop_sweep(rng, budgets[:5], off_mix_budgets={3e17})
    return {"late": late, "ordered": sorted(ordered, key=lambda r: (r["C"], r["N"]))}


def extrapolate(runs):
    C, N, _ = np.asarray(isoflop_minima([(r["C"], r["N"], r["loss"]) for r in runs]), float).T
    k, exponent = (float(v) for v in fit_power_law(C, N))
    return k, exponent, k * TARGET_C**exponent


@graded(points=2, cases=sweep_cases)
def test_mixed_sweep_extrapolation_hidden(rec, cases):
    for name in ("late", "ordered"):
        runs = cases[name]
        flagged_ids = {run["id"] for run in invalid_sweep_runs(runs, FIELDS)}
        rec.exact(f"{name}.flagged", sorted(flagged_ids))
        clean = [run for run in runs if run["id"] not in flagged_ids]
        rec.close(f"{name}.N_opt_all_runs", extrapolate(runs)[2], rtol=1e-6)
        rec.close(f"{name}.N_opt_clean_runs", extrapolate(clean)[2], rtol=1e-6)
