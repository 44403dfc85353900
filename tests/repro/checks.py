"""Parent-side checks for repro (trusted: they run in the grader, never in the sandbox).

The statistics are judged against scipy.stats (the oracle), the rest against properties the
contract fixes where it leaves the values free (the hash of fingerprint, the RNG use of
atomic_add_simulation, the way seed_everything derives each generator's seed).
"""

from __future__ import annotations

import itertools
import math
import re
import warnings

import numpy as np
from scipy import stats

# scipy warns when a sample's values are nearly identical; the oracle's value is still what the
# student is judged against, so the warning is only noise on the grader's terminal.
PRECISION_LOSS = "Precision loss occurred in moment calculation"


def _quiet_precision_loss() -> None:
    """Ignore scipy's precision-loss warning from now on in this process: a filter added once
    (again if something restored the filters without it), never a `catch_warnings()` block
    around the call. The parent judges gradings in threads, and one thread leaving its block
    restores the filters in the middle of another thread's (the demo printed the warning)."""
    if not any(f[0] == "ignore" and f[1] is not None and f[1].pattern == PRECISION_LOSS
               and f[2] is RuntimeWarning for f in warnings.filters):
        warnings.filterwarnings("ignore", message=PRECISION_LOSS, category=RuntimeWarning)


WORKSPACE_CONFIGS = (":4096:8", ":16:8")
GENERATORS = {"python": "Python's random", "numpy": "NumPy's np.random", "torch": "torch"}
MAX_PERMUTED = 7  # slots with more contributions are not enumerated (tests use at most 6)
# Checks whose values the contract fixes bit for bit (SPEC 5.7: each entry is a left-to-right
# sum in src's dtype, one IEEE addition at a time, the same on every machine): a mutant's value
# is matched exactly there, since another summation order is a few ulps away
# (autograder/grading/float_policy.py; every other value is matched within its allowance).
BITWISE_CHECKS = frozenset({"slot_sums_in_some_order", "trials_vary_seed_repeats"})


def _index(name: str) -> int:
    m = re.match(r"\w+\[(\d+)\]", name)
    return int(m.group(1)) if m else 0


def _floats(value, n: int | None = None) -> list[float] | None:
    """value as a list of floats (of length n), or None when it is not one."""
    if not isinstance(value, list) or (n is not None and len(value) != n):
        return None
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
        return None
    return [float(x) for x in value]


def _same(a: float, b: float, rtol: float = 1e-6, atol: float = 1e-6) -> bool:
    """Equal within the float32-level tolerance the statistics' free dtype allows (1e-6 at the
    scale of the tests' values, which are of order 1)."""
    if math.isnan(b) or math.isinf(b):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return abs(a - b) <= atol + rtol * abs(b)


# ------------------------------------------------------------------ Task 1: seed_everything
def reseeding_repeats_draws(observed, ctx) -> str | None:
    """observed: three runs of draws {"python", "numpy", "torch": [3 floats]}: after
    seed_everything(s) from two prior states, then after seed_everything(other seed).
    Same seed: the same draws; other seed: other draws, for every generator."""
    if not isinstance(observed, list) or len(observed) != 3 or \
            not all(isinstance(r, dict) and set(r) == set(GENERATORS) for r in observed):
        return "expected three runs of draws from python, numpy and torch"
    for key, label in GENERATORS.items():
        runs = [_floats(r[key], 3) for r in observed]
        if any(r is None for r in runs):
            return f"{label}: expected 3 floats per run"
        if runs[0] != runs[1]:
            return (f"{label} draws depend on the generator's state before seed_everything: "
                    f"{label} is not seeded")
        if runs[0] == runs[2]:
            return f"{label} draws the same numbers for two different seeds"
    return None


