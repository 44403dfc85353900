"""Task 5: BloomFilter. Internals (m, k, hashes) are free: the tests check that added items are
always found and that the measured false-positive rate is within a stated bound of the target.
The answers are recorded raw and judged in the parent (checks.bloom_answers), which alone knows
which shuffled query was added."""

from common import bloom_answers, bloom_cases

from autograder.harness import graded


@graded(points=2, cases=bloom_cases(2000, 0.01, 400))
def test_no_false_negatives(rec, cases):
    rec.check("answers", bloom_answers(cases), check="bloom_answers")


@graded(points=3, cases=bloom_cases(5000, 0.01, 20000), timeout=30)
def test_false_positive_rate(rec, cases):
    rec.check("answers", bloom_answers(cases), check="bloom_answers")
