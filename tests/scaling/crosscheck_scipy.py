"""Cross-check the stored goldens of `scaling` against independent computations (instructors).

    .venv/bin/python tests/scaling/crosscheck_scipy.py

- fits: from each stored dataset, scipy L-BFGS-B with tight tolerances (and this script's own
  gradient) from every start of the test grid, and a finite-difference (no gradient) fit, must
  land within the tests' tolerances of the golden fit; the golden must also beat every one of
  them in objective value up to 1e-6 (relative), i.e. it is the best minimum the grid reaches.
  With CROSSCHECK_QUICK=1 in the environment (the self-test in `make test` sets it), the tight
  fit starts from the golden itself and from every 7th start of the grid, and the
  finite-difference fit from the golden: a golden that is not a minimum of the independent
  objective moves away, and one worse than a sampled start loses to it;
- compute_optimal: numerical minimization of L(N, C / 6N) over log N;
- inference_optimal: numerical minimization of 6 N D(N) + 2 N D_inf over log N on the constraint;
- isoflop minima: np.linalg.lstsq on the Vandermonde matrix in log N (not np.polyfit).
Prints each mismatch and a summary (autograder/authoring/crosscheck.py); exits non-zero on a mismatch.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize, minimize_scalar

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from autograder.authoring.crosscheck import Finding, Golden, main

TOL = {"alpha": (1e-3, 0), "beta": (1e-3, 0), "E": (0, 1e-3), "A": (0, 0.02), "B": (0, 0.02)}
QUICK = os.environ.get("CROSSCHECK_QUICK") == "1"  # the fits from a sample of starts (see above)


def report(ok: bool, what: str) -> Finding:
    """One check's finding (`what` names it and its numbers)."""
    return Finding(what, None if ok else "disagrees")


def huber_objective(theta, logN, logD, logL, delta=1e-3):
    a, b, e, alpha, beta = theta
    pred = np.logaddexp(np.logaddexp(a - alpha * logN, b - beta * logD), e)
    r = np.abs(pred - logL)
    return np.where(r <= delta, 0.5 * r**2, delta * (r - 0.5 * delta)).sum()


def huber_value_and_grad(theta, logN, logD, logL, delta=1e-3):
    """huber_objective and its gradient in theta (written here, independently of solutions/)."""
    a, b, e, alpha, beta = theta
    terms = np.stack([a - alpha * logN, b - beta * logD, np.full_like(logN, e)])
    top = terms.max(axis=0)
    weights = np.exp(terms - top)
    pred = top + np.log(weights.sum(axis=0))
    weights /= weights.sum(axis=0)  # d pred / d (each term): the softmax
    r = pred - logL
    small = np.abs(r) <= delta
    value = np.where(small, 0.5 * r**2, delta * (np.abs(r) - 0.5 * delta)).sum()
    dr = np.where(small, r, delta * np.sign(r))
    grad = np.array([(dr * weights[0]).sum(), (dr * weights[1]).sum(), (dr * weights[2]).sum(),
                     -(dr * weights[0] * logN).sum(), -(dr * weights[1] * logD).sum()])
    return value, grad


def check_fits(golden: Golden):
    import itertools
    starts = list(itertools.product([0.0, 10.0, 20.0], [0.0, 10.0, 20.0], [-1.0, 0.0, 1.0],
                                    [0.0, 1.0, 2.0], [0.0, 1.0, 2.0]))[::7]
    for i, c in enumerate(golden.cases):
        logs = tuple(np.log(np.asarray(c[k], float)) for k in ("N", "D", "loss"))
        gold = {k: golden.expected(f"fit[{i}].{k}") for k in TOL}
        gold_theta = [np.log(gold["A"]), np.log(gold["B"]), np.log(gold["E"]), gold["alpha"],
                      gold["beta"]]
        f_gold = huber_objective(gold_theta, *logs)
        tight_starts, fd_starts = (([gold_theta] + starts[::7], [gold_theta]) if QUICK
                                   else (starts, starts))
        best = min((minimize(huber_value_and_grad, s, args=logs, method="L-BFGS-B", jac=True,
                             options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000})
                    for s in tight_starts), key=lambda r: r.fun)
        fd = min((minimize(huber_objective, s, args=logs, method="L-BFGS-B") for s in fd_starts),
                 key=lambda r: r.fun)
        for label, res in (("tight", best), ("finite-diff", fd)):
            a, b, e, alpha, beta = res.x
            got = {"E": np.exp(e), "A": np.exp(a), "B": np.exp(b), "alpha": alpha, "beta": beta}
            worst = max((abs(got[k] - gold[k]) / (TOL[k][0] + TOL[k][1] * abs(gold[k])))
                        for k in TOL)
            yield report(worst <= 0.5, f"{golden.id}[{i}] {label} fit vs golden: worst deviation "
                                 f"{worst:.3f} of tolerance")
        yield report(f_gold <= best.fun * (1 + 1e-6) + 1e-12,
               f"{golden.id}[{i}] golden objective {f_gold:.6e} vs tight best {best.fun:.6e}")


