"""Task 5 (hidden): another capacity and target rate."""

from common import bloom_answers, bloom_cases

from autograder.harness import graded


@graded(points=3, cases=bloom_cases(8000, 0.002, 40000, form="ngram {} x"), timeout=30)
def test_false_positive_rate_low_target(rec, cases):
    rec.check("answers", bloom_answers(cases), check="bloom_answers")
