# ruff: noqa
# A no-work case of tests/selftest/test_no_work.py (deliberately wrong).
"""Task 4: near-duplicate clusters (connected components) and deduplication."""

from collections import defaultdict

from .lsh import LSHIndex, lsh_params
from .minhash import MinHasher
from .text import jaccard, shingles


def near_duplicate_clusters(
    docs: list[str], threshold: float = 0.8, num_perm: int = 128, n: int = 5, seed: int = 1
) -> list[list[int]]:
    """Clusters of near-duplicate documents: the connected components of the graph with an edge
    between documents whose n-shingle sets have Jaccard >= threshold (transitive: if a ~ b and
    b ~ c, then a, b and c are one cluster even when a and c are far apart).

    Find candidate pairs with MinHasher(num_perm, seed) and an LSHIndex with
    lsh_params(threshold, num_perm); verifying candidates (exact or estimated Jaccard) is your
    choice. Documents with fewer than n words have no shingles and are never duplicates.
    Returns a list of clusters, each a list of document indices; whether singletons are listed and
    the order of clusters and members are free. Clusters are disjoint."""
    return [[i] for i in range(len(docs))]


def deduplicate(
    docs: list[str], threshold: float = 0.8, num_perm: int = 128, n: int = 5, seed: int = 1
) -> list[int]:
    """Sorted indices of the documents to keep: the lowest index of each cluster of
    near_duplicate_clusters (singletons are kept)."""
    return list(range(len(docs)))
