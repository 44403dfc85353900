"""Task 4 (hidden) — ordered_sum on longer and nastier inputs."""

import numpy as np
from common import record_ordered_sums

from autograder.harness import graded


def hidden_cases(rng: np.random.Generator) -> list:
    cases = []
    for k in range(8):
        n = int(rng.integers(100, 400))
        dtype = np.float32 if k % 4 else np.float64
        values = (rng.normal(size=n) * 10.0 ** rng.uniform(-6, 9, size=n)).astype(dtype)
        cases.append({"values": values, "order": rng.permutation(n).tolist()})
    ones = np.ones(300, dtype=np.float32)
    ones[0] = 2.0**24  # 2**24 + 1 rounds to 2**24: ones added after it vanish, before it count
    cases.append({"values": ones, "order": list(range(300))})
    cases.append({"values": ones, "order": list(range(299, -1, -1))})
    return cases


@graded(points=3, cases=hidden_cases)
def test_left_to_right_in_dtype_hidden(rec, cases):
    record_ordered_sums(rec, cases)