# ------------------------------------------------------------------ Task 2: deterministic_mode
def deterministic_workspace_config(observed, ctx) -> str | None:
    """CUBLAS_WORKSPACE_CONFIG inside deterministic_mode(): one of the two deterministic values."""
    if observed in WORKSPACE_CONFIGS:
        return None
    return (f"CUBLAS_WORKSPACE_CONFIG is {observed!r} inside the block; cuBLAS is deterministic "
            f"with ':4096:8' or ':16:8'")


# ------------------------------------------------------------------ Task 3: fingerprint
def same_digests_iff(observed, ctx) -> str | None:
    """observed: the digests of a pool (common.record_digests: first, second and a bit copy of
    first for each pair of the test, in the test's order, then the stored decoys), computed in a
    shuffled order. Each bit copy's digest must equal its first's, and any two items' digests
    must be equal exactly when the solution's are (the hash itself is free, but it must be a
    non-empty string): which items are equal is known here, from the solution's digests of the
    same inputs, and in the sandbox only from the items' bits."""
    expected = ctx.expected
    if not isinstance(observed, list) or len(observed) != len(expected) or \
            not all(isinstance(d, str) and d for d in observed):
        return f"fingerprint must return a non-empty str (expected {len(expected)} digests)"
    n_pairs = (len(expected) - len(ctx.inputs["decoys"])) // 3

    def item(i: int) -> str:
        if i < 3 * n_pairs:
            return f"pair {i // 3} ({('first', 'second', 'a bit copy of first')[i % 3]})"
        return f"decoy {i - 3 * n_pairs}"

    for p in range(n_pairs):
        if observed[3 * p] != observed[3 * p + 2]:
            return (f"pair {p}: a copy with the same bits got another fingerprint: the digest "
                    "must depend on the values' bits only")
    inside = [(3 * p, 3 * p + 1) for p in range(n_pairs)]
    others = [(i, j) for i in range(len(expected)) for j in range(i + 1, len(expected))]
    for i, j in inside + others:
        want, got = expected[i] == expected[j], observed[i] == observed[j]
        if want and not got:
            return (f"{item(i)} and {item(j)}: equal bits, different fingerprints: the digest "
                    "must depend on the values' bits only")
        if got and not want:
            return f"{item(i)} and {item(j)}: different bits (or dtype, or shape), same fingerprint"
    return None


# ------------------------------------------------------------------ Task 5: atomic_add_simulation
def _sequential(values, dtype) -> float:
    total = dtype.type(0)
    for v in values:
        total = dtype.type(total + dtype.type(v))
    return float(total)


def _slot_outcomes(case: dict) -> list[set[float]]:
    """Per slot: every left-to-right sum of its contributions over all their orders."""
    dtype = np.asarray(case["src"]).dtype
    contributions: list[list[float]] = [[] for _ in range(int(case["n"]))]
    for j, v in zip(case["index"], np.asarray(case["src"]).tolist()):
        contributions[int(j)].append(v)
    outcomes = []
    for values in contributions:
        if len(values) > MAX_PERMUTED:
            outcomes.append(set())
            continue
        outcomes.append({_sequential(p, dtype) for p in itertools.permutations(values)})
    return outcomes


def _rows(observed, case) -> tuple[np.ndarray | None, str | None]:
    arr = observed if isinstance(observed, np.ndarray) else None
    if arr is None or arr.dtype.kind != "f":
        return None, "expected a floating (trials, n) tensor"
    if arr.shape != (int(case["trials"]), int(case["n"])):
        return None, f"shape {arr.shape}, expected (trials, n) = ({case['trials']}, {case['n']})"
    if arr.dtype != np.asarray(case["src"]).dtype:
        return None, f"dtype {arr.dtype}, expected src's dtype {np.asarray(case['src']).dtype}"
    return arr, None


