# Variant repro/float32_inside: seed_study's mean, std and interval computed in float32
"""Seed variance: a t-based confidence interval over seeds, and Welch's t-test between groups."""

import math  # noqa: F401 (used by the solution)
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np  # noqa: F401 (used by the solution)

from .seeding import seed_everything  # noqa: F401 (used by the solution)


@dataclass(frozen=True)
class SeedStudy:
    """The final metric of one configuration over several seeds."""

    mean: float
    std: float  # sample standard deviation (ddof=1)
    ci95: tuple[float, float]  # (lo, hi): 95% t-interval of the mean
    values: list[float]  # train_fn's result per seed, in the order of the seeds


def seed_study(train_fn: Callable[[int], float], seeds: Sequence[int]) -> SeedStudy:
    """For each seed s in order: seed_everything(s), then value = float(train_fn(s)).

    Returns SeedStudy(mean, std, ci95, values) with std the sample standard deviation (ddof=1)
    and ci95 = (mean - h, mean + h), h = t_{0.975, n-1} * std / sqrt(n): the t quantile with
    n - 1 degrees of freedom (2.776 for 5 seeds, not the normal 1.96), times the standard error.
    Raises ValueError for fewer than 2 seeds (no spread can be estimated from one run).
    """
    from scipy import stats as scipy_stats

    seeds = list(seeds)
    if len(seeds) < 2:
        raise ValueError(f"a seed study needs at least 2 seeds, got {len(seeds)}")
    values = []
    for s in seeds:
        seed_everything(s)
        values.append(float(train_fn(s)))
    v = np.asarray(values, dtype=np.float32)
    n = len(values)
    mean = float(v.mean(dtype=np.float32))
    std = float(v.std(ddof=1, dtype=np.float32))
    half = float(np.float32(scipy_stats.t.ppf(0.975, n - 1)) * np.float32(std) / np.float32(math.sqrt(n)))
    return SeedStudy(mean, std, (mean - half, mean + half), values)


def welch_t_test(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Welch's two-sided t-test of equal means without assuming equal variances.

    Returns (statistic, pvalue), equal to scipy.stats.ttest_ind(a, b, equal_var=False):
    t = (mean(a) - mean(b)) / sqrt(var(a)/n_a + var(b)/n_b) with ddof=1 variances, and the
    Welch–Satterthwaite degrees of freedom. Edge cases as scipy: identical samples give
    (0.0, 1.0); both samples constant give (+-inf, 0.0) for different means and (nan, nan) for
    equal ones. Both samples have at least 2 values.
    """
    ### BEGIN SOLUTION
    from scipy import stats as scipy_stats

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
        statistic = (np.mean(a) - np.mean(b)) / np.sqrt(va + vb)
    if np.isnan(df):
        df = 1.0  # both variances are 0: t is +-inf or nan, and any df gives scipy's p
    pvalue = 2.0 * scipy_stats.t.sf(np.abs(statistic), df)
    return float(statistic), float(pvalue)
    ### END SOLUTION


def significantly_different(a: Sequence[float], b: Sequence[float], alpha: float = 0.05) -> bool:
    """True when Welch's t-test rejects equal means at level alpha: pvalue < alpha."""
    ### BEGIN SOLUTION
    return bool(welch_t_test(a, b)[1] < alpha)
    ### END SOLUTION
