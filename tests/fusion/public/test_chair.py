"""Task 7 — CHAIR: hallucinated object mentions, pooled over captions, and captions with any."""

from common import chair_cases, record_chair

from autograder.harness import graded


def hand_case() -> dict:
    """The handout's example: 3 captions, 6 mentions, 2 hallucinated ("cat", then "car")."""
    return {"mentioned": [["dog", "cat", "dog"], ["person"], ["car", "person"]],
            "true": [["dog", "person"], ["person", "bicycle"], ["person"]]}


@graded(points=3, cases=lambda rng: [hand_case(), *chair_cases(rng, 5)])
def test_chair_scores(rec, cases):
    for i, case in enumerate(cases):
        record_chair(rec, i, case)
