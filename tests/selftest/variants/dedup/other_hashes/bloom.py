"""A Bloom filter with k independent salted SHA-256 hashes, k rounded up; contaminated returns
a numpy array."""

import hashlib
import math

import numpy as np

from .text import shingles


class BloomFilter:
    def __init__(self, capacity: int, error_rate: float):
        self.m = int(math.ceil(capacity * -math.log(error_rate) / math.log(2) ** 2))
        self.k = int(math.ceil(self.m / capacity * math.log(2)))
        self.bits = np.zeros(self.m, dtype=bool)

    def _positions(self, item):
        data = str(item).encode("utf-8")
        return [int.from_bytes(hashlib.sha256(i.to_bytes(2, "big") + data).digest()[:8], "big")
                % self.m for i in range(self.k)]

    def add(self, item) -> None:
        self.bits[self._positions(item)] = True

    def __contains__(self, item):
        return self.bits[self._positions(item)].all()  # a numpy bool


def contaminated(train_docs, eval_docs, n=13):
    grams = [g for doc in eval_docs for g in shingles(doc, n=n)]
    bloom = BloomFilter(max(len(grams), 1), 1e-4)
    for g in grams:
        bloom.add(g)
    return np.array([i for i, doc in enumerate(train_docs)
                     if any(g in bloom for g in shingles(doc, n=n))], dtype=np.int64)
