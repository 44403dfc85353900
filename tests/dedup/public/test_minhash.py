"""Task 2: MinHasher signatures and estimate_jaccard.

The hash family and the use of the seed are free, so the signatures themselves are never compared
with the solution's: the tests check dtype, shape, determinism (within and across processes), the
min-of-union property and the estimator's error against exact Jaccard (checks.py)."""

import json
import subprocess
import sys

import numpy as np
from common import min_of_union, pair_with_jaccard, random_shingles

from autograder.harness import graded
from dedup import MinHasher, estimate_jaccard


def contract_cases(rng):
    return {"sets": [random_shingles(rng, k) for k in (1, 7, 300)], "num_perms": [16, 128, 200],
            "num_perm": 200}


def union_cases(rng):
    return [{"a": random_shingles(rng, int(rng.integers(1, 60))),
             "b": random_shingles(rng, int(rng.integers(1, 60)))} for _ in range(6)]


def estimator_cases(rng):
    jacs = [0.05, 0.2, 0.35, 0.5, 0.5, 0.65, 0.8, 0.9, 0.95, 1.0]
    return {"num_perm": 512, "pairs": [pair_with_jaccard(rng, 200, j, f"p{i}_")
                                       for i, j in enumerate(jacs)]}


def estimate_cases(rng):
    out = []
    for k in (1, 8, 128):
        a = rng.integers(0, 4, size=k, dtype=np.uint64)
        b = rng.integers(0, 4, size=k, dtype=np.uint64)
        out.append({"a": a, "b": b})
    return out


@graded(points=2, cases=contract_cases)
def test_signature_dtype_shape(rec, cases):
    for s, k in zip(cases["sets"], cases["num_perms"]):
        sig = MinHasher(num_perm=k, seed=1).signature(set(s))
        rec.exact(f"dtype[{k}]", str(np.asarray(sig).dtype))
        rec.exact(f"shape[{k}]", list(np.shape(sig)))
        # same set, other iteration order, fresh hasher: same signature
        again = MinHasher(num_perm=k, seed=1).signature(list(reversed(s)))
        rec.check(f"repeatable[{k}]", [np.asarray(sig).tolist(), np.asarray(again).tolist()],
                  check="signatures_equal")


CHILD = """
import json, sys
sys.path[:0] = json.loads(sys.argv[1])
from dedup import MinHasher
import numpy as np
print(json.dumps(np.asarray(MinHasher(num_perm=64, seed=3).signature(set(json.loads(sys.argv[2])))).tolist()))
"""


@graded(points=1, cases=contract_cases, timeout=30)
def test_signature_same_in_another_process(rec, cases):
    """Python's hash() of a str is salted per process (PYTHONHASHSEED): never use it."""
    s = cases["sets"][2]
    here = np.asarray(MinHasher(num_perm=64, seed=3).signature(set(s))).tolist()
    sigs = [here]
    for salt in ("1",):
        out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(sys.path), json.dumps(s)],
                             check=False, capture_output=True, text=True, timeout=25,
                             env={"PYTHONHASHSEED": salt, "PATH": "/usr/bin:/bin"})
        sigs.append(json.loads(out.stdout) if out.returncode == 0 else out.stderr[-300:])
    rec.check("across_processes", sigs, check="signatures_equal")
    rec.exact("same_as_this_process", sigs[1] == here)


@graded(points=2, cases=union_cases)
def test_min_of_union(rec, cases):
    hasher = MinHasher(num_perm=128, seed=7)
    for i, c in enumerate(cases):
        rec.check(f"min_of_union[{i}]", min_of_union(hasher, set(c["a"]), set(c["b"])),
                  check="min_of_union")


@graded(points=1, cases=estimate_cases)
def test_estimate_jaccard(rec, cases):
    for i, c in enumerate(cases):
        rec.close(f"estimate[{i}]", float(estimate_jaccard(c["a"], c["b"])), atol=1e-12)


@graded(points=3, cases=estimator_cases)
def test_estimator_error(rec, cases):
    hasher = MinHasher(num_perm=cases["num_perm"], seed=11)
    est = [float(estimate_jaccard(hasher.signature(set(p["a"])), hasher.signature(set(p["b"]))))
           for p in cases["pairs"]]
    rec.check("estimates", est, check="estimates_within_bound")


@graded(points=1, cases=contract_cases)
def test_permutations_are_independent(rec, cases):
    sig = np.asarray(MinHasher(num_perm=cases["num_perm"], seed=1).signature(set(cases["sets"][2])))
    rec.check("distinct_entries", len(set(sig.tolist())), check="most_entries_distinct")
