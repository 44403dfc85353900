# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
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
    """Probability that two documents of Jaccard s share at least one of `bands` bands of `rows`
    rows: 1 - (1 - s**rows)**bands. `s` is a float or a numpy array (elementwise)."""
    return 0.0 * np.asarray(s, float)


@cache
def lsh_params(
    threshold: float, num_perm: int, fp_weight: float = 0.5, fn_weight: float = 0.5
) -> tuple[int, int]:
    """(bands, rows) with bands * rows <= num_perm minimizing
        fp_weight * integral_0^threshold P(s) ds  +  fn_weight * integral_threshold^1 (1 - P(s)) ds
    where P(s) = candidate_probability(s, bands, rows): the weighted false-positive and
    false-negative areas. Search bands = 1..num_perm and, for each, rows = 1..num_perm // bands
    (in that order, keeping the first strict minimum): the same answer as datasketch's
    MinHashLSH(threshold, num_perm, weights). scipy.integrate.quad is accurate enough."""
    return 1, num_perm


class LSHIndex:
    """Banded LSH index: band i of a signature is entries [i*rows, (i+1)*rows)."""

    def __init__(self, bands: int, rows: int):
        ### BEGIN SOLUTION
        # bands hash tables; table i maps the bytes of signature[i*rows:(i+1)*rows] to keys.
        self.bands, self.rows = bands, rows
        self.tables = [defaultdict(set) for _ in range(bands)]
        ### END SOLUTION

    def _band_keys(self, sig) -> list[bytes]:
        """A helper you may use (or delete): one hashable key per band of `sig`."""
        ### BEGIN SOLUTION
        sig = np.asarray(sig, dtype=np.uint64)
        r = self.rows
        return [sig[i * r : (i + 1) * r].tobytes() for i in range(self.bands)]
        ### END SOLUTION

    def insert(self, key, sig) -> None:
        """Index `key` (any hashable) under each band of signature `sig` (uint64 array with at
        least bands * rows entries)."""
        return None

    def query(self, sig) -> set:
        """Every inserted key whose signature agrees with `sig` on all rows of at least one band
        (a key inserted with this very signature is included)."""
        return set()
