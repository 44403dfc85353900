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
    raise NotImplementedError


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
    raise NotImplementedError


class LSHIndex:
    """Banded LSH index: band i of a signature is entries [i*rows, (i+1)*rows)."""

    def __init__(self, bands: int, rows: int):
        raise NotImplementedError

    def _band_keys(self, sig) -> list[bytes]:
        """A helper you may use (or delete): one hashable key per band of `sig`."""
        raise NotImplementedError

    def insert(self, key, sig) -> None:
        """Index `key` (any hashable) under each band of signature `sig` (uint64 array with at
        least bands * rows entries)."""
        raise NotImplementedError

    def query(self, sig) -> set:
        """Every inserted key whose signature agrees with `sig` on all rows of at least one band
        (a key inserted with this very signature is included)."""
        raise NotImplementedError
