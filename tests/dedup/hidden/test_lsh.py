"""Task 3 (hidden): lsh_params with other thresholds, sizes and weights; LSHIndex at scale."""

import numpy as np
from common import robust_params_cases

from autograder.harness import graded
from dedup import LSHIndex, lsh_params


def params_cases(rng):
    """Random thresholds, sizes and weights; only the robust cases are kept (goldens
    cross-checked against datasketch by tests/dedup/crosscheck_datasketch.py)."""
    candidates = [(round(float(rng.uniform(0.1, 0.95)), 3), int(rng.integers(4, 160)), w, round(1 - w, 2))
                  for w in (0.5, 0.5, 0.3, 0.7, 0.9, 0.2, 0.5, 0.6)]
    return robust_params_cases(candidates)


def index_cases(rng):
    bands, rows, n_keys = 8, 4, 60
    sigs = rng.integers(0, 2**63, size=(n_keys, bands * rows), dtype=np.uint64)
    queries = rng.integers(0, 2**63, size=(10, bands * rows), dtype=np.uint64)
    for q in range(10):  # plant whole-band agreements and near misses
        for key in rng.choice(n_keys, size=5, replace=False):
            band = int(rng.integers(0, bands))
            cut = slice(band * rows, (band + 1) * rows)
            sigs[key, cut] = queries[q, cut]
            if rng.random() < 0.4:
                sigs[key, band * rows + int(rng.integers(0, rows))] ^= np.uint64(1 << 40)
    return {"bands": bands, "rows": rows, "sigs": sigs, "queries": queries}


@graded(points=3, cases=params_cases, timeout=60)
def test_lsh_params_weighted(rec, cases):
    for c in cases:
        b, r = lsh_params(c["threshold"], c["num_perm"], c["fp_weight"], c["fn_weight"])
        rec.exact(f"lsh_params({c['threshold']}, {c['num_perm']}, {c['fp_weight']})",
                  [int(b), int(r)])


@graded(points=2, cases=index_cases)
def test_lsh_index_many(rec, cases):
    index = LSHIndex(cases["bands"], cases["rows"])
    for key, sig in enumerate(cases["sigs"]):
        index.insert(key, sig)
    for q, sig in enumerate(cases["queries"]):
        rec.exact(f"query[{q}]", sorted(int(k) for k in index.query(sig)))
