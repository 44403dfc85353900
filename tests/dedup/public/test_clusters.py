"""Task 4: near_duplicate_clusters and deduplicate on generated corpora with planted duplicates.

The sandbox never sees the ground truth: checks.py recomputes exact Jaccard from the stored docs
and allows only as many wrong groups as the S-curve of datasketch's (b, r) makes likely."""

from common import (
    clusters,
    edited,
    fullwidth,
    hard_negative,
    kept,
    ligatures,
    restyle,
    shuffled_corpus,
    spaced,
    vocabulary,
    words_of,
)

from autograder.harness import graded
from dedup import deduplicate

GAPS = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", " \r\n"]
STYLES = [(0.2, str.upper), (0.35, str.title), (0.45, fullwidth), (0.55, ligatures)]


def surface_variant(rng, words):
    """The same words re-cased, re-spaced and partly in fullwidth or ligature form: identical
    after normalize()."""
    return spaced(rng, restyle(rng, words, STYLES), GAPS)


def planted_corpus(rng, threshold, num_perm, n_variant=10, n_near=8, near=(0.95, 0.99),
                   n_neg=6, neg=(0.3, 0.5), n_bridge=0, n_short=4, n_single=20):
    """Groups of documents in shuffled group order: surface variants (J = 1), near copies
    (J in `near`: the same text with a different tail), hard negatives (J in `neg`), bridges
    (A, C unrelated, then B = A + C, so only transitivity joins A and C), short docs (< 5 words;
    two are identical), unrelated singles."""
    vocab = vocabulary(rng, 3000)
    groups = []
    for _ in range(n_variant):
        base = words_of(rng, vocab, int(rng.integers(30, 70)))
        groups.append([surface_variant(rng, base) for _ in range(int(rng.integers(2, 5)))])
    for _ in range(n_near):
        base = words_of(rng, vocab, int(rng.integers(40, 80)))
        copy = edited(rng, vocab, base, float(rng.uniform(*near)), append=True)
        groups.append([" ".join(copy), " ".join(base)])
    groups += [hard_negative(rng, vocab, neg) for _ in range(n_neg)]
    for _ in range(n_bridge):
        a, c = words_of(rng, vocab, 40), words_of(rng, vocab, 40)
        groups.append([" ".join(a), " ".join(c), " ".join(a + c)])
    short = [" ".join(words_of(rng, vocab, int(rng.integers(0, 5)))) for _ in range(n_short)]
    groups += [[s] for s in short] + [[short[0]]]
    groups += [[" ".join(words_of(rng, vocab, int(rng.integers(20, 60))))] for _ in range(n_single)]
    return shuffled_corpus(rng, groups, threshold, num_perm)


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
    rec.check("clusters", clusters(cases), check="clusters_match_truth")


@graded(points=3, cases=default_corpus, timeout=30)
def test_deduplicate(rec, cases):
    rec.check("kept", kept(cases), check="kept_match_truth")


@graded(points=2, cases=exact_duplicates_corpus, timeout=30)
def test_deduplicate_normalized_copies(rec, cases):
    rec.exact("kept", [int(i) for i in deduplicate(cases["docs"])])


@graded(points=2, cases=bridge_corpus, timeout=30)
def test_clusters_are_transitive(rec, cases):
    rec.check("clusters", clusters(cases), check="clusters_match_truth")
