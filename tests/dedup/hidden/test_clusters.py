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
    return corpus(rng, 0.5, 128, n_bridge=0, n_near=12, near=(0.8, 0.95), n_neg=8,
                  neg=(0.05, 0.15))


@graded(points=3, cases=bridge_corpus, timeout=30)
def test_clusters_are_transitive_hidden(rec, cases):
    rec.check("clusters", clusters(cases), check="clusters_match_truth")


@graded(points=2, cases=bridge_corpus, timeout=30)
def test_deduplicate_transitive(rec, cases):
    rec.check("kept", kept(cases), check="kept_match_truth")


@graded(points=3, cases=mid_threshold_corpus, timeout=30)
def test_near_duplicate_clusters_mid_threshold(rec, cases):
    rec.check("clusters", clusters(cases), check="clusters_match_truth")
