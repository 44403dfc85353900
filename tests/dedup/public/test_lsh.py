"""Task 3: candidate_probability, lsh_params (same choice as datasketch), LSHIndex.

lsh_params goldens are the solution's values, which equal datasketch's _optimal_param on every
stored case (tests/dedup/crosscheck_datasketch.py; see common.robust_params_cases)."""

import numpy as np
from common import robust_params_cases

from autograder.harness import graded
from dedup import LSHIndex, candidate_probability, lsh_params


def params_cases(rng):
    fixed = [(0.8, 128), (0.5, 128), (0.9, 256), (0.3, 64), (0.7, 32), (0.5, 16)]
    randoms = [(round(float(rng.uniform(0.2, 0.95)), 3), int(rng.integers(8, 200)))
               for _ in range(6)]
    # (0.05, 32, 0.05, 0.95): the answer is b = num_perm bands of one row, the search's last b
    weighted = [(0.5, 128, 0.2, 0.8), (0.8, 128, 0.7, 0.3), (0.6, 64, 0.9, 0.1), (0.05, 32, 0.05, 0.95)]
    return robust_params_cases([(t, k, 0.5, 0.5) for t, k in fixed + randoms] + weighted)


def curve_cases(rng):
    """The fixed grid of s (where float32 arithmetic inside stays within the contract's 1e-6),
    five fixed (b, r) and three drawn ones."""
    drawn = [[int(b), int(r)] for b, r in zip(rng.integers(2, 30, size=3), rng.integers(2, 12, size=3))]
    return {"s": np.linspace(0.0, 1.0, 41), "br": [[1, 1], [9, 13], [20, 5], [1, 128], [64, 2], *drawn]}


def index_cases(rng):
    """Signatures of 12 uint64 entries (b=4 bands of r=3 rows); key k agrees with the query on
    exactly the bands in band_sets[k]."""
    bands, rows = 4, 3
    query = rng.integers(0, 2**63, size=bands * rows, dtype=np.uint64)
    band_sets = [[], [0], [3], [1, 2], [0, 1, 2, 3], [], [2]]
    sigs = []
    for agree in band_sets:
        sig = rng.integers(0, 2**63, size=bands * rows, dtype=np.uint64)
        for band in agree:
            sig[band * rows:(band + 1) * rows] = query[band * rows:(band + 1) * rows]
        for band in set(range(bands)) - set(agree):  # differ in one row only: a near miss
            sig[band * rows:(band + 1) * rows] = query[band * rows:(band + 1) * rows]
            sig[band * rows + int(rng.integers(0, rows))] ^= np.uint64(1)
        sigs.append(sig)
    return {"bands": bands, "rows": rows, "query": query, "sigs": sigs}


@graded(points=2, cases=curve_cases)
def test_candidate_probability(rec, cases):
    for j, (b, r) in enumerate(cases["br"]):
        p = [float(candidate_probability(float(s), b, r)) for s in cases["s"]]
        rec.close(f"S[{j}]", np.array(p), atol=1e-6)  # absolute (SPEC 5.4), dtype free


@graded(points=3, cases=params_cases, timeout=60)
def test_lsh_params(rec, cases):
    for c in cases:
        if c["fp_weight"] == c["fn_weight"] == 0.5:  # the defaults
            b, r = lsh_params(c["threshold"], c["num_perm"])
            rec.exact(f"lsh_params({c['threshold']}, {c['num_perm']})", [int(b), int(r)])
        else:
            b, r = lsh_params(c["threshold"], c["num_perm"], c["fp_weight"], c["fn_weight"])
            rec.exact(f"lsh_params({c['threshold']}, {c['num_perm']}, {c['fp_weight']})",
                      [int(b), int(r)])


@graded(points=2, cases=index_cases)
def test_lsh_index(rec, cases):
    index = LSHIndex(cases["bands"], cases["rows"])
    for key, sig in enumerate(cases["sigs"]):
        index.insert(f"doc{key}", sig)
    rec.exact("query", sorted(index.query(cases["query"])))
    rec.exact("query_self", sorted(index.query(cases["sigs"][3])))
    empty = LSHIndex(cases["bands"], cases["rows"])
    rec.exact("query_empty_index", sorted(empty.query(cases["query"])))
