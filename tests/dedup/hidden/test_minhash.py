"""Task 2 (hidden): estimator error at other sizes and seeds; min-of-union on larger sets."""

from common import estimator_observation, min_of_union, pair_with_jaccard, random_shingles

from autograder.harness import graded
from dedup import MinHasher

FORM = "{tag}{x}-{y}"  # shingles spelled unlike the public tests'


def estimator_cases(rng):
    jacs = rng.uniform(0.0, 1.0, size=12).tolist()
    sizes = rng.integers(20, 400, size=12).tolist()
    return {"num_perm": 1024, "seed": int(rng.integers(2, 10**6)),
            "pairs": [pair_with_jaccard(rng, int(n), j, f"h{i}_", FORM)
                      for i, (n, j) in enumerate(zip(sizes, jacs))]}


def union_cases(rng):
    return [{"a": random_shingles(rng, int(rng.integers(100, 500)), form=FORM),
             "b": random_shingles(rng, int(rng.integers(1, 5)), form=FORM)} for _ in range(4)]


@graded(points=3, cases=estimator_cases)
def test_estimator_error_hidden(rec, cases):
    hasher = MinHasher(num_perm=cases["num_perm"], seed=cases["seed"])
    rec.check("estimates", estimator_observation(hasher, cases["pairs"]),
              check="estimates_within_bound")


@graded(points=1, cases=union_cases)
def test_min_of_union_hidden(rec, cases):
    hasher = MinHasher(num_perm=256, seed=5)
    for i, c in enumerate(cases):
        rec.check(f"min_of_union[{i}]", min_of_union(hasher, set(c["a"]), set(c["b"])),
                  check="min_of_union")
