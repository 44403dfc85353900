"""Task 2: MinHasher signatures and estimate_jaccard.

The hash family and the use of the seed are free, so the signatures themselves are never compared
with the solution's: the tests check dtype, shape, determinism (within and across processes), the
min-of-union property and the estimator's error against exact Jaccard (checks.py)."""

import json
import subprocess
import sys

import numpy as np
from common import (
    estimator_observation,
    min_of_union,
    pair_with_jaccard,
    random_shingles,
    signature_of,
)

from autograder.harness import graded
from dedup import MinHasher, estimate_jaccard


def contract_cases(rng):
    """Sets of 1, 7 and 300 shingles; the signature lengths are drawn, so every recorded
    signature's length (and each observation's name) depends on these inputs."""
    return {"sets": [random_shingles(rng, k) for k in (1, 7, 300)],
            "num_perms": [int(rng.integers(8, 33)), int(rng.integers(96, 161)),
                          int(rng.integers(161, 257))],
            "num_perm": int(rng.integers(161, 257))}


def union_cases(rng):
    """Two disjoint small sets, then overlapping pairs of drawn sizes and Jaccard (the check ties
    each signature pair to its stored sets through their agreement)."""
    cases = [{"a": random_shingles(rng, int(rng.integers(1, 60))),
              "b": random_shingles(rng, int(rng.integers(1, 60)))} for _ in range(2)]
    return cases + [pair_with_jaccard(rng, int(rng.integers(40, 120)), float(j), f"u{i}_")
                    for i, j in enumerate(rng.uniform(0.1, 1.0, size=6))]


def estimator_cases(rng):
    """Pairs across the whole range of Jaccard: the ends fixed, the rest drawn."""
    jacs = [0.05, *np.sort(rng.uniform(0.1, 0.95, size=8)).tolist(), 1.0]
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
    """dtype uint64 and shape (num_perm,); the same set in another order through a fresh hasher
    gives the same signature, a disjoint set another one (checks.signatures_depend_on_set)."""
    sets = cases["sets"]
    for j, (s, k) in enumerate(zip(sets, cases["num_perms"])):
        sig = MinHasher(num_perm=k, seed=1).signature(set(s))
        rec.exact(f"dtype[{k}]", str(np.asarray(sig).dtype))
        rec.exact(f"shape[{k}]", list(np.shape(sig)))
        again = signature_of(MinHasher(num_perm=k, seed=1), list(reversed(s)))
        other = signature_of(MinHasher(num_perm=k, seed=1), set(sets[(j + 1) % len(sets)]))
        rec.check(f"repeatable[{k}]", [np.asarray(sig).tolist(), again, other],
                  check="signatures_depend_on_set")


CHILD = """
import json, sys
sys.path[:0] = json.loads(sys.argv[1])
from dedup import MinHasher
import numpy as np
hasher = MinHasher(num_perm=int(sys.argv[3]), seed=3)
print(json.dumps([np.asarray(hasher.signature(set(s))).tolist() for s in json.loads(sys.argv[2])]))
"""


@graded(points=1, cases=contract_cases, timeout=30)
def test_signature_same_in_another_process(rec, cases):
    """Python's hash() of a str is salted per process (PYTHONHASHSEED): never use it. Two
    disjoint sets, signed here and in another process: equal per set, different between sets,
    each of the drawn length num_perm."""
    sets = [cases["sets"][2], cases["sets"][1]]
    hasher = MinHasher(num_perm=cases["num_perm"], seed=3)
    here = [signature_of(hasher, set(s)) for s in sets]
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(sys.path), json.dumps(sets),
                          str(cases["num_perm"])],
                         check=False, capture_output=True, text=True, timeout=25,
                         env={"PYTHONHASHSEED": "1", "PATH": "/usr/bin:/bin"})
    there = json.loads(out.stdout) if out.returncode == 0 else [out.stderr[-300:], ""]
    rec.check("across_processes", [here, there], check="signatures_equal_per_set")
    rec.exact("same_as_this_process", there == here)  # what the salted-hash hint matches


@graded(points=2, cases=union_cases)
def test_min_of_union(rec, cases):
    hasher = MinHasher(num_perm=128, seed=7)
    for i, c in enumerate(cases):
        rec.check(f"min_of_union[{i}]", min_of_union(hasher, set(c["a"]), set(c["b"])),
                  check="min_of_union")


@graded(points=1, cases=estimate_cases)
def test_estimate_jaccard(rec, cases):
    """estimate_jaccard on stored signatures (no MinHasher involved): a no-work signature()
    with a correct estimate_jaccard still passes this one point (tests/selftest/no_work)."""
    for i, c in enumerate(cases):
        # a fraction k / num_perm: its dtype is free, so absolute 1e-6 (any wrong count is 1/128)
        rec.close(f"estimate[{i}]", float(estimate_jaccard(c["a"], c["b"])), atol=1e-6)


@graded(points=3, cases=estimator_cases)
def test_estimator_error(rec, cases):
    """estimate_jaccard of each pair's signatures within its statistical bound of the exact
    Jaccard; the signatures of A, B and A | B recorded beside it must satisfy min-of-union and
    agree on a fraction of entries within the same bound (a signature carrying the set fails)."""
    hasher = MinHasher(num_perm=cases["num_perm"], seed=11)
    rec.check("estimates", estimator_observation(hasher, cases["pairs"]),
              check="estimates_within_bound")


@graded(points=1, cases=contract_cases)
def test_permutations_are_independent(rec, cases):
    hasher = MinHasher(num_perm=cases["num_perm"], seed=1)
    rec.check("distinct_entries", [signature_of(hasher, set(cases["sets"][2])),
                                   signature_of(hasher, set(cases["sets"][1]))],
              check="most_entries_distinct")