def numeric_compute_optimal(p, C):
    """argmin over N of L(N, C / 6N), by bounded scalar minimization in log N."""
    _, A, B, alpha, beta = p
    res = minimize_scalar(lambda x: A * np.exp(-alpha * x) + B * (C / (6 * np.exp(x))) ** -beta,
                          bounds=(np.log(1e3), np.log(C / 6e3)), method="bounded",
                          options={"xatol": 1e-11})
    return np.exp(res.x)


def numeric_inference_optimal(p, target, d_inf):
    """argmin over N of log(6 N D(N) + 2 N D_inf) on the curve L(N, D(N)) = target."""
    E, A, B, alpha, beta = p

    def log_flops(x):
        gap = target - E - A * np.exp(-alpha * x)
        if gap <= 0:
            return np.inf
        return np.log(np.exp(x) * (6 * (B / gap) ** (1 / beta) + 2 * d_inf))

    lo = np.log(A / (target - E)) / alpha
    res = minimize_scalar(log_flops, bounds=(lo + 1e-9, lo + 30), method="bounded",
                          options={"xatol": 1e-11})
    return np.exp(res.x)


def check_compute_optimal(golden: Golden):
    for i, c in enumerate(golden.cases):
        N = golden.expected(f"N_opt[{i}]")
        for C, n in zip(np.ravel(c["C"]), np.ravel(N)):
            best = numeric_compute_optimal(c["p"], C)
            yield report(abs(best / n - 1) < 1e-6, f"{golden.id}[{i}] C={C:.3g} N_opt={n:.6g}")


def check_inference(golden: Golden):
    for i, c in enumerate(golden.cases):
        E, A, B, alpha, beta = c["p"]
        N, D = golden.expected(f"N_D[{i}]")
        best = numeric_inference_optimal(c["p"], c["target"], c["d_inf"])
        on_curve = E + A / N**alpha + B / D**beta
        yield report(abs(best / N - 1) < 1e-5 and abs(on_curve - c["target"]) < 1e-9,
               f"{golden.id}[{i}] N={N:.6g} (scipy {best:.6g}), L(N,D)-target="
               f"{on_curve - c['target']:.1e}")


def check_isoflop(golden: Golden):
    for i, runs in enumerate(golden.cases):
        got = np.asarray(golden.expected(f"minima[{i}]"), float)
        runs = np.asarray(runs, float)
        for row, C in zip(got, np.unique(runs[:, 0])):
            sel = runs[runs[:, 0] == C]
            x = np.log(sel[:, 1])
            (c2, c1, c0), *_ = np.linalg.lstsq(np.stack([x**2, x, x**0], 1), sel[:, 2], rcond=None)
            want = [C, np.exp(-c1 / (2 * c2)), c0 - c1**2 / (4 * c2)]
            yield report(np.allclose(row, want, rtol=1e-8), f"{golden.id}[{i}] C={C:.3g} vertex {row[1:]}")


def scipy_oracle(golden: Golden):
    test = golden.id
    if test.startswith("test_fit_") and test != "test_fit_power_law":
        yield from check_fits(golden)
    elif test.startswith("test_compute_optimal") and "numeric" not in test:
        yield from check_compute_optimal(golden)
    elif test.startswith("test_inference_optimal"):
        yield from check_inference(golden)
    elif test.startswith("test_isoflop_minima"):
        yield from check_isoflop(golden)


if __name__ == "__main__":
    sys.exit(main(__file__, scipy_oracle, "scipy (fits, optima) and numpy (isoFLOP vertices)"))
