# Variant dedup/float32_inside: jaccard, estimate_jaccard and candidate_probability computed in
# float32
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
    s32 = np.asarray(s, dtype=np.float32)
    out = np.float32(1.0) - (np.float32(1.0) - s32**rows) ** bands
    return float(out) if out.ndim == 0 else out


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
    ### BEGIN SOLUTION
    # Same search order and strict '<' as datasketch's _optimal_param: the first minimum wins.
    from scipy.integrate import quad  # imported here: scipy is slow to import

    best, best_error = (0, 0), float("inf")
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp, _ = quad(lambda s, b=b, r=r: candidate_probability(s, b, r), 0.0, threshold)
            fn, _ = quad(lambda s, b=b, r=r: 1 - candidate_probability(s, b, r), threshold, 1.0)
            error = fp_weight * fp + fn_weight * fn
            if error < best_error:
                best, best_error = (b, r), error
    return best
    ### END SOLUTION


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
        ### BEGIN SOLUTION
        for table, band in zip(self.tables, self._band_keys(sig)):
            table[band].add(key)
        ### END SOLUTION

    def query(self, sig) -> set:
        """Every inserted key whose signature agrees with `sig` on all rows of at least one band
        (a key inserted with this very signature is included)."""
        ### BEGIN SOLUTION
        found = set()
        for table, band in zip(self.tables, self._band_keys(sig)):
            found |= table.get(band, set())
        return found
        ### END SOLUTION
