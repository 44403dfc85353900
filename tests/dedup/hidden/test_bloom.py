"""Task 5 (hidden): another capacity and target rate."""

from autograder.harness import graded
from dedup import BloomFilter


def bloom_cases(rng):
    capacity, queries = 8000, 40000
    ids = rng.choice(10**12, size=capacity + queries, replace=False)
    items = [f"ngram {int(i)} x" for i in ids]
    return {"capacity": capacity, "error_rate": 0.002, "present": items[:capacity],
            "absent": items[capacity:]}


@graded(points=3, cases=bloom_cases, timeout=30)
def test_false_positive_rate_low_target(rec, cases):
    bloom = BloomFilter(cases["capacity"], cases["error_rate"])
    for item in cases["present"]:
        bloom.add(item)
    rec.exact("missing", [i for i, item in enumerate(cases["present"]) if item not in bloom])
    rec.check("false_positives", sum(item in bloom for item in cases["absent"]),
              check="false_positive_rate_within_bound")