def slot_sums_in_some_order(observed, ctx) -> str | None:
    """Every entry [t, j] is the left-to-right sum, in src's dtype, of slot j's contributions
    in one of their orders (0 for an empty slot)."""
    case = ctx.inputs[_index(ctx.name)]
    arr, problem = _rows(observed, case)
    if problem:
        return problem
    for j, possible in enumerate(_slot_outcomes(case)):
        for t in range(arr.shape[0]):
            if float(arr[t, j]) not in possible:
                return (f"trial {t}, slot {j}: {float(arr[t, j])!r} is no left-to-right sum of the "
                        f"slot's contributions in {np.asarray(case['src']).dtype} in any order")
    return None


def trials_vary_seed_repeats(observed, ctx) -> str | None:
    """observed: two calls with the same arguments. They are bitwise equal (same seed), and
    their trials are not all equal (a new random order per trial). With the tests' contested
    slot and 40 trials, a uniformly random order makes all trials equal with probability
    below 1e-6 (see tests/repro/README in the handout: the bound is computed there)."""
    case = ctx.inputs[_index(ctx.name)]
    if not isinstance(observed, list) or len(observed) != 2:
        return "expected two results"
    first, problem = _rows(observed[0], case)
    second, problem2 = _rows(observed[1], case)
    if problem or problem2:
        return problem or problem2
    if first.tobytes() != second.tobytes():
        return "the same seed gave two different results: draw the orders from a generator seeded with `seed`"
    invalid = slot_sums_in_some_order(observed[0], ctx)
    if invalid is not None:  # the result must be one of these inputs' (not any two equal tensors)
        return invalid
    if all(first[0].tobytes() == row.tobytes() for row in first):
        return (f"all {len(first)} trials are bitwise identical: the accumulation order does not "
                "change from trial to trial")
    return None


# ------------------------------------------------------------------ Task 6: seed_study
def t_interval_of_mean(observed, ctx) -> str | None:
    """ci95 = mean -+ t_{0.975, n-1} * std(ddof=1) / sqrt(n) of the stored values (scipy)."""
    case = ctx.inputs[_index(ctx.name)]
    ci = _floats(observed, 2)
    if ci is None:
        return "ci95 must be a pair (lo, hi) of numbers"
    values = np.asarray(case["values"], dtype=np.float64)
    n = len(values)
    mean, sem = float(values.mean()), float(stats.sem(values))  # sem: std(ddof=1) / sqrt(n)
    half = float(stats.t.ppf(0.975, n - 1)) * sem
    if _same(ci[0], mean - half) and _same(ci[1], mean + half):
        return None
    got = (ci[1] - ci[0]) / 2
    hints = {"the normal quantile 1.96 instead of t with n - 1 degrees of freedom":
             float(stats.norm.ppf(0.975)) * sem,
             "the standard deviation instead of the standard error std / sqrt(n)":
             float(stats.t.ppf(0.975, n - 1)) * sem * math.sqrt(n),
             "the population std (ddof=0)": float(stats.t.ppf(0.975, n - 1)) * float(values.std()) / math.sqrt(n)}
    why = next((k for k, h in hints.items() if _same(got, h, rtol=1e-6)), None)
    return (f"ci95 = {ci}, expected ({mean - half!r}, {mean + half!r})"
            + (f": the half-width matches {why}" if why else ""))


def repeated_seeds_repeat(observed, ctx) -> str | None:
    """observed: {"values": seed_study's values for a seed list with repeats (a train_fn that
    draws from every generator), "direct": train_fn measured by the test after seed_everything(s),
    one per distinct seed in first-seen order}: each value is train_fn's for its seed, equal seeds
    give equal values, different seeds different ones."""
    seeds = [int(s) for s in ctx.inputs[_index(ctx.name)]]
    distinct = list(dict.fromkeys(seeds))
    if not isinstance(observed, dict):
        return "expected the study's values and the directly measured ones"
    values = _floats(observed.get("values"), len(seeds))
    direct = _floats(observed.get("direct"), len(distinct))
    if values is None or direct is None:
        return f"expected {len(seeds)} values, one per seed"
    first: dict[int, float] = {}
    for position, (s, v) in enumerate(zip(seeds, values)):
        if s in first and first[s] != v:
            return (f"seed {s} gave {first[s]!r} and later {v!r} (position {position}): each run "
                    "must start from seed_everything(s), with every generator seeded")
        first.setdefault(s, v)
    if len(set(first.values())) != len(first):
        return "two different seeds gave the same value"
    measured = dict(zip(distinct, direct))
    for position, (s, v) in enumerate(zip(seeds, values)):
        # contract: SPEC 5.7 values are train_fn's results (float) in seed order: the same call
        # in the same process, so bitwise
        if v != measured[s]:
            return (f"the study's value for seed {s} (position {position}) is {v!r}, but "
                    f"seed_everything({s}) then train_fn({s}) gives {measured[s]!r}: call "
                    "seed_everything(s) then train_fn(s) for each seed, in order")
    return None


