"""Task 2 (hidden): estimator error at other sizes and seeds; min-of-union on larger sets."""

import numpy as np

from autograder.harness import graded
from dedup import MinHasher, estimate_jaccard


def random_shingles(rng, size, tag="w"):
    return [f"{tag}{int(x)}-{int(y)}" for x, y in rng.integers(0, 10**9, size=(size, 2))]


def pair_with_jaccard(rng, size, jac, tag):
    shared = round(2 * size * jac / (1 + jac))
    pool = random_shingles(rng, 2 * size - shared, tag)
    return {"a": pool[:size], "b": pool[:shared] + pool[size:]}


def estimator_cases(rng):
    jacs = rng.uniform(0.0, 1.0, size=12).tolist()
    sizes = rng.integers(20, 400, size=12).tolist()
    return {"num_perm": 1024, "seed": int(rng.integers(2, 10**6)),
            "pairs": [pair_with_jaccard(rng, int(n), j, f"h{i}_")
                      for i, (n, j) in enumerate(zip(sizes, jacs))]}


def union_cases(rng):
    return [{"a": random_shingles(rng, int(rng.integers(100, 500))),
             "b": random_shingles(rng, int(rng.integers(1, 5)))} for _ in range(4)]


@graded(points=3, cases=estimator_cases)
def test_estimator_error_hidden(rec, cases):
    hasher = MinHasher(num_perm=cases["num_perm"], seed=cases["seed"])
    est = [float(estimate_jaccard(hasher.signature(set(p["a"])), hasher.signature(set(p["b"]))))
           for p in cases["pairs"]]
    rec.check("estimates", est, check="estimates_within_bound")


@graded(points=1, cases=union_cases)
def test_min_of_union_hidden(rec, cases):
    hasher = MinHasher(num_perm=256, seed=5)
    for i, c in enumerate(cases):
        a, b = set(c["a"]), set(c["b"])
        both = np.minimum(np.asarray(hasher.signature(a)), np.asarray(hasher.signature(b)))
        rec.check(f"min_of_union[{i}]", {"union": np.asarray(hasher.signature(a | b)).tolist(),
                                         "min": both.tolist()}, check="min_of_union")
