"""Regenerate the numbers of the repro handout (README.md) from the reference solution.

    .venv/bin/python assignments/07_repro/make_tables.py          # rewrite the generated blocks
    .venv/bin/python assignments/07_repro/make_tables.py --check  # exit 1 if the handout is stale

Blocks (see assignments/handout_blocks.py):
- repro-seed-variance: the seed study of make_plots.py (the same `train`, 10 seeds; about 10 s of
  CPU time): range, ratio, mean and 95 % t-interval of the final loss, and Welch's test between
  seeds 0-4 and 5-9;
- repro-t-quantiles: Student's t quantiles the handout quotes (scipy.stats.t.ppf).
"""

from __future__ import annotations

import sys
from pathlib import Path

from scipy import stats

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from handout_blocks import main
from make_plots import SEEDS, train

from repro import seed_study, welch_t_test  # make_plots put solutions/ on the path


def seed_variance() -> str:
    study = seed_study(train, SEEDS)
    values = study.values
    t, p = welch_t_test(values[:5], values[5:])
    return (f"In our run the final training MSE over the {len(values)} seeds ranged from "
            f"{min(values):.3f} to {max(values):.3f} (the worst seed {max(values) / min(values):.2f}× "
            f"the best), mean {study.mean:.3f} with 95% t-interval ({study.ci95[0]:.3f}, "
            f"{study.ci95[1]:.3f}). Split into seeds 0–4 and 5–9, the two groups of this run "
            f"{'do *not* differ' if p >= 0.05 else 'differ'} significantly (Welch t = {t:.2f}, "
            f"p = {p:.2f})")


def t_quantiles() -> str:
    q = {n: stats.t.ppf(0.975, n - 1) for n in (5, 2, 10)}
    return (f"for 5 seeds t₀.₉₇₅,₄ = {q[5]:.3f}, not 1.96 (for 2 seeds, {q[2]:.3f}; for 10, "
            f"{q[10]:.3f} —")


def generate(timings: bool) -> dict[str, str]:
    return {"repro-seed-variance": seed_variance(), "repro-t-quantiles": t_quantiles()}


if __name__ == "__main__":
    sys.exit(main(HERE / "README.md", generate))
