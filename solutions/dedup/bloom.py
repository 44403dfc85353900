"""Task 5: Bloom filters, and task 6: n-gram decontamination against an eval set."""

import hashlib
import math

from .text import shingles


class BloomFilter:
    """A Bloom filter for `capacity` items at target false-positive rate `error_rate`:
    m = ceil(-capacity * ln(error_rate) / (ln 2)^2) bits and k = round((m / capacity) ln 2) hash
    positions per item (deterministic hashes: hashlib). Make the k positions independent, e.g.
    8 bytes each of hashlib.shake_128(item).digest(8 * k), mod m: double hashing h1 + i*h2 mod m
    is as good only as m grows, and at error_rate 1e-6 with m of a few thousand bits it flags
    far more than the target (the handout's Task 5).
    Items are str. No false negatives; after `capacity` adds the false-positive rate is about
    error_rate (tests allow up to 1.25 x the target plus sampling noise)."""

    def __init__(self, capacity: int, error_rate: float):
        ### BEGIN SOLUTION
        # For n = capacity items and target error rate p: m = -n ln p / (ln 2)^2 bits and
        # k = (m / n) ln 2 positions give a false-positive rate (1 - e^(-kn/m))^k ~ p.
        self.m = math.ceil(-capacity * math.log(error_rate) / math.log(2) ** 2)
        self.k = max(1, round(self.m / capacity * math.log(2)))
        self.bits = bytearray(self.m)
        ### END SOLUTION

    def _positions(self, item) -> list[int]:
        """A helper you may use (or delete): the k bit positions of `item`, independent of one
        another: 8 bytes each of one extendable-output hash (SHAKE-128), mod m."""
        ### BEGIN SOLUTION
        data = item.encode() if isinstance(item, str) else bytes(item)
        stream = hashlib.shake_128(data).digest(8 * self.k)
        return [int.from_bytes(stream[8 * i : 8 * i + 8], "little") % self.m for i in range(self.k)]
        ### END SOLUTION

    def add(self, item) -> None:
        """Insert `item`."""
        ### BEGIN SOLUTION
        for p in self._positions(item):
            self.bits[p] = 1
        ### END SOLUTION

    def __contains__(self, item) -> bool:
        """`item in bloom`: always True for an added item; for others, False except with
        probability about error_rate."""
        ### BEGIN SOLUTION
        return all(self.bits[p] for p in self._positions(item))
        ### END SOLUTION


def contaminated(train_docs: list[str], eval_docs: list[str], n: int = 13) -> list[int]:
    """Sorted indices of training documents that share at least one n-gram of normalized words
    (shingles(doc, n)) with any eval document, found with a BloomFilter holding the eval n-grams.

    Every truly contaminated document must be flagged. The filter's error rate is yours, but at
    most 1% of the clean documents (at least 2 allowed) may be flagged: a clean document is
    flagged if any of its n-grams is a false positive, so pick a per-n-gram rate far below 1%
    (e.g. 1e-6). Documents (train or eval) with fewer than n words have no n-grams."""
    ### BEGIN SOLUTION
    # Both sides are normalized the same way (shingles), or a re-cased or re-spaced copy of a
    # test set slips through.
    eval_grams = set().union(*(shingles(doc, n) for doc in eval_docs))
    bloom = BloomFilter(max(1, len(eval_grams)), error_rate=1e-6)
    for gram in eval_grams:
        bloom.add(gram)
    return [i for i, doc in enumerate(train_docs) if any(g in bloom for g in shingles(doc, n))]
    ### END SOLUTION
