"""dedup speed as ratios to datasketch (MinHash + MinHashLSH) on the same data, same run.

    python bench/bench_dedup.py [--impl DIR] [--docs 20000]   # DIR holds a dedup/ package

1. MinHash signatures per second (num_perm=128) on the shingle sets of 2,000 documents:
   MinHasher.signature vs datasketch MinHash(num_perm=128).update_batch (both hash every
   shingle in Python, then apply all permutations with numpy).
2. End-to-end deduplication of a generated corpus (default 20,000 documents, about a quarter of
   them planted near-duplicates): deduplicate(docs, threshold=0.8, num_perm=128) vs the same
   pipeline on datasketch (shingles -> MinHash -> MinHashLSH insert/query -> exact-Jaccard
   verification -> union-find). Both use the same shingles() so the ratio compares MinHash + LSH.
A ratio > 1 means the implementation is faster than datasketch. Best of 3 repeats (1 for the
end-to-end run).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from datasketch import MinHash, MinHashLSH

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchrows import guarded, print_rows, row  # noqa: E402


def corpus(n_docs: int, seed: int = 0) -> list[str]:
    """Random-word documents of 40-120 words; a quarter are edited copies of earlier ones."""
    rng = np.random.default_rng(seed)
    vocab = np.array(["".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"),
                                         size=int(rng.integers(2, 9)))) for _ in range(20000)])
    docs: list[list[str]] = []
    for i in range(n_docs):
        if i > 10 and rng.random() < 0.25:
            words = list(docs[int(rng.integers(0, i))])
            for _ in range(int(rng.integers(0, 4))):
                words[int(rng.integers(0, len(words)))] = str(rng.choice(vocab))
        else:
            words = rng.choice(vocab, size=int(rng.integers(40, 120))).tolist()
        docs.append(words)
    return [" ".join(w) for w in docs]


def best_of(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def datasketch_dedup(docs, shingles, threshold=0.8, num_perm=128) -> list[int]:
    sets = [shingles(d) for d in docs]
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    parent = list(range(len(docs)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, s in enumerate(sets):
        if not s:
            continue
        m = MinHash(num_perm=num_perm)
        m.update_batch([x.encode() for x in s])
        for j in lsh.query(m):
            if len(s & sets[j]) / len(s | sets[j]) >= threshold:
                parent[find(i)] = find(j)
        lsh.insert(i, m)
    return sorted(_lowest_per_root(parent, find))


def _lowest_per_root(parent, find) -> set[int]:
    lowest: dict[int, int] = {}
    for i in range(len(parent)):
        lowest.setdefault(find(i), i)
    return set(lowest.values())


def measure(impl: str, n_docs: int = 20000) -> dict:
    """Signature and end-to-end seconds of ours and datasketch's on one generated corpus."""
    sys.path.insert(0, str(Path(impl).resolve()))
    from dedup import MinHasher, deduplicate, shingles

    docs = corpus(n_docs)
    sets = [shingles(d) for d in docs[:2000]]
    hasher = MinHasher(num_perm=128, seed=1)
    sig_ours = best_of(lambda: [hasher.signature(s) for s in sets], 3)

    def theirs_fn():
        for s in sets:
            MinHash(num_perm=128).update_batch([x.encode() for x in s])

    sig_theirs = best_of(theirs_fn, 3)
    t = time.perf_counter()
    kept_ours = deduplicate(docs, threshold=0.8, num_perm=128)
    dedup_ours = time.perf_counter() - t
    t = time.perf_counter()
    kept_theirs = datasketch_dedup(docs, shingles)
    dedup_theirs = time.perf_counter() - t
    union = set(kept_ours) | set(kept_theirs)
    return {"n_sig_docs": len(sets), "shingles_per_doc": sum(map(len, sets)) / len(sets),
            "sig": sig_ours, "sig_datasketch": sig_theirs, "n_docs": len(docs),
            "dedup": dedup_ours, "dedup_datasketch": dedup_theirs, "kept": len(kept_ours),
            "kept_datasketch": len(kept_theirs),
            "agree": len(set(kept_ours) & set(kept_theirs)) / max(1, len(union))}


def report(m: dict) -> None:
    """The human-readable lines of a run alone."""
    n = m["n_sig_docs"]
    print(f"MinHash signatures (num_perm=128, {n} docs, {m['shingles_per_doc']:.0f} "
          f"shingles/doc): {n / m['sig']:,.0f}/s vs datasketch {n / m['sig_datasketch']:,.0f}/s "
          f"-> ratio {m['sig_datasketch'] / m['sig']:.2f}x")
    print(f"end-to-end dedup of {m['n_docs']:,} docs (threshold 0.8, num_perm 128): "
          f"{m['dedup']:.2f} s vs datasketch {m['dedup_datasketch']:.2f} s -> ratio "
          f"{m['dedup_datasketch'] / m['dedup']:.2f}x; kept {m['kept']:,} vs "
          f"{m['kept_datasketch']:,} (kept-set Jaccard {m['agree']:.3f}: LSH misses differ "
          f"between hash families near the threshold)")


def table_rows(m: dict) -> list[dict]:
    """measure()'s result as rows of the performance table."""
    n = m["n_sig_docs"]
    return [
        row("dedup", f"MinHash signatures, num_perm=128, {n:,} docs "
            f"({m['shingles_per_doc']:.0f} shingles/doc)", n / m["sig"], "docs/s",
            peer=n / m["sig_datasketch"], peer_name="datasketch MinHash.update_batch",
            note="best of 3; higher is better"),
        row("dedup", f"deduplicate {m['n_docs']:,} docs (threshold 0.8, num_perm 128)",
            m["dedup"], "s", peer=m["dedup_datasketch"],
            peer_name="datasketch MinHash + MinHashLSH",
            note=f"once each; lower is better; kept {m['kept']:,} vs {m['kept_datasketch']:,} "
                 f"(kept-set Jaccard {m['agree']:.3f})"),
    ]


def rows(impl: str = str(ROOT / "solutions"), n_docs: int = 20000) -> list[dict]:
    """MinHash signatures and end-to-end dedup, reference solution vs datasketch."""
    return guarded("dedup", ["MinHash signatures", f"deduplicate {n_docs:,} docs"],
                   lambda: table_rows(measure(impl, n_docs)))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--impl", default=str(ROOT / "solutions"))
    ap.add_argument("--docs", type=int, default=20000)
    args = ap.parse_args()
    m = measure(args.impl, args.docs)
    report(m)
    print_rows(table_rows(m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
