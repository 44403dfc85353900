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
    ### BEGIN SOLUTION
    # Candidates from LSH, verified with exact Jaccard; union-find joins them. Documents with no
    # shingles stay singletons (listed).
    sets = [shingles(doc, n) for doc in docs]
    hasher = MinHasher(num_perm, seed)
    index = LSHIndex(*lsh_params(threshold, num_perm))
    parent = list(range(len(docs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]  # path halving
            i = parent[i]
        return i

    for i, s in enumerate(sets):
        if not s:
            continue  # no shingles: never a duplicate
        sig = hasher.signature(s)
        for j in index.query(sig):
            if jaccard(s, sets[j]) >= threshold:
                parent[find(i)] = find(j)
        index.insert(i, sig)

    components = defaultdict(list)
    for i in range(len(docs)):
        components[find(i)].append(i)
    return sorted(components.values())
    ### END SOLUTION


def deduplicate(
    docs: list[str], threshold: float = 0.8, num_perm: int = 128, n: int = 5, seed: int = 1
) -> list[int]:
    """Sorted indices of the documents to keep: the lowest index of each cluster of
    near_duplicate_clusters (singletons are kept)."""
    ### BEGIN SOLUTION
    return sorted(min(c) for c in near_duplicate_clusters(docs, threshold, num_perm, n, seed))
    ### END SOLUTION
