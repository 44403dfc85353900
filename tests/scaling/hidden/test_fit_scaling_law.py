"""Task 2 (hidden): the Approach-3 fit on other draws: two exact-law sweeps (one of only 60 runs)
and another misspecified law. The data and tolerances are as in the public tests (common.sweep,
common.record_fit)."""

from common import STARTS, record_fit, sweep

from autograder.harness import graded
from scaling import fit_scaling_law


def recover_cases(rng):
    return [sweep(rng), sweep(rng, n=60)]


def misspecified_cases(rng):
    return [sweep(rng, interaction=1e3)]


@graded(points=3, cases=recover_cases, timeout=60)
def test_fit_recovers_known_params_hidden(rec, cases):
    for i, c in enumerate(cases):
        record_fit(rec, f"fit[{i}]", fit_scaling_law(c["N"], c["D"], c["loss"], starts=STARTS))


@graded(points=3, cases=misspecified_cases, timeout=60)
def test_fit_objective_hidden(rec, cases):
    for i, c in enumerate(cases):
        record_fit(rec, f"fit[{i}]", fit_scaling_law(c["N"], c["D"], c["loss"], starts=STARTS))
