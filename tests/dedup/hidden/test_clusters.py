"""Task 4 (hidden): transitivity through bridging documents; other thresholds and sizes."""

from autograder.harness import graded
from dedup import deduplicate, near_duplicate_clusters

LETTERS = list("abcdefghijklmnopqrstuvwxyz")
GAPS = [" ", "\t", "\n\n", "\u00a0", "\u2003", "\u3000"]


def vocabulary(rng, size=3000):
    return sorted({"".join(rng.choice(LETTERS, size=int(rng.integers(2, 9)))) for _ in range(size)})


def words_of(rng, vocab, k):
    return [str(w) for w in rng.choice(vocab, size=k)]


def surface_variant(rng, words):
    out = []
    for w in words:
        x = rng.random()
        if x < 0.25:
            w = w.upper()
        elif x < 0.4:
            w = "".join(chr(ord(c) + 0xFEE0) for c in w)
        out.append(w)
    gaps = rng.choice(GAPS, size=len(out) + 1)
    return "".join(g + w for g, w in zip(gaps, out)) + gaps[-1]


def _shingle_set(words, n=5):
    return {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)}


def edited(rng, vocab, words, target, append=False):
    """Substitute random words (coarse: up to 5 shingles each) or append words (one shingle
    each) until Jaccard(original, copy) <= target."""
    copy, base = list(words), _shingle_set(words)
    while len(base & _shingle_set(copy)) / len(base | _shingle_set(copy)) > target:
        if append:
            copy.append(str(rng.choice(vocab)))
        else:
            copy[int(rng.integers(0, len(copy)))] = str(rng.choice(vocab))
    return copy


def corpus(rng, threshold, num_perm, n_bridge, n_near, near, n_neg, neg, n_variant=4):
    vocab = vocabulary(rng)
    groups = []
    for _ in range(n_bridge):  # A and C unrelated; B = A + C arrives last and joins them
        a, c = words_of(rng, vocab, 40), words_of(rng, vocab, 40)
        groups.append([" ".join(a), surface_variant(rng, c), " ".join(a + c)])
    for _ in range(n_near):
        base = words_of(rng, vocab, int(rng.integers(40, 80)))
        near_copy = edited(rng, vocab, base, float(rng.uniform(*near)), append=rng.random() < 0.5)
        groups.append([" ".join(base), " ".join(near_copy)])
    for _ in range(n_neg):
        base = words_of(rng, vocab, int(rng.integers(40, 80)))
        groups.append([" ".join(base), " ".join(edited(rng, vocab, base, float(rng.uniform(*neg))))])
    for _ in range(n_variant):
        base = words_of(rng, vocab, 50)
        groups.append([surface_variant(rng, base), " ".join(base)])
    groups += [[" ".join(words_of(rng, vocab, int(rng.integers(0, 5))))] for _ in range(3)]
    groups += [[" ".join(words_of(rng, vocab, 30))] for _ in range(10)]
    docs = [d for k in rng.permutation(len(groups)) for d in groups[int(k)]]
    return {"docs": docs, "threshold": threshold, "num_perm": num_perm, "n": 5}


def bridge_corpus(rng):
    return corpus(rng, 0.25, 256, n_bridge=20, n_near=0, near=(0.9, 0.9), n_neg=0, neg=(0, 0))


def mid_threshold_corpus(rng):
    return corpus(rng, 0.5, 128, n_bridge=0, n_near=12, near=(0.8, 0.95), n_neg=8,
                  neg=(0.05, 0.15))


@graded(points=3, cases=bridge_corpus, timeout=30)
def test_clusters_are_transitive_hidden(rec, cases):
    clusters = near_duplicate_clusters(cases["docs"], threshold=cases["threshold"],
                                       num_perm=cases["num_perm"], n=cases["n"])
    rec.check("clusters", [sorted(int(i) for i in c) for c in clusters],
              check="clusters_match_truth")


@graded(points=2, cases=bridge_corpus, timeout=30)
def test_deduplicate_transitive(rec, cases):
    kept = deduplicate(cases["docs"], threshold=cases["threshold"], num_perm=cases["num_perm"],
                       n=cases["n"])
    rec.check("kept", [int(i) for i in kept], check="kept_match_truth")


@graded(points=3, cases=mid_threshold_corpus, timeout=30)
def test_near_duplicate_clusters_mid_threshold(rec, cases):
    clusters = near_duplicate_clusters(cases["docs"], threshold=cases["threshold"],
                                       num_perm=cases["num_perm"], n=cases["n"])
    rec.check("clusters", [sorted(int(i) for i in c) for c in clusters],
              check="clusters_match_truth")
