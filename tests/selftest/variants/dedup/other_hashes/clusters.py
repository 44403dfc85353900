"""Clusters with other free choices: candidates verified by the *estimated* Jaccard, only
clusters of two or more listed, as tuples, in first-seen order; deduplicate as a numpy array."""

import numpy as np

from .lsh import LSHIndex, lsh_params
from .minhash import MinHasher, estimate_jaccard
from .text import shingles


def near_duplicate_clusters(docs, threshold=0.8, num_perm=128, n=5, seed=1):
    hasher = MinHasher(num_perm=num_perm, seed=seed)
    bands, rows = lsh_params(threshold, num_perm)
    index = LSHIndex(bands, rows)
    label = {}
    sigs = {}
    for i, doc in enumerate(docs):
        s = shingles(doc, n=n)
        if not s:
            continue
        sig = hasher.signature(s)
        sigs[i] = sig
        label[i] = i
        for j in index.query(sig):
            if estimate_jaccard(sig, sigs[j]) >= threshold:
                old, new = label[j], label[i]
                for k, v in label.items():
                    if v == old:
                        label[k] = new
        index.insert(i, sig)
    groups = {}
    for i, lab in label.items():
        groups.setdefault(lab, []).append(i)
    return [tuple(g) for g in groups.values() if len(g) > 1]


def deduplicate(docs, threshold=0.8, num_perm=128, n=5, seed=1):
    dropped = set()
    for cluster in near_duplicate_clusters(docs, threshold, num_perm, n, seed):
        dropped |= set(cluster) - {min(cluster)}
    return np.array([i for i in range(len(docs)) if i not in dropped], dtype=np.int64)
