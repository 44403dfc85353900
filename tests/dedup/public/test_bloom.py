"""Task 5: BloomFilter. Internals (m, k, hashes) are free: the tests check that added items are
always found and that the measured false-positive rate is within a stated bound of the target."""

from autograder.harness import graded
from dedup import BloomFilter


def bloom_cases(capacity, error_rate, queries):
    def make(rng):
        ids = rng.choice(10**12, size=capacity + queries, replace=False)
        items = [f"item-{int(i)}" for i in ids]
        return {"capacity": capacity, "error_rate": error_rate, "present": items[:capacity],
                "absent": items[capacity:]}
    return make


@graded(points=2, cases=bloom_cases(2000, 0.01, 10))
def test_no_false_negatives(rec, cases):
    bloom = BloomFilter(cases["capacity"], cases["error_rate"])
    for item in cases["present"]:
        bloom.add(item)
    missing = [i for i, item in enumerate(cases["present"]) if item not in bloom]
    rec.exact("missing", missing)


@graded(points=3, cases=bloom_cases(5000, 0.01, 20000), timeout=30)
def test_false_positive_rate(rec, cases):
    bloom = BloomFilter(cases["capacity"], cases["error_rate"])
    for item in cases["present"]:
        bloom.add(item)
    rec.exact("missing", [i for i, item in enumerate(cases["present"]) if item not in bloom])
    rec.check("false_positives", sum(item in bloom for item in cases["absent"]),
              check="false_positive_rate_within_bound")
