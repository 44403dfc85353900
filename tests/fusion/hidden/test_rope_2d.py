"""Task 5 (hidden) — rope_2d on other grids, dimensions and bases."""

from common import record_rope, rope_cases

from autograder.harness import graded


@graded(points=6, cases=lambda rng: rope_cases(rng, 6))
def test_rope_2d_relative_positions_hidden(rec, cases):
    for i, case in enumerate(cases):
        record_rope(rec, i, case)
