"""Task 6: what a mixed sweep does to the extrapolation. The two smallest budgets of an isoFLOP
sweep were trained on another data mix; fitting N_opt ~ k C^a through every budget's vertex
extrapolates to a wrong optimum at a budget far beyond the sweep. `invalid_sweep_runs` finds the
off-mix runs (the mix is the second key field here), and the fit through the clean runs alone
extrapolates correctly. Everything recorded is computed by your own functions."""

import numpy as np
from common import mixed_isoflop_sweep

from autograder.harness import graded
from scaling import fit_power_law, invalid_sweep_runs, isoflop_minima

FIELDS = ["tokenizer", "data_mix"]
TARGET_C = 1e24  # four orders of magnitude beyond the sweep


def sweep_cases(rng):
    budgets = [1e18, 3e18, 1e19, 3e19, 1e20]
    runs, _ = mixed_isoflop_sweep(rng, budgets, off_mix_budgets={1e18, 3e18})
    return {"runs": runs}


def extrapolate(runs):
    """(k, exponent) of N_opt ~ k C^a through the isoFLOP vertices of `runs`, and N_opt at TARGET_C."""
    C, N, _ = np.asarray(isoflop_minima([(r["C"], r["N"], r["loss"]) for r in runs]), float).T
    k, exponent = (float(v) for v in fit_power_law(C, N))
    return k, exponent, k * TARGET_C**exponent


@graded(points=2, cases=sweep_cases)
def test_mixed_sweep_extrapolation(rec, cases):
    runs = cases["runs"]
    flagged = invalid_sweep_runs(runs, FIELDS)
    rec.exact("flagged", sorted(run["id"] for run in flagged))
    flagged_ids = {run["id"] for run in flagged}
    clean = [run for run in runs if run["id"] not in flagged_ids]
    *_, n_all = extrapolate(runs)
    k, exponent, n_clean = extrapolate(clean)
    rec.close("N_opt_at_target_all_runs", n_all, rtol=1e-6)
    rec.close("clean_fit", np.asarray([k, exponent]), rtol=1e-6)
    rec.close("N_opt_at_target_clean_runs", n_clean, rtol=1e-6)
