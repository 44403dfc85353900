"""Task 5: Bloom filters, and n-gram decontamination of training data against an eval set."""

import hashlib
import math

from .text import shingles


class BloomFilter:
    """m bits, k hash positions per item. For n = capacity items and target error rate p:
    m = -n ln p / (ln 2)^2 and k = (m / n) ln 2, giving false-positive rate (1 - e^(-kn/m))^k ~ p.
    No false negatives: an added item is always reported present."""

    def __init__(self, capacity: int, error_rate: float):
        self.m = math.ceil(-capacity * math.log(error_rate) / math.log(2) ** 2)
        self.k = max(1, round(self.m / capacity * math.log(2)))
        self.bits = bytearray(self.m)

    def _positions(self, item) -> list[int]:
        """Double hashing (Kirsch & Mitzenmacher): g_i = h1 + i * h2 mod m."""
        data = item.encode() if isinstance(item, str) else bytes(item)
        digest = hashlib.blake2b(data, digest_size=16).digest()
        h1 = int.from_bytes(digest[:8], "little")
        h2 = int.from_bytes(digest[8:], "little") | 1
        return [(h1 + i * h2) % self.m for i in range(self.k)]

    def add(self, item) -> None:
        for p in self._positions(item):
            self.bits[p] = 1

    def __contains__(self, item) -> bool:
        return all(self.bits[p] for p in self._positions(item))


def contaminated(train_docs: list[str], eval_docs: list[str], n: int = 13) -> list[int]:
    """Sorted indices of training documents that share a normalized word n-gram with any eval
    document. Eval n-grams go into a Bloom filter (error rate 1e-6 per n-gram); both sides are
    normalized the same way, or a re-cased or re-spaced copy of a test set slips through."""
    eval_grams = set().union(*(shingles(doc, n) for doc in eval_docs))
    bloom = BloomFilter(max(1, len(eval_grams)), error_rate=1e-6)
    for gram in eval_grams:
        bloom.add(gram)
    return [i for i, doc in enumerate(train_docs) if any(g in bloom for g in shingles(doc, n))]
