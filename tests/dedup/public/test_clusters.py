"""Task 4: near_duplicate_clusters and deduplicate on generated corpora with planted duplicates.

The sandbox never sees the ground truth: checks.py recomputes exact Jaccard from the stored docs
and allows only as many wrong groups as the S-curve of datasketch's (b, r) makes likely."""

from autograder.harness import graded
from dedup import deduplicate, near_duplicate_clusters

LETTERS = list("abcdefghijklmnopqrstuvwxyz")
GAPS = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", " \r\n"]


def vocabulary(rng, size=3000):
    return sorted({"".join(rng.choice(LETTERS, size=int(rng.integers(2, 9)))) for _ in range(size)})


def words_of(rng, vocab, k):
    return [str(w) for w in rng.choice(vocab, size=k)]


def surface_variant(rng, words):
    """The same words re-cased, re-spaced and partly in fullwidth or ligature form: identical
    after normalize()."""
    out = []
    for w in words:
        x = rng.random()
        if x < 0.2:
            w = w.upper()
        elif x < 0.35:
            w = w.title()
        elif x < 0.45:
            w = "".join(chr(ord(c) + 0xFEE0) for c in w)  # fullwidth
        elif x < 0.55:
            w = w.replace("fi", "\ufb01").replace("fl", "\ufb02")
        out.append(w)
    gaps = rng.choice(GAPS, size=len(out) + 1)
    return "".join(g + w for g, w in zip(gaps, out)) + gaps[-1]


def _shingle_set(words, n=5):
    return {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)}


def _jaccard(a, b):
    return len(a & b) / len(a | b)


def edited(rng, vocab, words, target, append=False):
    """Edit a copy until Jaccard(original, copy) <= target: substitute random words (each moves
    up to 5 shingles: coarse), or, with append=True, append words (one shingle each: fine)."""
    copy, base = list(words), _shingle_set(words)
    while _jaccard(base, _shingle_set(copy)) > target:
        if append:
            copy.append(str(rng.choice(vocab)))
        else:
            copy[int(rng.integers(0, len(copy)))] = str(rng.choice(vocab))
    return copy


def planted_corpus(rng, threshold, num_perm, n_variant=10, n_near=8, near=(0.95, 0.99),
                   n_neg=6, neg=(0.3, 0.5), n_bridge=0, n_short=4, n_single=20):
    """Groups of documents in shuffled group order: surface variants (J = 1), near copies
    (J in `near`: the same text with a different tail), hard negatives (J in `neg`), bridges
    (A, C unrelated, then B = A + C, so only transitivity joins A and C), short docs (< 5 words; two are identical), unrelated singles."""
    vocab = vocabulary(rng)
    groups = []
    for _ in range(n_variant):
        base = words_of(rng, vocab, int(rng.integers(30, 70)))
        groups.append([surface_variant(rng, base) for _ in range(int(rng.integers(2, 5)))])
    for _ in range(n_near):
        base = words_of(rng, vocab, int(rng.integers(40, 80)))
        copy = edited(rng, vocab, base, float(rng.uniform(*near)), append=True)
        groups.append([" ".join(copy), " ".join(base)])
    for _ in range(n_neg):
        base = words_of(rng, vocab, int(rng.integers(40, 80)))
        groups.append([" ".join(base), " ".join(edited(rng, vocab, base, float(rng.uniform(*neg))))])
    for _ in range(n_bridge):
        a, c = words_of(rng, vocab, 40), words_of(rng, vocab, 40)
        groups.append([" ".join(a), " ".join(c), " ".join(a + c)])
    short = [" ".join(words_of(rng, vocab, int(rng.integers(0, 5)))) for _ in range(n_short)]
    groups += [[s] for s in short] + [[short[0]]]
    groups += [[" ".join(words_of(rng, vocab, int(rng.integers(20, 60))))] for _ in range(n_single)]
    docs = [d for k in rng.permutation(len(groups)) for d in groups[int(k)]]
    return {"docs": docs, "threshold": threshold, "num_perm": num_perm, "n": 5}


def default_corpus(rng):
    return planted_corpus(rng, 0.8, 128)


def exact_duplicates_corpus(rng):
    """Only surface variants, unrelated docs and short docs: every correct implementation gives
    the same answer (identical shingle sets have identical signatures)."""
    return planted_corpus(rng, 0.8, 128, n_variant=12, n_near=0, n_neg=0, n_short=5,
                          n_single=10)


def bridge_corpus(rng):
    """Bridges at a low threshold: A and C share nothing, B = A + C is similar to both (J ~ 0.48),
    so only transitivity puts A and C in one cluster."""
    return planted_corpus(rng, 0.25, 256, n_variant=3, n_near=0, n_neg=0, n_bridge=12,
                          n_short=2, n_single=5)


@graded(points=5, cases=default_corpus, timeout=30)
def test_near_duplicate_clusters(rec, cases):
    clusters = near_duplicate_clusters(cases["docs"], threshold=cases["threshold"],
                                       num_perm=cases["num_perm"], n=cases["n"])
    rec.check("clusters", [sorted(int(i) for i in c) for c in clusters],
              check="clusters_match_truth")


@graded(points=3, cases=default_corpus, timeout=30)
def test_deduplicate(rec, cases):
    kept = deduplicate(cases["docs"], threshold=cases["threshold"], num_perm=cases["num_perm"],
                       n=cases["n"])
    rec.check("kept", [int(i) for i in kept], check="kept_match_truth")


@graded(points=2, cases=exact_duplicates_corpus, timeout=30)
def test_deduplicate_normalized_copies(rec, cases):
    rec.exact("kept", [int(i) for i in deduplicate(cases["docs"])])


@graded(points=2, cases=bridge_corpus, timeout=30)
def test_clusters_are_transitive(rec, cases):
    clusters = near_duplicate_clusters(cases["docs"], threshold=cases["threshold"],
                                       num_perm=cases["num_perm"], n=cases["n"])
    rec.check("clusters", [sorted(int(i) for i in c) for c in clusters],
              check="clusters_match_truth")
