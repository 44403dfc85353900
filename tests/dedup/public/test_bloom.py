"""Task 5: BloomFilter. Internals (m, k, hashes) are free: the tests check that added items are
always found and that the measured false-positive rate is within a stated bound of the target."""

from common import bloom_cases, filled_bloom

from autograder.harness import graded


@graded(points=2, cases=bloom_cases(2000, 0.01, 10))
def test_no_false_negatives(rec, cases):
    bloom = filled_bloom(cases)
    missing = [i for i, item in enumerate(cases["present"]) if item not in bloom]
    rec.exact("missing", missing)


@graded(points=3, cases=bloom_cases(5000, 0.01, 20000), timeout=30)
def test_false_positive_rate(rec, cases):
    bloom = filled_bloom(cases)
    rec.exact("missing", [i for i, item in enumerate(cases["present"]) if item not in bloom])
    rec.check("false_positives", sum(item in bloom for item in cases["absent"]),
              check="false_positive_rate_within_bound")
