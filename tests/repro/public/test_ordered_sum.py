"""Task 4 — ordered_sum: float addition is not associative, so the order is part of the result."""

import itertools

import numpy as np
from common import record_ordered_sums

from autograder.harness import graded


def mixed_magnitudes(rng: np.random.Generator, n: int, dtype) -> np.ndarray:
    """Values of both signs spread over many orders of magnitude: where rounding shows."""
    return (rng.normal(size=n) * 10.0 ** rng.uniform(-4, 8, size=n)).astype(dtype)


def random_cases(rng: np.random.Generator) -> list:
    cases = []
    for k in range(10):
        dtype = np.float32 if k < 7 else np.float64
        values = mixed_magnitudes(rng, int(rng.integers(5, 60)), dtype)
        cases.append({"values": values, "order": rng.permutation(len(values)).tolist()})
    return cases


def textbook_cases(rng: np.random.Generator) -> list:
    """1e8 + 1 - 1e8 + 1 in float32, in all 24 orders: 1e8 + 1 rounds back to 1e8; then the
    same with a drawn big value (a multiple of 8 in [1e8, 1.3e8]: its float32 spacing is 8) and
    small ones (2 or 3, and 1 to 3: each below half that spacing)."""
    big = 8.0 * int(rng.integers(12_500_000, 16_250_000))
    small = [float(rng.integers(2, 4)), float(rng.integers(1, 4))]
    cases = []
    for values in ([1e8, 1.0, -1e8, 1.0], [big, small[0], -big, small[1]]):
        cases += [{"values": np.array(values, dtype=np.float32), "order": list(p)}
                  for p in itertools.permutations(range(4))]
    return cases


@graded(points=3, cases=random_cases)
def test_left_to_right_in_dtype(rec, cases):
    """Each partial sum rounded to the values' dtype (float32 stays float32), left to right."""
    record_ordered_sums(rec, cases)


@graded(points=2, cases=textbook_cases)
def test_order_changes_the_sum(rec, cases):
    record_ordered_sums(rec, cases)
