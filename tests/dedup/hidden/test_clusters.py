"""Task 4 (hidden): transitivity through bridging documents; other thresholds and sizes."""

from common import (
    clusters,
    edited,
    fullwidth,
    hard_negative,
    kept,
    restyle,
    shuffled_corpus,
    spaced,
    vocabulary,
    words_of,
)

from autograder.harness import graded
from dedup import deduplicate, near_duplicate_clusters

GAPS = [" ", "\t", "\n\n", "\u00a0", "\u2003", "\u3000"]


def surface_variant(rng, words):
    return spaced(rng, restyle(rng, words, [(0.25, str.upper), (0.4, fullwidth)]), GAPS)


def corpus(rng, threshold, num_perm, n_bridge, n_near, near, n_neg, neg, n_variant=4):
    vocab = vocabulary(rng, 3000)
    groups = []
    for _ in range(n_bridge):  # A and C unrelated; B = A + C arrives last and joins them
        a, c = words_of(rng, vocab, 40), words_of(rng, vocab, 40)
        groups.append([" ".join(a), surface_variant(rng, c), " ".join(a + c)])
    for _ in range(n_near):
        base = words_of(rng, vocab, int(rng.integers(40, 80)))
        near_copy = edited(rng, vocab, base, float(rng.uniform(*near)), append=rng.random() < 0.5)
        groups.append([" ".join(base), " ".join(near_copy)])
    groups += [hard_negative(rng, vocab, neg) for _ in range(n_neg)]
    for _ in range(n_variant):
        base = words_of(rng, vocab, 50)
        groups.append([surface_variant(rng, base), " ".join(base)])
    groups += [[" ".join(words_of(rng, vocab, int(rng.integers(0, 5))))] for _ in range(3)]
    groups += [[" ".join(words_of(rng, vocab, 30))] for _ in range(10)]
    return shuffled_corpus(rng, groups, threshold, num_perm)


def bridge_corpus(rng):
    return corpus(rng, 0.25, 256, n_bridge=20, n_near=0, near=(0.9, 0.9), n_neg=0, neg=(0, 0))


def mid_threshold_corpus(rng):
    """A corpus at threshold 0.5, plus `borderline`: documents for the defaults' observation."""
    planted = corpus(rng, 0.5, 128, n_bridge=0, n_near=12, near=(0.8, 0.95), n_neg=8,
                     neg=(0.05, 0.15))
    return dict(planted, borderline=borderline_docs(rng))


def borderline_docs(rng):
    """Near copies just above the default threshold 0.8 (J in about [0.81, 0.85]), where the
    S-curve of datasketch's (b, r) = (9, 13) for 128 permutations makes a pair a candidate with
    probability ~0.45 to 0.7: two different sets of hash functions disagree on some pair."""
    vocab = vocabulary(rng, 3000)
    groups = []
    for _ in range(20):
        base = words_of(rng, vocab, int(rng.integers(60, 100)))
        copy = edited(rng, vocab, base, float(rng.uniform(0.81, 0.85)), append=True)
        groups.append([" ".join(base), " ".join(copy)])
    return shuffled_corpus(rng, groups, 0.8, 128)["docs"]


def partition(found) -> list[list[int]]:
    """Clusters as sorted lists of ints, singletons dropped, sorted (listing singletons and the
    order of clusters and members are free)."""
    return sorted(c for c in (sorted(int(i) for i in cluster) for cluster in found) if len(c) > 1)


def record_defaults(rec, docs) -> None:
    """The defaults SPEC 5.4 states (threshold=0.8, num_perm=128, n=5, seed=1): a call without
    them is the call with them, on pairs whose clustering depends on the hash functions."""
    explicit = {"threshold": 0.8, "num_perm": 128, "n": 5, "seed": 1}
    rec.exact("defaults.clusters_equal_explicit",
              partition(near_duplicate_clusters(docs)) == partition(near_duplicate_clusters(docs, **explicit)))
    rec.exact("defaults.deduplicate_equals_explicit",
              [int(i) for i in deduplicate(docs)] == [int(i) for i in deduplicate(docs, **explicit)])


@graded(points=3, cases=bridge_corpus, timeout=30)
def test_clusters_are_transitive_hidden(rec, cases):
    rec.check("clusters", clusters(cases), check="clusters_match_truth")


@graded(points=2, cases=bridge_corpus, timeout=30)
def test_deduplicate_transitive(rec, cases):
    rec.check("kept", kept(cases), check="kept_match_truth")


@graded(points=3, cases=mid_threshold_corpus, timeout=30)
def test_near_duplicate_clusters_mid_threshold(rec, cases):
    rec.check("clusters", clusters(cases), check="clusters_match_truth")
    record_defaults(rec, cases["borderline"])
