"""Task 2: MinHash signatures, an unbiased estimator of Jaccard similarity.

For a random permutation h of the shingle universe, P[min h(A) = min h(B)] = |A & B| / |A | B|.
num_perm independent permutations give num_perm independent coin flips with that bias; the fraction
of equal signature entries estimates J with standard error sqrt(J (1 - J) / num_perm).
"""

import hashlib

import numpy as np

EMPTY = np.iinfo(np.uint64).max  # signature entry of an empty set: the identity of min()


def hash32(shingle: str) -> int:
    """A deterministic 32-bit hash (never Python's hash(): it is salted per process)."""
    return int.from_bytes(hashlib.blake2b(shingle.encode(), digest_size=4).digest(), "little")


class MinHasher:
    """num_perm multiply-add hashes h_i(x) = (a_i x + b_i) mod 2^64 of 32-bit shingle hashes x,
    with random 64-bit a_i (odd) and b_i: uint64 arithmetic wraps mod 2^64 by itself. The top bits
    of h_i (which decide the minimum) form a 2-universal family (Dietzfelbinger 1996), and odd a_i
    makes h_i injective: a permutation of the shingle hashes."""

    def __init__(self, num_perm: int = 128, seed: int = 1):
        rng = np.random.default_rng(seed)
        self.num_perm = num_perm
        self.a = rng.integers(0, 1 << 64, size=num_perm, dtype=np.uint64, endpoint=False) | 1
        self.b = rng.integers(0, 1 << 64, size=num_perm, dtype=np.uint64, endpoint=False)

    def signature(self, shingles) -> np.ndarray:
        """uint64 array of shape (num_perm,): min over the set of each h_i. Same set, same
        signature, in any process. signature(A | B) == np.minimum(signature(A), signature(B))."""
        x = np.fromiter((hash32(s) for s in shingles), dtype=np.uint64)
        if x.size == 0:
            return np.full(self.num_perm, EMPTY, dtype=np.uint64)
        hashed = self.a[:, None] * x[None, :] + self.b[:, None]  # (num_perm, len(x)), mod 2^64
        return hashed.min(axis=1)


def estimate_jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> float:
    """Fraction of positions where the two signatures agree."""
    return float(np.mean(np.asarray(sig_a) == np.asarray(sig_b)))
