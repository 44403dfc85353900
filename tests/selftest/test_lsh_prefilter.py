"""dedup's robust_params_cases (tests/dedup/common.py) keeps the same cases as a quad run for every
(b, r): its closed form agrees with quad far inside NEAR_BEST, so the prefilter never drops
quad's best or runner-up, on cases far from a tie and on a tie itself."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def common():
    """tests/dedup/common.py, loaded with the reference package as `dedup` (which it imports),
    taken out of sys.modules again: another test of this process may import its own."""
    before = set(sys.modules)
    sys.path[:0] = [str(ROOT / "solutions")]
    try:
        spec = importlib.util.spec_from_file_location("dedup_common", ROOT / "tests/dedup/common.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "solutions"))
        for name in set(sys.modules) - before:
            if name == "dedup" or name.startswith("dedup."):
                del sys.modules[name]
    return module


def every_pair(common, t, k, wfp, wfn):
    """robust_params_cases' decision with quad for every (b, r): what it was written as."""
    errors = sorted(common.weighted_error(t, b, r, wfp, wfn) for b, r in common.lsh_pairs(k))
    return len(errors) == 1 or errors[1] - errors[0] > 1e-6 * errors[0]


def test_the_closed_form_agrees_with_quad(common):
    """Within 1e-9 (NEAR_BEST is 1e-6), num_perm up to 259, thresholds down to 0.02 (where t^r
    underflows for b = 1, r = num_perm: without its branch the closed form is 0.035 off)."""
    rng = np.random.default_rng(3)
    extremes = [(t, 259, 0.5) for t in (0.02, 0.035, 0.1, 0.97)]
    for t, k, w in extremes + [(float(rng.uniform(0.02, 0.97)), int(rng.integers(1, 260)),
                                float(rng.uniform())) for _ in range(150)]:
        pairs = common.lsh_pairs(k)
        pairs = [pairs[i] for i in rng.integers(0, len(pairs), size=min(6, len(pairs)))]
        pairs += [(1, k), (k, 1)]
        closed = common.weighted_errors_closed(t, pairs, w, 1 - w)
        quad = [common.weighted_error(t, b, r, w, 1 - w) for b, r in pairs]
        assert np.max(np.abs(closed - quad)) < 1e-9 < common.NEAR_BEST, (t, k, w)


def test_the_same_cases_as_quad_for_every_pair(common):
    rng = np.random.default_rng(4)
    candidates = [(round(float(rng.uniform(0.05, 0.95)), 3), int(rng.integers(1, 140)), w,
                   round(1 - w, 2)) for w in (0.5, 0.3, 0.9, 0.05) * 5]
    assert common.robust_params_cases(candidates) == [
        {"threshold": t, "num_perm": k, "fp_weight": a, "fn_weight": b}
        for t, k, a, b in candidates if every_pair(common, t, k, a, b)]


def test_a_tie_is_dropped(common):
    """At a threshold where the best (b, r) changes (bisected to 1e-12), two pairs tie: a quad
    run of every pair drops the case, and so does the prefiltered one."""
    k, w = 8, 0.5

    def best(t):
        return min(common.lsh_pairs(k), key=lambda p: common.weighted_error(t, p[0], p[1], w, w))

    low, high = 0.3, 0.7
    assert best(low) != best(high)
    while high - low > 1e-12:
        mid = (low + high) / 2
        low, high = (mid, high) if best(mid) == best(low) else (low, mid)
    assert not every_pair(common, low, k, w, w)
    assert common.robust_params_cases([(low, k, w, w)]) == []
