"""dedup: MinHash + LSH near-duplicate removal and Bloom-filter decontamination."""

from .bloom import BloomFilter, contaminated
from .clusters import deduplicate, near_duplicate_clusters
from .lsh import LSHIndex, candidate_probability, lsh_params
from .minhash import MinHasher, estimate_jaccard
from .text import jaccard, normalize, shingles

__all__ = [
    "BloomFilter",
    "LSHIndex",
    "MinHasher",
    "candidate_probability",
    "contaminated",
    "deduplicate",
    "estimate_jaccard",
    "jaccard",
    "lsh_params",
    "near_duplicate_clusters",
    "normalize",
    "shingles",
]
