"""MinHash with datasketch's hash family instead of the reference's: a SHA-1 32-bit shingle
hash, then h_i(x) = ((a_i x + b_i) mod (2^61 - 1)) & (2^32 - 1), a_i and b_i drawn from
np.random.RandomState(seed). Estimates come back as numpy floats."""

import hashlib

import numpy as np

_PRIME = np.uint64((1 << 61) - 1)
_MAX = np.uint64((1 << 32) - 1)


class MinHasher:
    def __init__(self, num_perm: int = 128, seed: int = 1):
        gen = np.random.RandomState(seed)
        self.a = gen.randint(1, (1 << 61) - 1, size=num_perm, dtype=np.uint64)
        self.b = gen.randint(0, (1 << 61) - 1, size=num_perm, dtype=np.uint64)

    def signature(self, shingles) -> np.ndarray:
        x = np.array([int.from_bytes(hashlib.sha1(s.encode("utf-8")).digest()[:4], "little")
                      for s in shingles], dtype=np.uint64)
        if x.size == 0:
            return np.full(len(self.a), _MAX, dtype=np.uint64)
        with np.errstate(over="ignore"):
            h = ((self.a[:, None] * x[None, :] + self.b[:, None]) % _PRIME) & _MAX
        return h.min(axis=1)


def estimate_jaccard(sig_a, sig_b):
    return np.mean(np.asarray(sig_a) == np.asarray(sig_b))
