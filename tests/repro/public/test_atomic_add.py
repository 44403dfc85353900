"""Task 5 — atomic_add_simulation: index_add_ with a random accumulation order per slot."""

import numpy as np
from common import as_array, run_atomic

from autograder.harness import graded

# contributions of one slot for which random orders give many different float32 sums
CONTESTED_SLOT = [1e8, 1.0, -1e8, 1.0, 3.0, -2.5]


def scattered(rng: np.random.Generator, n: int, per_slot_max: int, trials: int) -> dict:
    """A random index_add_ problem with at most per_slot_max contributions per slot, plus
    CONTESTED_SLOT's values on slot 0."""
    index, src = [0] * len(CONTESTED_SLOT), list(CONTESTED_SLOT)
    for slot in range(1, n):
        k = int(rng.integers(0, per_slot_max + 1))
        index += [slot] * k
        src += (rng.normal(size=k) * 10.0 ** rng.uniform(-3, 6, size=k)).tolist()
    perm = rng.permutation(len(index))
    return {"index": np.asarray(index)[perm].tolist(),
            "src": np.asarray(src, dtype=np.float32)[perm], "n": n, "trials": trials,
            "seed": int(rng.integers(0, 2**31))}


def shape_cases(rng: np.random.Generator) -> list:
    return [scattered(rng, 5, 4, 3), scattered(rng, 9, 3, 1)]


def sum_cases(rng: np.random.Generator) -> list:
    return [scattered(rng, 8, 5, 12), scattered(rng, 4, 6, 6)]


def variation_cases(rng: np.random.Generator) -> list:
    return [scattered(rng, 3, 3, 40)]


@graded(points=1, cases=shape_cases)
def test_shape_and_dtype(rec, cases):
    """(trials, n) in src's dtype, and (so that zeros of that shape earn nothing) each entry a
    sum of its slot's contributions in some order."""
    for i, c in enumerate(cases):
        out = run_atomic(c)
        rec.exact(f"shape[{i}]", list(out.shape))
        rec.exact(f"dtype[{i}]", str(out.dtype))
        rec.check(f"rows[{i}]", as_array(out), check="slot_sums_in_some_order")


@graded(points=3, cases=sum_cases)
def test_every_entry_is_a_sum_in_some_order(rec, cases):
    """Each entry is the float32 left-to-right sum of its slot's contributions in some order
    (an empty slot stays 0)."""
    for i, c in enumerate(cases):
        rec.check(f"rows[{i}]", as_array(run_atomic(c)), check="slot_sums_in_some_order")


@graded(points=2, cases=variation_cases)
def test_orders_vary_and_seed_repeats(rec, cases):
    """Trials differ (the order is random per trial); the same seed gives the same tensor."""
    for i, c in enumerate(cases):
        first, second = as_array(run_atomic(c)), as_array(run_atomic(c))
        rec.check(f"trials[{i}]", [first, second], check="trials_vary_seed_repeats")
