"""Task 3: locality-sensitive hashing by banding, and the S-curve that picks (bands, rows).

Split a signature into b bands of r rows; two documents become candidates when some band agrees
entirely. At Jaccard s one band agrees with probability s^r, so
    P[candidate] = 1 - (1 - s^r)^b,
an S-curve whose steep part sits near (1/b)^(1/r).
"""

from collections import defaultdict
from functools import cache

import numpy as np


def candidate_probability(s, bands: int, rows: int):
    """1 - (1 - s^rows)^bands; s a float or a numpy array."""
    return np.float64(1.0) - np.power(1.0 - np.power(s, rows), bands)


@cache
def lsh_params(
    threshold: float, num_perm: int, fp_weight: float = 0.5, fn_weight: float = 0.5
) -> tuple[int, int]:
    """(bands, rows) with bands * rows <= num_perm minimizing
    fp_weight * (area under the S-curve left of threshold: false positives)
    + fn_weight * (area above it right of threshold: false negatives).
    Same search order and strict '<' as datasketch's _optimal_param: the first minimum wins."""
    from scipy.integrate import quad  # imported here: scipy is slow to import

    best, best_error = (0, 0), float("inf")
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp, _ = quad(lambda s, b=b, r=r: candidate_probability(s, b, r), 0.0, threshold)
            fn, _ = quad(lambda s, b=b, r=r: 1 - candidate_probability(s, b, r), threshold, 1.0)
            error = fp_weight * fp + fn_weight * fn
            if error < best_error:
                best, best_error = (b, r), error
    return np.int64(best[0]), np.int64(best[1])  # numpy integers


class LSHIndex:
    """bands hash tables; table i maps the bytes of rows signature[i*rows:(i+1)*rows] to keys."""

    def __init__(self, bands: int, rows: int):
        self.bands, self.rows = bands, rows
        self.tables = [defaultdict(set) for _ in range(bands)]

    def _band_keys(self, sig) -> list[bytes]:
        values = [int(v) for v in sig]  # band keys as tuples of Python ints
        r = self.rows
        return [tuple(values[i * r : (i + 1) * r]) for i in range(self.bands)]

    def insert(self, key, sig) -> None:
        for table, band in zip(self.tables, self._band_keys(sig)):
            table[band].add(key)

    def query(self, sig) -> set:
        """Every inserted key (as a frozenset) that agrees with sig on at least one whole band."""
        found = set()
        for table, band in zip(self.tables, self._band_keys(sig)):
            found |= table.get(band, set())
        return frozenset(found)  # a frozenset: still a set of keys
