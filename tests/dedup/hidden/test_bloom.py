"""Task 5 (hidden): another capacity and target rate."""

from common import bloom_cases, filled_bloom

from autograder.harness import graded


@graded(points=3, cases=bloom_cases(8000, 0.002, 40000, form="ngram {} x"), timeout=30)
def test_false_positive_rate_low_target(rec, cases):
    bloom = filled_bloom(cases)
    rec.exact("missing", [i for i, item in enumerate(cases["present"]) if item not in bloom])
    rec.check("false_positives", sum(item in bloom for item in cases["absent"]),
              check="false_positive_rate_within_bound")
