"""Task 5 (hidden) — atomic_add_simulation on other problems and in float64."""

import numpy as np
from common import as_array, run_atomic

from autograder.harness import graded


def cases_(rng: np.random.Generator) -> list:
    out = []
    for n, dtype in ((6, np.float32), (5, np.float64)):
        index, src = [0, 0, 0, 0, 0], [1e16, 1.0, -1e16, 1.0, 3.0]  # contested in float64 too
        if dtype == np.float32:
            src = [1e8, 1.0, -1e8, 1.0, 3.0]
        for slot in range(1, n):
            k = int(rng.integers(0, 5))
            index += [slot] * k
            src += (rng.normal(size=k) * 10.0 ** rng.uniform(-3, 6, size=k)).tolist()
        perm = rng.permutation(len(index))
        out.append({"index": np.asarray(index)[perm].tolist(), "src": np.asarray(src, dtype=dtype)[perm],
                    "n": n, "trials": 40, "seed": int(rng.integers(0, 2**31))})
    return out


@graded(points=3, cases=cases_)
def test_atomic_add_hidden(rec, cases):
    for i, c in enumerate(cases):
        out = run_atomic(c)
        rec.exact(f"dtype[{i}]", str(out.dtype))
        rec.check(f"rows[{i}]", as_array(out), check="slot_sums_in_some_order")
        rec.check(f"trials[{i}]", [as_array(out), as_array(run_atomic(c))],
                  check="trials_vary_seed_repeats")
