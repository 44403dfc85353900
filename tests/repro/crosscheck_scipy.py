"""Cross-check the repro goldens against independent oracles. Instructor tool, trusted.

- seed_study: the stored mean and std against numpy / scipy.stats.tstd on the stored values,
  and the solution's ci95 through checks.t_interval_of_mean (scipy.stats.t);
- welch_t_test: the solution's [statistic, pvalue] through checks.matches_scipy_welch
  (scipy.stats.ttest_ind(equal_var=False));
- significantly_different: the stored verdict against scipy's p-value < alpha;
- ordered_sum: the stored sums against a left-to-right loop over NumPy scalars of the dtype;
- every other named check on the solution's own values (they must accept the reference).

    .venv/bin/python tests/repro/crosscheck_scipy.py      # exit 0: goldens agree with the oracles
"""

from __future__ import annotations

import importlib.util
import re
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from autograder.authoring.crosscheck import Golden, main

warnings.simplefilter("ignore", RuntimeWarning)  # scipy: "precision loss" on constant samples
spec = importlib.util.spec_from_file_location("repro_checks", HERE / "checks.py")
checks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(checks)


def index(name: str) -> int:
    return int(re.match(r"\w+\[(\d+)\]", name).group(1))


def sequential(values: np.ndarray, order: list[int]) -> float:
    total = values.dtype.type(0)
    for i in order:
        total = values.dtype.type(total + values[i])
    return float(total)


def stats_oracle(golden: Golden):
    """Named checks run on the goldens themselves; means, stds, Welch tests and ordered sums
    recomputed with numpy / scipy."""
    cases = golden.cases
    for name in golden.observed():
        expected, kind = golden.expected(name), golden.spec.observations[name]
        problem = None
        if kind.kind == "check":
            ctx = SimpleNamespace(inputs=cases, expected=expected, name=name)
            problem = getattr(checks, kind.check)(expected, ctx)
        elif name.startswith("study[") and name.endswith((".mean", ".std")):
            values = np.asarray(cases[index(name)]["values"], dtype=np.float64)
            oracle = values.mean() if name.endswith(".mean") else stats.tstd(values)
            if not np.isclose(expected, oracle, rtol=1e-12, atol=1e-15):
                problem = f"{expected!r} vs numpy/scipy {oracle!r}"
        elif name.startswith("significant["):
            c = cases[index(name)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                p = stats.ttest_ind(c["a"], c["b"], equal_var=False).pvalue
            oracle = bool(p < (0.05 if c["alpha"] is None else c["alpha"]))
            if expected != oracle:
                problem = f"{expected!r} vs scipy p = {p!r}"
        elif name.startswith("sum["):
            c = cases[index(name)]
            oracle = sequential(np.asarray(c["values"]), [int(k) for k in c["order"]])
            if expected != oracle:
                problem = f"{expected!r} vs a NumPy-scalar loop {oracle!r}"
        else:
            continue
        yield golden.finding(name, problem)


if __name__ == "__main__":
    sys.exit(main(__file__, stats_oracle, "scipy.stats / numpy"))
