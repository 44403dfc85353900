"""Task 5 — rope_2d: the score of two patches depends only on (Δrow, Δcol), also across a row
boundary and on grids of other widths (where 1D flat positions fail)."""

from common import record_rope, rope_cases

from autograder.harness import graded


@graded(points=6, cases=lambda rng: rope_cases(rng, 4))
def test_rope_2d_relative_positions(rec, cases):
    for i, case in enumerate(cases):
        record_rope(rec, i, case)