# ------------------------------------------------------------------ Task 7: Welch's t-test
def matches_scipy_welch(observed, ctx) -> str | None:
    """[statistic, pvalue] equal (rtol 1e-6, atol 1e-6: the dtype inside is free) to
    scipy.stats.ttest_ind(a, b, equal_var=False); inf and nan where scipy gives them."""
    case = ctx.inputs[_index(ctx.name)]
    got = _floats(observed, 2)
    if got is None:
        return "welch_t_test must return (statistic, pvalue), two numbers"
    _quiet_precision_loss()
    with np.errstate(all="ignore"):  # numpy's state is per thread
        welch = stats.ttest_ind(case["a"], case["b"], equal_var=False)
        student = stats.ttest_ind(case["a"], case["b"], equal_var=True)
    want = [float(welch.statistic), float(welch.pvalue)]
    if all(_same(g, w) for g, w in zip(got, want)):
        return None
    if all(_same(g, float(s)) for g, s in zip(got, (student.statistic, student.pvalue))):
        return (f"got {got}, scipy's Welch test gives {want}: yours is the pooled-variance "
                "(Student) t-test, which assumes equal variances")
    if _same(got[0], want[0]):
        return f"statistic right; {_welch_p_diagnosis(case, want[0], got[1], want[1])}"
    return f"got (statistic, pvalue) = {got}, scipy.stats.ttest_ind(equal_var=False) gives {want}"


def _welch_p_diagnosis(case: dict, t: float, got_p: float, want_p: float) -> str:
    """What a wrong p-value (beside a right statistic) measures: the variant it equals among
    those computed here (the sign of t, one tail, another df, the normal law), else the
    difference itself."""
    a, b = np.asarray(case["a"], dtype=np.float64), np.asarray(case["b"], dtype=np.float64)
    pooled_df = len(a) + len(b) - 2
    with np.errstate(all="ignore"):  # both variances 0: df is nan, and so is every variant
        va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
        df = float((va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)))
        variants = {} if math.isnan(df) else _p_variants(t, df, pooled_df)
    why = next((k for k, p in variants.items() if _same(got_p, float(p))), None)
    if why:
        return f"p-value {got_p!r} expected {want_p!r}: yours equals {why}"
    return (f"p-value {got_p!r} expected {want_p!r} (2·sf(|t|) with Welch-Satterthwaite's "
            f"df = {df:.6g})")


def _p_variants(t: float, df: float, pooled_df: int) -> dict:
    """{what a p-value computed this way gets wrong: the p-value} for a right t."""
    return {
        "2·sf(t) of the signed t: df right, tail wrong (the two-sided p needs |t|)":
            2 * stats.t.sf(t, df),
        "one tail, sf(|t|): df right, the two-sided p doubles it": stats.t.sf(abs(t), df),
        f"the t law with n_a + n_b - 2 = {pooled_df} degrees of freedom: tail right, df "
        f"wrong (Welch-Satterthwaite gives {df:.6g})": 2 * stats.t.sf(abs(t), pooled_df),
        "the normal law instead of Student's t: tail right, no degrees of freedom":
            2 * stats.norm.sf(abs(t)),
    }
