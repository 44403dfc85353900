"""Task 4: near-duplicate clusters (connected components) and deduplication."""

from collections import defaultdict

from .lsh import LSHIndex, lsh_params
from .minhash import MinHasher
from .text import jaccard, shingles


def near_duplicate_clusters(
    docs: list[str], threshold: float = 0.8, num_perm: int = 128, n: int = 5, seed: int = 1
) -> list[list[int]]:
    """Connected components of the graph with an edge between documents whose shingle sets have
    Jaccard >= threshold. Candidates come from LSH with lsh_params(threshold, num_perm) and are
    verified with exact Jaccard. Documents with no shingles are singletons. Singletons included."""
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


def deduplicate(
    docs: list[str], threshold: float = 0.8, num_perm: int = 128, n: int = 5, seed: int = 1
) -> list[int]:
    """Sorted indices of the documents kept: the lowest index of each near-duplicate cluster."""
    return sorted(min(c) for c in near_duplicate_clusters(docs, threshold, num_perm, n, seed))
