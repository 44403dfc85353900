# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""Task 2: MinHash signatures, an unbiased estimator of Jaccard similarity.

For a random permutation h of the shingle universe, P[min h(A) = min h(B)] = |A & B| / |A | B|.
num_perm independent permutations give num_perm independent coin flips with that bias; the fraction
of equal signature entries estimates J with standard error sqrt(J (1 - J) / num_perm).
"""

import hashlib

import numpy as np

EMPTY = np.iinfo(np.uint64).max  # signature entry of an empty set: the identity of min()


def hash32(shingle: str) -> int:
    """A helper you may use (or delete): a deterministic 32-bit hash of `shingle` (never
    Python's hash(): it is salted per process)."""
    ### BEGIN SOLUTION
    return int.from_bytes(hashlib.blake2b(shingle.encode(), digest_size=4).digest(), "little")
    ### END SOLUTION


class MinHasher:
    """num_perm hash functions standing for random permutations of the shingle universe.

    The hash family and how `seed` picks the functions are yours, with these requirements:
    - the same (num_perm, seed) gives the same functions in every process: never use Python's
      built-in hash() on strings, which is salted per process;
    - the num_perm functions are (close to) independent of each other.
    Suggested: a deterministic 32-bit hash x of each shingle (hashlib), then
    h_i(x) = (a_i * x + b_i) mod 2^64 with random 64-bit a_i (odd) and b_i drawn from
    np.random.default_rng(seed) (uint64 arithmetic wraps mod 2^64 by itself), all permutations
    at once with numpy broadcasting. Beware families with few "wraps": (a x + b) mod p with
    a, x < 2^32 and p = 2^61 - 1 is nearly monotone in x, and its permutations all prefer the same
    small x, which biases the estimate.
    """

    def __init__(self, num_perm: int = 128, seed: int = 1):
        ### BEGIN SOLUTION
        # num_perm multiply-add hashes h_i(x) = (a_i x + b_i) mod 2^64 of 32-bit shingle hashes
        # x, with random 64-bit a_i (odd) and b_i. The top bits of h_i (which decide the minimum)
        # form a 2-universal family (Dietzfelbinger 1996), and odd a_i makes h_i injective.
        rng = np.random.default_rng(seed)
        self.num_perm = num_perm
        self.a = rng.integers(0, 1 << 64, size=num_perm, dtype=np.uint64, endpoint=False) | 1
        self.b = rng.integers(0, 1 << 64, size=num_perm, dtype=np.uint64, endpoint=False)
        ### END SOLUTION

    def signature(self, shingles) -> np.ndarray:
        """np.ndarray of dtype uint64 and shape (num_perm,): entry i is the minimum of h_i over
        the set `shingles` (any iterable of str; order must not matter).
        Must hold: signature(A | B) == np.minimum(signature(A), signature(B)).
        The empty set: your choice (tests never compare it; near_duplicate_clusters must not
        treat empty documents as duplicates)."""
        rng = np.random.default_rng(self.num_perm * 1000 + 7)
        return rng.integers(0, 1 << 63, size=self.num_perm, dtype=np.uint64)


def estimate_jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> float:
    """The fraction of positions where the two signatures agree: an unbiased estimate of the
    Jaccard similarity of the two sets, with standard error sqrt(J (1 - J) / num_perm)."""
    ### BEGIN SOLUTION
    return float(np.mean(np.asarray(sig_a) == np.asarray(sig_b)))
    ### END SOLUTION
