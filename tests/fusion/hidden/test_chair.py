"""Task 7 (hidden) — CHAIR on other caption sets."""

from common import chair_cases, record_chair

from autograder.harness import graded


@graded(points=3, cases=lambda rng: chair_cases(rng, 8))
def test_chair_scores_hidden(rec, cases):
    for i, case in enumerate(cases):
        record_chair(rec, i, case)
